package client_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"

	"fieldapi/apitest"
	"fieldapi/client"
	"fieldapi/runtime"
)

// scripted is a test server that answers each call with the next of its
// answers and records what it was sent.
type scripted struct {
	url     string
	mu      sync.Mutex
	answers []func(w http.ResponseWriter)
	calls   []*http.Request
	times   []time.Time
}

func (s *scripted) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, r)
	s.times = append(s.times, time.Now())
	if len(s.answers) == 0 {
		w.WriteHeader(http.StatusTeapot)
		return
	}
	answer := s.answers[0]
	s.answers = s.answers[1:]
	answer(w)
}

// problem answers a problem with optional headers.
func problem(status int, code string, headers ...string) func(http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		for i := 0; i+1 < len(headers); i += 2 {
			w.Header().Set(headers[i], headers[i+1])
		}
		w.Header().Set(runtime.HeaderContentType, "application/problem+json")
		w.WriteHeader(status)
		w.Write([]byte(`{"type":"https://fieldapi.dev/problems/` + code + `","title":"` + code + `","status":` + strconv.Itoa(status) + `,"detail":"scripted","requestId":"req-1"}`))
	}
}

func created(w http.ResponseWriter) {
	w.Header().Set(runtime.HeaderContentType, "application/json")
	w.WriteHeader(http.StatusCreated)
	w.Write([]byte(`{"Nr":"1061","Name":"Ola Nordmann AS"}`))
}

// fastRetries keeps the tests quick without changing what is retried.
var fastRetries = client.WithRetryPolicy(client.RetryPolicy{MaxAttempts: 4, BaseDelay: 10 * time.Millisecond, MaxDelay: 50 * time.Millisecond})

func scriptedClient(t *testing.T, answers ...func(http.ResponseWriter)) (*scripted, *client.Client) {
	s := &scripted{answers: answers}
	hs := httptest.NewServer(s)
	t.Cleanup(hs.Close)
	s.url = hs.URL
	return s, client.New(hs.URL, client.WithKey("mk_test_secret"), fastRetries)
}

func TestRetryKeepsTheIdempotencyKey(t *testing.T) {
	is := is.New(t)
	s, c := scriptedClient(t, problem(503, "engine_busy", runtime.HeaderRetryAfter, "0"), problem(504, "engine_timeout"), created)
	customer, err := c.Customers.Create(context.Background(), client.CustomerCreate{Name: client.Value("Ola Nordmann AS")})
	is.NoErr(err)
	is.Equal(customer.Nr, "1061")
	is.Equal(len(s.calls), 3)
	key := s.calls[0].Header.Get(runtime.HeaderIdempotencyKey)
	is.True(key != "")
	for _, call := range s.calls {
		is.Equal(call.Header.Get(runtime.HeaderIdempotencyKey), key) // one key for every attempt
		is.Equal(call.Header.Get(runtime.HeaderAuthorization), "Bearer mk_test_secret")
	}

	// the next call has a key of its own, or the caller's
	s.answers = append(s.answers, created, created)
	_, err = c.Customers.Create(context.Background(), client.CustomerCreate{Name: client.Value("B")})
	is.NoErr(err)
	is.True(s.calls[3].Header.Get(runtime.HeaderIdempotencyKey) != key)
	_, err = c.Customers.Create(client.WithIdempotencyKey(context.Background(), "order-4711"), client.CustomerCreate{Name: client.Value("C")})
	is.NoErr(err)
	is.Equal(s.calls[4].Header.Get(runtime.HeaderIdempotencyKey), "order-4711")
}

func TestRetryAfterIsHonoured(t *testing.T) {
	is := is.New(t)
	s, c := scriptedClient(t, problem(429, "rate_limited", runtime.HeaderRetryAfter, "1"), created)
	_, err := c.Customers.Create(context.Background(), client.CustomerCreate{Name: client.Value("A")})
	is.NoErr(err)
	is.Equal(len(s.calls), 2)
	is.True(s.times[1].Sub(s.times[0]) >= time.Second) // waited what Retry-After said, not the 10 ms backoff

	// a deadline shorter than Retry-After gives the 429 at once
	s.answers = append(s.answers, problem(429, "rate_limited", runtime.HeaderRetryAfter, "30"), created)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	began := time.Now()
	_, err = c.Customers.Get(ctx, "1061")
	is.True(errors.Is(err, client.ErrRateLimited))
	is.True(time.Since(began) < time.Second)
	is.Equal(len(s.calls), 3)
}

