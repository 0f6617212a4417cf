// Package apitest runs the whole service over real HTTP against the real
// engine: SQLite in a temporary directory, and PostgreSQL when
// FIELDAPI_TEST_POSTGRES names a server.
package apitest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // PostgreSQL driver for creating test schemas

	"fieldapi/catalog"
	"fieldapi/engine/demo"
	"fieldapi/engine/reference"
	"fieldapi/generated"
	"fieldapi/runtime"
)

// PostgresEnv names the PostgreSQL server the tests may use.
const PostgresEnv = "FIELDAPI_TEST_POSTGRES"

// Backend is one engine database the suite runs against.
type Backend struct {
	Name string
	dsn  func(t testing.TB) string
}

// Backends are SQLite and memory always, and PostgreSQL when
// FIELDAPI_TEST_POSTGRES is set. Backends(t)[0] is SQLite, for the tests
// that run on one database only.
func Backends(t testing.TB) []Backend {
	backends := []Backend{
		{Name: "sqlite", dsn: sqliteCopy},
		{Name: "memory", dsn: func(testing.TB) string { return reference.MemoryDSN }},
	}
	pg := os.Getenv(PostgresEnv)
	if pg == "" {
		t.Logf("%s is not set: PostgreSQL runs are skipped", PostgresEnv)
		return backends
	}
	return append(backends, Backend{Name: "postgres", dsn: func(t testing.TB) string { return postgresCopy(t, pg) }})
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// Env is one running service with demo data.
type Env struct {
	T       testing.TB
	URL     string
	DSN     string // the engine's database, for benchmarks that seed it directly
	Engine  *reference.Engine
	Catalog *catalog.Catalog
	Server  *runtime.Server
	// Key is a key of company demo, signature API, with every scope.
	Key string
	// OtherKey is the same for company demo2.
	OtherKey string

	skipRequestValidation bool // SkipRequestValidation: every request of this Env is off the contract
}

// NextNumber checks that nr, the number of a record created after the
// one numbered last, is the series' next — or, on PostgreSQL, whose
// series do not give back the number of a create that rolled back, a
// higher one (README: gaps can occur).
func (e *Env) NextNumber(t testing.TB, nr string, last int) {
	t.Helper()
	n, err := strconv.Atoi(nr)
	switch {
	case err != nil:
		t.Errorf("Nr %q is no number", nr)
	case strings.HasPrefix(e.DSN, "postgres"):
		if n <= last {
			t.Errorf("Nr %d; want a number above %d: numbers increase", n, last)
		}
	case n != last+1:
		t.Errorf("Nr %d; want %d: a create that rolled back used no number", n, last+1)
	}
}

// Each runs fn once per backend as a subtest.
func Each(t *testing.T, fn func(t *testing.T, b Backend)) {
	for _, b := range Backends(t) {
		t.Run(b.Name, func(t *testing.T) { fn(t, b) })
	}
}

// Start runs the service on the backend with demo data and the given config.
func Start(t testing.TB, b Backend, cfg runtime.Config) *Env {
	t.Helper()
	return StartWith(t, b, cfg, reference.Options{})
}

// StartWith is Start with engine options, such as a clock of the test's
// own (Options.Now) for rules that depend on the day.
func StartWith(t testing.TB, b Backend, cfg runtime.Config, opt reference.Options) *Env {
	t.Helper()
	ctx := context.Background()
	cat, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	dsn := b.dsn(t)
	eng, err := reference.Open(ctx, dsn, cat, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	if err := eng.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if err := demo.Load(ctx, eng); err != nil {
		t.Fatal(err)
	}
	if cfg.RateLimit == 0 {
		cfg.RateLimit = -1 // tests that want a limit set one
	}
	if cfg.Logger == nil {
		cfg.Logger = quietLogger()
	}
	srv := runtime.NewServer(eng, cfg, generated.API())
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	env := &Env{T: t, URL: hs.URL, DSN: dsn, Engine: eng, Catalog: cat, Server: srv}
	env.Key = env.NewKey("demo", "API", "*")
	env.OtherKey = env.NewKey("demo2", "API", "*")
	return env
}

// NewKey creates a key the way the CLI does and returns its text.
func (e *Env) NewKey(company, sign string, scopes ...string) string {
	e.T.Helper()
	return e.NewKeyFrom(company, sign, nil, scopes...)
}

// Request is one HTTP call to the service.
type Request struct {
	Method  string
	Path    string
	Key     string // Bearer value; "" sends no Authorization
	Body    any    // marshalled as JSON unless it is a string or []byte
	Headers map[string]string
	// SkipRequestValidation is for a request the OpenAPI document does not
	// allow, sent on purpose (bad bodies, missing headers): it is not
	// validated against the document; its response still is (contract.go).
	SkipRequestValidation bool
	// SkipResponseValidation also leaves the answer unchecked against the
	// document: for the hostile-input test's thousands of malformed
	// requests, which check every answer themselves and have the document
	// check a sample of them.
	SkipResponseValidation bool
}

// Response is what came back.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body into v, failing the test when it is not JSON.
func (r Response) JSON(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("body is not JSON (%v): %s", err, r.Body)
	}
}

// Object decodes the body as a JSON object.
func (r Response) Object(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	r.JSON(t, &m)
	return m
}

// Problem decodes a problem body and checks its media type and request id.
func (r Response) Problem(t testing.TB) runtime.Problem {
	t.Helper()
	if ct := r.Header.Get(runtime.HeaderContentType); ct != "application/problem+json" {
		t.Fatalf("problem Content-Type = %q, body %s", ct, r.Body)
	}
	var p runtime.Problem
	r.JSON(t, &p)
	if p.RequestID == "" || p.RequestID != r.Header.Get(runtime.HeaderRequestID) {
		t.Fatalf("problem requestId %q does not match X-Request-Id %q", p.RequestID, r.Header.Get(runtime.HeaderRequestID))
	}
	if p.Status != r.Status {
		t.Fatalf("problem status %d, HTTP status %d", p.Status, r.Status)
	}
	return p
}

// Do sends a request; writes get a fresh Idempotency-Key unless one is given.
func (e *Env) Do(req Request) Response {
	e.T.Helper()
	var body io.Reader
	var sent []byte
	switch b := req.Body.(type) {
	case nil:
	case string:
		sent = []byte(b)
	case []byte:
		sent = b
	default:
		data, err := json.Marshal(b)
		if err != nil {
			e.T.Fatal(err)
		}
		sent = data
	}
	if req.Body != nil {
		body = bytes.NewReader(sent)
	}
	hr, err := http.NewRequest(req.Method, e.URL+req.Path, body)
	if err != nil {
		e.T.Fatal(err)
	}
	if req.Key != "" {
		hr.Header.Set(runtime.HeaderAuthorization, "Bearer "+req.Key)
	}
	if body != nil {
		hr.Header.Set(runtime.HeaderContentType, "application/json")
	}
	if req.Method != http.MethodGet {
		if _, given := req.Headers[runtime.HeaderIdempotencyKey]; !given {
			hr.Header.Set(runtime.HeaderIdempotencyKey, "test-"+randomHex(8))
		}
	}
	for k, v := range req.Headers {
		if v == "" {
			hr.Header.Del(k)
			continue
		}
		hr.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(hr)
	if err != nil {
		e.T.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		e.T.Fatal(err)
	}
	if req.SkipResponseValidation {
		return Response{Status: resp.StatusCode, Header: resp.Header, Body: data}
	}
	if err := Contract(e.T).check(hr, sent, req.SkipRequestValidation || e.skipRequestValidation, resp.StatusCode, resp.Header, data); err != nil {
		e.T.Errorf("OpenAPI contract: %s %s: %v", req.Method, req.Path, err)
	}
	return Response{Status: resp.StatusCode, Header: resp.Header, Body: data}
}

// Get is a GET with the demo key.
func (e *Env) Get(path string) Response {
	e.T.Helper()
	return e.Do(Request{Method: http.MethodGet, Path: path, Key: e.Key})
}

// Post is a POST with the demo key and a fresh Idempotency-Key.
func (e *Env) Post(path string, body any) Response {
	e.T.Helper()
	return e.Do(Request{Method: http.MethodPost, Path: path, Key: e.Key, Body: body})
}

// Patch is a PATCH with the demo key and a fresh Idempotency-Key.
func (e *Env) Patch(path string, body any) Response {
	e.T.Helper()
	return e.Do(Request{Method: http.MethodPatch, Path: path, Key: e.Key, Body: body})
}

// Expect fails the test unless the response has the status.
func Expect(t testing.TB, r Response, status int) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d; body: %s", r.Status, status, r.Body)
	}
}

// KeyPath is a record path with the key escaped whole.
func KeyPath(register, key string, rest ...string) string {
	return "/v1/" + register + "/" + url.PathEscape(key) + strings.Join(rest, "")
}

// FirstKey returns the key of the newest record of a register visible to key.
func (e *Env) FirstKey(register, key string) (string, bool) {
	e.T.Helper()
	resp := e.Do(Request{Method: http.MethodGet, Path: "/v1/" + register + "?limit=1", Key: key})
	Expect(e.T, resp, http.StatusOK)
	var env struct{ Items []map[string]any }
	resp.JSON(e.T, &env)
	if len(env.Items) == 0 {
		return "", false
	}
	reg := e.Catalog.Register(register)
	return fmt.Sprint(env.Items[0][reg.Key]), true
}
