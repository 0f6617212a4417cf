package runtime_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"

	"fieldapi/catalog"
	"fieldapi/engine"
	"fieldapi/engine/dataset"
	"fieldapi/engine/reference"
	"fieldapi/runtime"
)

// newServer serves extra routes beside the built-in ones on the memory
// engine, with the builtin catalog's registers.
func newServer(t *testing.T, log io.Writer, routes ...runtime.Route) *httptest.Server {
	hs, _ := newServerWithEngine(t, log, routes...)
	return hs
}

// newServerWithEngine is newServer that also returns the engine.
func newServerWithEngine(t *testing.T, log io.Writer, routes ...runtime.Route) (*httptest.Server, *faultyEngine) {
	t.Helper()
	return newServerWith(t, runtime.Config{Logger: slog.New(slog.NewTextHandler(log, nil))}, routes...)
}

// newServerWith is newServerWithEngine with a config of the test's own.
// The engine is the reference engine on memory storage, seen only
// through engine.Engine (it offers no optional capability here), with a
// company "rt" whose signature API may do everything, and faults that a
// test switches on.
func newServerWith(t *testing.T, cfg runtime.Config, routes ...runtime.Route) (*httptest.Server, *faultyEngine) {
	t.Helper()
	ctx := context.Background()
	cat, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	ref, err := reference.Open(ctx, reference.MemoryDSN, cat, reference.Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = ref.Import(ctx, dataset.Company{ID: "rt", Name: "Runtime test", Batches: []dataset.Batch{{Name: "users", Registers: []dataset.Register{
		{Name: "users", Records: []dataset.Record{{Values: map[string]any{"Sign": "API", "Name": "API", "Status": "Active"}, Permissions: "*"}}},
	}}}})
	if err != nil {
		t.Fatal(err)
	}
	eng := &faultyEngine{Engine: ref}
	srv := runtime.NewServer(eng, cfg, runtime.API{Routes: routes})
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	return hs, eng
}

// faultyEngine is an engine whose writes and pings fail with a fault
// while one is switched on (Fail), as a database that is busy, gone or
// slow makes them fail. Everything else is the engine's own.
type faultyEngine struct {
	engine.Engine
	mu    sync.Mutex
	fault error
	// lostTo, when set, is stored under the next create's key before the
	// create runs; forgetAnswer drops stored answers on the next Claim.
	lostTo       *engine.Response
	forgetAnswer bool
}

// LoseNextClaim makes the next create lose its Idempotency-Key: just
// before the engine's create runs, another execution's answer is stored
// under the key, as when a retry of the same call ran beside it and
// finished first. With forget, that answer is gone again (pruned) by the
// time the loser reads it back.
func (e *faultyEngine) LoseNextClaim(winner engine.Response, forget bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.lostTo, e.forgetAnswer = &winner, forget
}

// takeLoss returns the answer the next create loses its key to, once.
func (e *faultyEngine) takeLoss() (*engine.Response, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	winner, forget := e.lostTo, e.forgetAnswer
	e.lostTo = nil
	return winner, forget
}

func (e *faultyEngine) Idempotency() engine.IdempotencyStore {
	return forgettingStore{IdempotencyStore: e.Engine.Idempotency(), e: e}
}

// forgettingStore prunes every stored answer before a Claim while the
// engine's forgetAnswer is on (once).
type forgettingStore struct {
	engine.IdempotencyStore
	e *faultyEngine
}

func (f forgettingStore) Claim(ctx context.Context, c engine.Claim) (engine.ClaimResult, error) {
	f.e.mu.Lock()
	forget := f.e.forgetAnswer && f.e.lostTo == nil
	if forget {
		f.e.forgetAnswer = false
	}
	f.e.mu.Unlock()
	if forget {
		if _, err := f.IdempotencyStore.Prune(ctx, time.Now().Add(time.Hour)); err != nil {
			return engine.ClaimResult{}, err
		}
	}
	return f.IdempotencyStore.Claim(ctx, c)
}

// Fail makes writes and pings answer the fault (engine.ErrBusy,
// engine.ErrUnreachable or engine.ErrTimeout) until Fail(nil).
func (e *faultyEngine) Fail(fault error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.fault = fault
}

func (e *faultyEngine) failing() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.fault == nil {
		return nil
	}
	return fmt.Errorf("switched on by the test: %w", e.fault)
}

func (e *faultyEngine) Ping(ctx context.Context) error {
	if err := e.failing(); err != nil {
		return err
	}
	return e.Engine.Ping(ctx)
}

func (e *faultyEngine) Create(ctx context.Context, s engine.Session, register string, in engine.Input, r engine.Receipt) (engine.Response, error) {
	if err := e.failing(); err != nil {
		return engine.Response{}, err
	}
	if winner, _ := e.takeLoss(); winner != nil {
		if err := e.Engine.Idempotency().Complete(ctx, r.Claim, *winner); err != nil {
			return engine.Response{}, fmt.Errorf("storing the winner's answer: %w", err)
		}
	}
	return e.Engine.Create(ctx, s, register, in, r)
}

// TestPanicIsAProblem: a handler that panics answers 500 internal_error
// with the request id, the panic is logged with that id, and the server
// goes on serving.
func TestPanicIsAProblem(t *testing.T) {
	is := is.New(t)
	var log strings.Builder
	hs := newServer(t, &log, runtime.Route{Method: http.MethodGet, Path: "/boom", Public: true, Handler: func(c *runtime.Call) error {
		var m map[string]int
		m["x"]++ // nil map: panics
		return nil
	}})
	req, _ := http.NewRequest(http.MethodGet, hs.URL+"/boom", nil)
	req.Header.Set(runtime.HeaderRequestID, "panic-1")
	resp, err := http.DefaultClient.Do(req)
	is.NoErr(err)
	defer resp.Body.Close()
	is.Equal(resp.StatusCode, http.StatusInternalServerError)
	is.Equal(resp.Header.Get(runtime.HeaderContentType), "application/problem+json")
	var p runtime.Problem
	is.NoErr(json.NewDecoder(resp.Body).Decode(&p))
	is.Equal(p.Title, "internal_error")
	is.Equal(p.RequestID, "panic-1")
	is.True(!strings.Contains(p.Detail, "nil map")) // no internals leak
	is.True(strings.Contains(log.String(), "panic-1"))

	health, err := http.Get(hs.URL + "/health")
	is.NoErr(err)
	health.Body.Close()
	is.Equal(health.StatusCode, http.StatusOK) // still serving
}

// TestEscapedKeysStayWhole: a key holding "/" sent as %2F reaches the
// handler whole, unescaped.
func TestEscapedKeysStayWhole(t *testing.T) {
	is := is.New(t)
	hs := newServer(t, io.Discard, runtime.Route{Method: http.MethodGet, Path: "/things/:key", Public: true, Handler: func(c *runtime.Call) error {
		key, err := c.Key()
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, key)
	}})
	resp, err := http.Get(hs.URL + "/things/Travel%2C%20km%2Fday")
	is.NoErr(err)
	defer resp.Body.Close()
	var key string
	is.NoErr(json.NewDecoder(resp.Body).Decode(&key))
	is.Equal(key, "Travel, km/day")
}