func TestClientErrorsAreNotRetried(t *testing.T) {
	for _, tc := range []struct {
		status int
		code   string
		kind   error
	}{
		{400, "invalid_field", client.ErrInvalid},
		{404, "not_found", client.ErrNotFound},
		{409, "idempotency_mismatch", client.ErrConflict},
		{422, "command_failed", client.ErrRejected},
		{403, "insufficient_scope", client.ErrForbidden},
	} {
		t.Run(tc.code, func(t *testing.T) {
			is := is.New(t)
			s, c := scriptedClient(t, problem(tc.status, tc.code), created)
			_, err := c.Customers.Create(context.Background(), client.CustomerCreate{Name: client.Value("A")})
			is.Equal(len(s.calls), 1) // not retried
			is.True(errors.Is(err, tc.kind))
			var p *client.Problem
			is.True(errors.As(err, &p))
			is.Equal(p.Status, tc.status)
			is.Equal(p.Code, tc.code)
			is.Equal(p.RequestID, "req-1")
		})
	}
}

func TestRetriesStopAtMaxAttempts(t *testing.T) {
	is := is.New(t)
	busy := problem(503, "engine_busy", runtime.HeaderRetryAfter, "0")
	s, c := scriptedClient(t, busy, busy, busy, busy, busy)
	_, err := c.Customers.Get(context.Background(), "1")
	is.True(errors.Is(err, client.ErrUnavailable))
	is.Equal(len(s.calls), 4) // MaxAttempts
}

func TestTransportErrorsAreRetried(t *testing.T) {
	is := is.New(t)
	s, c := scriptedClient(t,
		func(w http.ResponseWriter) { // the connection dies before an answer
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close()
		},
		created)
	_, err := c.Customers.Create(context.Background(), client.CustomerCreate{Name: client.Value("A")})
	is.NoErr(err)
	is.Equal(len(s.calls), 2)
	is.Equal(s.calls[0].Header.Get(runtime.HeaderIdempotencyKey), s.calls[1].Header.Get(runtime.HeaderIdempotencyKey))
}

// TestRetryAgainstTheServer: the real server creates the record but its
// answer is lost (the front answers 504 in its place); the client's retry
// carries the same key, gets the stored answer, and the record exists once.
func TestRetryAgainstTheServer(t *testing.T) {
	apitest.Each(t, func(t *testing.T, b apitest.Backend) {
		is := is.New(t)
		env := apitest.Start(t, b, runtime.Config{})
		target, _ := url.Parse(env.URL)
		proxy := httputil.NewSingleHostReverseProxy(target)
		var mu sync.Mutex
		var keys []string
		front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodPost {
				proxy.ServeHTTP(w, r)
				return
			}
			mu.Lock()
			keys = append(keys, r.Header.Get(runtime.HeaderIdempotencyKey))
			first := len(keys) == 1
			mu.Unlock()
			if first {
				proxy.ServeHTTP(httptest.NewRecorder(), r) // the server writes; its answer is lost
				problem(504, "engine_timeout")(w)
				return
			}
			proxy.ServeHTTP(w, r)
		}))
		defer front.Close()
		c := client.New(front.URL, client.WithKey(env.Key), fastRetries)
		ctx := context.Background()
		name := "Retry Once " + time.Now().Format("150405.000000")
		created, err := c.Customers.Create(ctx, client.CustomerCreate{Name: client.Value(name)})
		is.NoErr(err)
		is.Equal(len(keys), 2)
		is.Equal(keys[0], keys[1]) // the retry carried the same key
		page, err := c.Customers.List(ctx, client.CustomerListParams{Name: name})
		is.NoErr(err)
		is.Equal(len(page.Items), 1) // created once
		is.Equal(page.Items[0].Nr, created.Nr)
	})
}
