package client

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
)

// request is one logical call. It may be sent several times (retries, a
// refreshed token), always with the same body and Idempotency-Key.
type request struct {
	method string
	path   string // escaped, from /v1 on
	query  url.Values
	body   any  // sent as JSON; nil sends no body
	public bool // sent without credentials (POST /v1/token)

	// conditional marks a call on one record that honours the context's
	// preconditions: a Get sends If-None-Match, a write If-Match.
	conditional bool
	// upsert marks a PUT by key, which also honours WithCreateOnly
	// (If-None-Match: *) and takes WithIfMatch's "*" (update only).
	upsert bool
}

// isWrite reports whether the call needs an Idempotency-Key.
func (r request) isWrite() bool {
	return r.method != http.MethodGet && r.method != http.MethodHead && !r.public
}

type idempotencyKeyContext struct{}

// WithIdempotencyKey makes the write calls made with ctx send key as their
// Idempotency-Key instead of a fresh random one. Give a key derived from
// your own data (an order id, a message id) to make a call safe to repeat
// across restarts of your program: the server answers a repeated key with
// the first call's response and runs nothing again.
func WithIdempotencyKey(ctx context.Context, key string) context.Context {
	return context.WithValue(ctx, idempotencyKeyContext{}, key)
}

// idempotencyKey is the caller's key, or a fresh random one.
func idempotencyKey(ctx context.Context) string {
	if key, ok := ctx.Value(idempotencyKeyContext{}).(string); ok && key != "" {
		return key
	}
	b := make([]byte, 16)
	rand.Read(b)
	return "fieldapi-go-" + hex.EncodeToString(b)
}

// do sends a call, retrying as the policy allows, and returns a 2xx
// response whose body the caller closes. A 304 is ErrNotModified, any
// other answer a *Problem; a failure to reach the server is returned as it
// is. The last answer fills the caller's Response (WithResponse).
func (c *Client) do(ctx context.Context, req request) (*http.Response, error) {
	var (
		last     *http.Response
		key      string
		attempts int
	)
	if !req.public { // a token fetch is not the caller's call
		defer func() { recordResponse(ctx, last, key, attempts) }()
	}
	ifMatch, ifNoneMatch, err := preconditions(ctx, req)
	if err != nil {
		return nil, err
	}
	var payload []byte
	if req.body != nil {
		var err error
		if payload, err = json.Marshal(req.body); err != nil {
			return nil, fmt.Errorf("fieldapi: encoding the request body: %w", err)
		}
	}
	if req.isWrite() {
		key = idempotencyKey(ctx) // one key for every attempt of this call
	}
	headers := callHeaders(key, ifMatch, ifNoneMatch)
	refreshed := false
	for attempt := 1; ; attempt++ {
		authorization := ""
		if !req.public {
			var err error
			if authorization, err = c.auth.authorization(ctx, c); err != nil {
				return nil, err
			}
		}
		attempts++
		resp, err := c.send(ctx, req, payload, headers, authorization)
		last = resp
		if err != nil {
			if ctx.Err() != nil || !c.retry.more(attempt) || c.retry.wait(ctx, attempt, 0) != nil {
				return nil, err
			}
			continue
		}
		if resp.StatusCode < 300 {
			return resp, nil
		}
		if resp.StatusCode == http.StatusNotModified {
			resp.Body.Close()
			return nil, ErrNotModified
		}
		p := readProblem(resp)
		if p.Status == http.StatusUnauthorized && p.Code == "unauthorized" && !req.public && !refreshed && c.auth.forget(authorization) {
			refreshed = true // the token expired or was dropped: one new token, once
			continue
		}
		if p.retryable() && c.retry.more(attempt) && c.retry.wait(ctx, attempt, p.retryAfter) == nil {
			continue
		}
		return nil, p
	}
}

// callHeaders are the headers every attempt of a call sends alike; ""
// values are left out.
func callHeaders(idempotencyKey, ifMatch, ifNoneMatch string) http.Header {
	h := http.Header{}
	for name, value := range map[string]string{headerIdempotencyKey: idempotencyKey, headerIfMatch: ifMatch, headerIfNoneMatch: ifNoneMatch} {
		if value != "" {
			h.Set(name, value)
		}
	}
	return h
}

// send makes one HTTP attempt.
func (c *Client) send(ctx context.Context, req request, payload []byte, headers http.Header, authorization string) (*http.Response, error) {
	u := c.baseURL + req.path
	if len(req.query) > 0 {
		u += "?" + req.query.Encode()
	}
	var body io.Reader
	if payload != nil {
		body = bytes.NewReader(payload)
	}
	hr, err := http.NewRequestWithContext(ctx, req.method, u, body)
	if err != nil {
		return nil, err
	}
	hr.Header.Set(headerUserAgent, c.userAgent)
	hr.Header.Set(headerAccept, "application/json")
	if payload != nil {
		hr.Header.Set(headerContentType, "application/json")
	}
	for name, values := range headers {
		hr.Header[name] = values
	}
	if authorization != "" {
		hr.Header.Set(headerAuthorization, authorization)
	}
	return c.http.Do(hr)
}

// call sends a request and decodes its JSON answer into T.
func call[T any](ctx context.Context, c *Client, req request) (T, error) {
	var out T
	resp, err := c.do(ctx, req)
	if err != nil {
		return out, err
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return out, fmt.Errorf("fieldapi: decoding the answer to %s %s: %w", req.method, req.path, err)
	}
	return out, nil
}
