package runtime_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/matryer/is"

	"fieldapi/engine"
	"fieldapi/runtime"
	"fieldapi/runtime/problem"
)

// engineRoutes stand in for generated ones: a create of a customer, named
// by the body's "name", and a capability the memory engine lacks. around
// runs once the Idempotency-Key is claimed, and what it returns once the
// engine's create has answered.
func engineRoutes(around func() (after func())) []runtime.Route {
	return []runtime.Route{
		{Method: http.MethodPost, Path: "/v1/customers", Scope: "customers:write", Handler: func(c *runtime.Call) error {
			after := around()
			var body struct{ Name string }
			if err := json.Unmarshal(c.Body, &body); err != nil {
				return problem.MalformedBody("expected {\"name\": \"...\"}")
			}
			in := engine.NewInput()
			in.Values["Name"] = body.Name
			if body.Name == "" {
				in.Values["Nr"] = "taken" // the second create with this key is refused
			}
			resp, err := c.Engine.Create(c.Context(), c.Session, "customers", in, c.Receipt(http.StatusCreated, func(r engine.Record) any { return r }))
			after()
			if err != nil {
				return err
			}
			return c.Send(resp)
		}},
		{Method: http.MethodGet, Path: "/v1/customers/:key/location", Scope: "customers:read", Handler: func(c *runtime.Call) error {
			return runtime.GetLocation(c, "customers")
		}},
		{Method: http.MethodGet, Path: "/v1/customers/:key/changes", Scope: "customers:read", Handler: func(c *runtime.Call) error {
			return runtime.Changes(c, "customers")
		}},
	}
}

// engineClient calls the server with a key of company "rt", sign API.
type engineClient struct {
	t   *testing.T
	url string
	key string
}

func newEngineClient(t *testing.T) (*engineClient, *faultyEngine) {
	return newEngineClientWith(t, func() func() { return func() {} })
}

func newEngineClientWith(t *testing.T, around func() func()) (*engineClient, *faultyEngine) {
	t.Helper()
	hs, eng := newServerWithEngine(t, io.Discard, engineRoutes(around)...)
	key, hash, err := runtime.NewKey("rt-client")
	if err != nil {
		t.Fatal(err)
	}
	if err := eng.Keys().CreateKey(context.Background(), engine.Key{ClientID: "rt-client", Company: "rt", Sign: "API", Scopes: []string{"*"}, SecretHash: hash}); err != nil {
		t.Fatal(err)
	}
	return &engineClient{t: t, url: hs.URL, key: key}, eng
}

