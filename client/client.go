// Package client is the typed Go client of fieldapi.
//
// One service per register of the catalog (c.Customers, c.Tasks, ...) is
// generated from the same model as the server's HTTP layer, so the client
// cannot drift from the routes it calls; the files named *_gen.go are
// written by fieldgen and never edited. This file and the other hand-written
// ones hold what every register shares: authentication, retries with one
// Idempotency-Key per call, problems as errors, response metadata and
// preconditions (ETag, If-Match, If-None-Match), paging and field types.
//
//	c := client.New("https://fieldapi.example.com", client.WithKey(key))
//	customer, err := c.Customers.Get(ctx, "1001")
//
// The package uses the standard library only.
package client

import (
	"net/http"
	"strings"
	"time"
)

// DefaultUserAgent is sent unless WithUserAgent gives another.
const DefaultUserAgent = "fieldapi-go"

// Client calls one fieldapi installation. It is safe for concurrent use.
// Build it with New; the register services are its fields.
type Client struct {
	Services

	baseURL   string
	http      *http.Client
	userAgent string
	retry     RetryPolicy
	auth      authenticator
	now       func() time.Time
}

// Option configures a Client in New.
type Option func(*Client)

// New returns a client of the installation at baseURL (for example
// https://fieldapi.example.com, without /v1). Without WithKey or
// WithClientCredentials every call is answered 401.
func New(baseURL string, opts ...Option) *Client {
	c := &Client{
		baseURL:   strings.TrimRight(baseURL, "/"),
		http:      &http.Client{Timeout: 2 * time.Minute},
		userAgent: DefaultUserAgent,
		retry:     DefaultRetryPolicy,
		auth:      noAuth{},
		now:       time.Now,
	}
	for _, opt := range opts {
		opt(c)
	}
	c.Services = newServices(c)
	return c
}

// WithKey sends the key (mk_…) as Bearer on every call.
func WithKey(key string) Option {
	return func(c *Client) { c.auth = staticKey(key) }
}

// WithClientCredentials exchanges the key for access tokens at
// POST /v1/token and sends the token instead: what an installation started
// with --require-tokens demands. A token is reused until shortly before it
// expires, and fetched anew once when a call says it is no longer valid.
func WithClientCredentials(clientID, key string) Option {
	return func(c *Client) { c.auth = &tokenSource{clientID: clientID, secret: key} }
}

// WithHTTPClient sends the calls through hc (its transport, proxy and
// timeout); the default is an http.Client with a two-minute timeout.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *Client) { c.http = hc }
}

// WithUserAgent names the integration in the User-Agent header, in front
// of DefaultUserAgent.
func WithUserAgent(agent string) Option {
	return func(c *Client) { c.userAgent = agent + " " + DefaultUserAgent }
}

// WithClock replaces the clock that decides when an access token is
// renewed (time.Now); tests that run a server on a clock of their own
// pass the same one.
func WithClock(now func() time.Time) Option {
	return func(c *Client) { c.now = now }
}

// WithRetryPolicy replaces DefaultRetryPolicy.
func WithRetryPolicy(p RetryPolicy) Option {
	return func(c *Client) { c.retry = p }
}
