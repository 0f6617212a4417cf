package client_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/matryer/is"

	"fieldapi/apitest"
	"fieldapi/client"
	"fieldapi/runtime"
)

// countingTransport counts the calls to one path, and the answers 401.
type countingTransport struct {
	path         string
	count        atomic.Int32
	unauthorized atomic.Int32
}

func (ct *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Path == ct.path {
		ct.count.Add(1)
	}
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err == nil && resp.StatusCode == http.StatusUnauthorized {
		ct.unauthorized.Add(1)
	}
	return resp, err
}

// clientIDOf is the client id inside a key mk_<clientId>_<secret>.
func clientIDOf(key string) string {
	rest := strings.TrimPrefix(key, "mk_")
	return rest[:strings.LastIndex(rest, "_")]
}

// TestTokenModeSurvivesExpiry: with tokens required and a lifetime of one
// second, calls half a second apart for three seconds (on a clock the
// server and the client share) all succeed; the client fetched a new token
// each time the last was about to run out, and reused it in between.
func TestTokenModeSurvivesExpiry(t *testing.T) {
	apitest.Each(t, func(t *testing.T, b apitest.Backend) {
		is := is.New(t)
		clock := apitest.NewClock(time.Date(2026, 11, 25, 8, 0, 0, 0, time.UTC))
		env := apitest.Start(t, b, runtime.Config{RequireTokens: true, TokenLifetime: time.Second, Now: clock.Now})
		tokens := &countingTransport{path: "/v1/token"}
		c := client.New(env.URL, client.WithClientCredentials(clientIDOf(env.Key), env.Key),
			client.WithHTTPClient(&http.Client{Transport: tokens}), client.WithClock(clock.Now))
		ctx := context.Background()
		for range 6 {
			_, err := c.Customers.List(ctx, client.CustomerListParams{Limit: 1})
			is.NoErr(err)
			clock.Advance(500 * time.Millisecond)
		}
		// renewed 0.1 s before each expiry: at 0, 1 and 2 s; reused at 0.5, 1.5 and 2.5 s
		is.Equal(tokens.count.Load(), int32(3))
		is.Equal(tokens.unauthorized.Load(), int32(0)) // never sent one that had run out

		// a key sent as Bearer is refused, clearly, and not retried
		keyed := client.New(env.URL, client.WithKey(env.Key))
		_, err := keyed.Customers.List(ctx, client.CustomerListParams{})
		is.True(errors.Is(err, client.ErrTokenRequired))
		is.True(errors.Is(err, client.ErrUnauthorized))
		is.True(strings.Contains(err.Error(), "WithClientCredentials"))

		// wrong credentials: the token endpoint's 401
		wrong := client.New(env.URL, client.WithClientCredentials(clientIDOf(env.Key), env.Key+"x"))
		_, err = wrong.Customers.List(ctx, client.CustomerListParams{})
		is.True(errors.Is(err, client.ErrUnauthorized))
	})
}

// TestExpiredTokenIsFetchedAgainOnce: a 401 to a token the client still
// trusts (the server forgot it) gets one new token and the call again; a
// second 401 is the caller's.
func TestExpiredTokenIsFetchedAgainOnce(t *testing.T) {
	is := is.New(t)
	grant := func(token string) func(http.ResponseWriter) {
		return func(w http.ResponseWriter) {
			w.Header().Set(runtime.HeaderContentType, "application/json")
			w.Write([]byte(`{"access_token":"` + token + `","token_type":"Bearer","expires_in":3600}`))
		}
	}
	customer := func(w http.ResponseWriter) {
		w.Header().Set(runtime.HeaderContentType, "application/json")
		w.Write([]byte(`{"Nr":"1001"}`))
	}
	s, _ := scriptedClient(t,
		grant("mt_one"), customer, // first call: a token, then the answer
		problem(401, "unauthorized"), grant("mt_two"), customer, // the server forgot mt_one
		problem(401, "unauthorized"), grant("mt_three"), problem(401, "unauthorized"), // refused twice: give up
	)
	c := client.New(s.url, client.WithClientCredentials("demo-x", "mk_demo-x_secret"), fastRetries)
	ctx := context.Background()
	_, err := c.Customers.Get(ctx, "1001")
	is.NoErr(err)
	_, err = c.Customers.Get(ctx, "1001")
	is.NoErr(err)
	_, err = c.Customers.Get(ctx, "1001")
	is.True(errors.Is(err, client.ErrUnauthorized))
	var auth []string
	for _, call := range s.calls {
		auth = append(auth, call.Method+" "+call.URL.Path+" "+call.Header.Get(runtime.HeaderAuthorization))
	}
	is.Equal(auth, []string{
		"POST /v1/token ",
		"GET /v1/customers/1001 Bearer mt_one",
		"GET /v1/customers/1001 Bearer mt_one",
		"POST /v1/token ",
		"GET /v1/customers/1001 Bearer mt_two",
		"GET /v1/customers/1001 Bearer mt_two",
		"POST /v1/token ",
		"GET /v1/customers/1001 Bearer mt_three",
	})
}