// do sends a request and returns the response with its body read.
func (c *engineClient) do(method, path, idempotencyKey, body string) (*http.Response, string) {
	c.t.Helper()
	req, err := http.NewRequest(method, c.url+path, strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set(runtime.HeaderAuthorization, "Bearer "+c.key)
	if idempotencyKey != "" {
		req.Header.Set(runtime.HeaderIdempotencyKey, idempotencyKey)
		req.Header.Set(runtime.HeaderContentType, "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatal(err)
	}
	return resp, string(b)
}

func problemTitle(t *testing.T, body string) string {
	t.Helper()
	var p runtime.Problem
	if err := json.Unmarshal([]byte(body), &p); err != nil {
		t.Fatalf("not a problem: %s", body)
	}
	return p.Title
}

// TestEngineFaultsAreProblems: each fault the engine reports answers its
// problem — 503 with Retry-After when the engine did not take the call, 504
// when it may have written — and is not stored, so a retry with the same
// Idempotency-Key runs once the engine answers again.
func TestEngineFaultsAreProblems(t *testing.T) {
	for _, c := range []struct {
		fault      error
		status     int
		code       string
		retryAfter string
	}{
		{engine.ErrBusy, 503, "engine_busy", "1"},
		{engine.ErrUnreachable, 503, "engine_unreachable", "1"},
		{engine.ErrTimeout, 504, "engine_timeout", ""},
	} {
		t.Run(c.code, func(t *testing.T) {
			is := is.New(t)
			// The first create fails in the engine, after its key was claimed.
			var eng *faultyEngine
			fault := c.fault
			client, eng := newEngineClientWith(t, func() func() {
				eng.Fail(fault)
				fault = nil
				return func() { eng.Fail(nil) }
			})
			resp, body := client.do(http.MethodPost, "/v1/customers", "fault-1", `{"name": "Felande AB"}`)
			is.Equal(resp.StatusCode, c.status)
			is.Equal(problemTitle(t, body), c.code)
			is.Equal(resp.Header.Get(runtime.HeaderRetryAfter), c.retryAfter)

			resp, body = client.do(http.MethodPost, "/v1/customers", "fault-1", `{"name": "Felande AB"}`)
			is.Equal(resp.StatusCode, http.StatusCreated) // ran now: the fault was not stored
			is.Equal(resp.Header.Get(runtime.HeaderIdempotencyReplayed), "false")
			is.True(strings.Contains(body, "Felande AB"))
		})
	}
}

// TestHealthFollowsTheEngine: /health answers 503 while the engine is
// unreachable and 200 again once it answers.
func TestHealthFollowsTheEngine(t *testing.T) {
	is := is.New(t)
	client, eng := newEngineClient(t)
	eng.Fail(engine.ErrUnreachable)
	resp, body := client.do(http.MethodGet, "/health", "", "")
	is.Equal(resp.StatusCode, http.StatusServiceUnavailable)
	is.True(strings.Contains(body, `"engine":"unreachable"`))
	eng.Fail(nil)
	resp, _ = client.do(http.MethodGet, "/health", "", "")
	is.Equal(resp.StatusCode, http.StatusOK)
}

// TestEngineVerdictsReplay: a write the engine ran is replayed with the
// same Idempotency-Key, and so is its refusal (409); other content with
// the same key is 409 idempotency_mismatch.
func TestEngineVerdictsReplay(t *testing.T) {
	is := is.New(t)
	client, _ := newEngineClient(t)
	resp, first := client.do(http.MethodPost, "/v1/customers", "create-1", `{"name": "Kvitto AB"}`)
	is.Equal(resp.StatusCode, http.StatusCreated)
	resp, again := client.do(http.MethodPost, "/v1/customers", "create-1", `{ "name" : "Kvitto AB" }`)
	is.Equal(resp.StatusCode, http.StatusCreated)
	is.Equal(resp.Header.Get(runtime.HeaderIdempotencyReplayed), "true")
	is.Equal(again, first)
	resp, body := client.do(http.MethodPost, "/v1/customers", "create-1", `{"name": "Annan AB"}`)
	is.Equal(resp.StatusCode, http.StatusConflict)
	is.Equal(problemTitle(t, body), "idempotency_mismatch")

	resp, _ = client.do(http.MethodPost, "/v1/customers", "taken-1", `{"name": ""}`)
	is.Equal(resp.StatusCode, http.StatusCreated)
	resp, refused := client.do(http.MethodPost, "/v1/customers", "taken-2", `{"name": ""}`)
	is.Equal(resp.StatusCode, http.StatusUnprocessableEntity) // the key "taken" exists: the engine refuses it (spec 7)
	is.Equal(problemTitle(t, refused), "command_failed")
	resp, replayed := client.do(http.MethodPost, "/v1/customers", "taken-2", `{"name": ""}`)
	is.Equal(resp.StatusCode, http.StatusUnprocessableEntity)
	is.Equal(resp.Header.Get(runtime.HeaderIdempotencyReplayed), "true")
	// The same problem, carrying the replay's own request id (header and body agree).
	var stored, answered runtime.Problem
	is.NoErr(json.Unmarshal([]byte(refused), &stored))
	is.NoErr(json.Unmarshal([]byte(replayed), &answered))
	is.Equal(answered.RequestID, resp.Header.Get(runtime.HeaderRequestID))
	is.True(answered.RequestID != stored.RequestID)
	stored.RequestID, answered.RequestID = "", ""
	is.Equal(answered, stored)
}

// TestMissingCapabilityIs501: a route needing a capability the attached
// engine lacks answers 501 not_implemented.
func TestMissingCapabilityIs501(t *testing.T) {
	client, _ := newEngineClient(t)
	for _, path := range []string{"/v1/customers/1/location", "/v1/customers/1/changes"} {
		is := is.New(t)
		resp, body := client.do(http.MethodGet, path, "", "")
		is.Equal(resp.StatusCode, http.StatusNotImplemented)
		is.Equal(problemTitle(t, body), "not_implemented")
	}
}

// TestLostClaimAnswersTheWinner: a create whose Idempotency-Key another
// execution of the same call answered while it ran writes nothing and
// answers with that execution's stored answer, marked replayed; when that
// answer is gone by the time it looks, it answers 409
// idempotency_claim_lost with Retry-After. Never a 500 (issue 19).
func TestLostClaimAnswersTheWinner(t *testing.T) {
	is := is.New(t)
	client, eng := newEngineClient(t)
	customers := func() int {
		page, err := eng.Engine.List(context.Background(), engine.Session{Company: "rt", Sign: "API"}, "customers", engine.Query{Limit: 100})
		is.NoErr(err)
		return len(page.Records)
	}
	before := customers()

	winner := `{"Nr":"1001","Name":"Vinnare AB"}`
	eng.LoseNextClaim(engine.Response{Status: http.StatusCreated, Body: []byte(winner)}, false)
	resp, body := client.do(http.MethodPost, "/v1/customers", "lost-1", `{"name": "Förlorare AB"}`)
	is.Equal(resp.StatusCode, http.StatusCreated)
	is.Equal(resp.Header.Get(runtime.HeaderIdempotencyReplayed), "true")
	is.Equal(body, winner)        // the winner's answer, not this execution's
	is.Equal(customers(), before) // the loser wrote nothing

	eng.LoseNextClaim(engine.Response{Status: http.StatusCreated, Body: []byte(winner)}, true)
	resp, body = client.do(http.MethodPost, "/v1/customers", "lost-2", `{"name": "Förlorare AB"}`)
	is.Equal(resp.StatusCode, http.StatusConflict)
	is.Equal(problemTitle(t, body), "idempotency_claim_lost")
	is.True(resp.Header.Get(runtime.HeaderRetryAfter) != "")
	is.Equal(customers(), before)

	// The key is free again: a retry runs and creates.
	resp, body = client.do(http.MethodPost, "/v1/customers", "lost-2", `{"name": "Förlorare AB"}`)
	is.Equal(resp.StatusCode, http.StatusCreated)
	is.Equal(resp.Header.Get(runtime.HeaderIdempotencyReplayed), "false")
	is.True(strings.Contains(body, "Förlorare AB"))
	is.Equal(customers(), before+1)
}
