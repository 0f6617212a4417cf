package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/matryer/is"
	"golang.org/x/time/rate"

	"fieldapi/catalog"
	"fieldapi/engine"
	"fieldapi/engine/geocode"
)

// syncBuffer is a log sink the server goroutine and the test share.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// runningServer is "fieldapi serve" running in a goroutine.
type runningServer struct {
	addr        net.Addr
	metricsAddr net.Addr // nil unless --metrics-addr was given
	logs        *syncBuffer
	stdout      *syncBuffer
	stop        func() int // cancels the context, as SIGINT does, and returns the exit code
}

// startServe runs serve on a free port of 127.0.0.1, with any extra flags,
// and waits until it listens.
func startServe(t *testing.T, dsn string, extra ...string) runningServer {
	t.Helper()
	return startServeWith(t, nil, dsn, extra...)
}

// startServeWith is startServe over cat (nil: the builtin catalog).
func startServeWith(t *testing.T, cat *catalog.Catalog, dsn string, extra ...string) runningServer {
	t.Helper()
	return startServeApp(t, &app{catalog: cat}, dsn, extra...)
}

// startServeApp is startServe of a, its outputs, environment (empty) and
// listen hooks set here.
func startServeApp(t *testing.T, a *app, dsn string, extra ...string) runningServer {
	t.Helper()
	logs, stdout := &syncBuffer{}, &syncBuffer{}
	listening := make(chan net.Addr, 1)
	metricsListening := make(chan net.Addr, 1)
	a.stdout, a.stderr, a.getenv = stdout, logs, func(string) string { return "" }
	a.onListen = func(addr net.Addr) { listening <- addr }
	a.onMetricsListen = func(addr net.Addr) { metricsListening <- addr }
	ctx, cancel := context.WithCancel(t.Context())
	exit := make(chan int, 1)
	args := append([]string{"serve", "--db", dsn, "--addr", "127.0.0.1:0"}, extra...)
	go func() { exit <- a.run(ctx, args) }()
	stop := func() int {
		cancel()
		select {
		case code := <-exit:
			return code
		case <-time.After(shutdownTimeout + 5*time.Second):
			t.Fatal("serve did not shut down")
			return -1
		}
	}
	select {
	case addr := <-listening:
		srv := runningServer{addr: addr, logs: logs, stdout: stdout, stop: stop}
		select {
		case srv.metricsAddr = <-metricsListening: // announced before the API listens
		default:
		}
		return srv
	case code := <-exit:
		t.Fatalf("serve exited with %d before listening: %s", code, logs.String())
	case <-time.After(10 * time.Second):
		cancel()
		t.Fatal("serve did not start listening")
	}
	return runningServer{}
}

// getHealth is the status of GET /health.
func getHealth(t *testing.T, addr net.Addr) int {
	t.Helper()
	resp, err := http.Get("http://" + addr.String() + "/health")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func TestServeAnswersHealthAndShutsDownCleanly(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	srv := startServe(t, demoDSN(t))

	resp, err := http.Get("http://" + srv.addr.String() + "/health")
	is.NoErr(err)
	resp.Body.Close()
	is.Equal(resp.StatusCode, http.StatusOK)                        // engine reachable
	is.True(resp.Header.Get("X-Request-Id") != "")                  // the runtime answered
	is.True(strings.Contains(srv.logs.String(), srv.addr.String())) // the listen address is logged

	is.Equal(srv.stop(), 0) // a clean shutdown, as on SIGINT / SIGTERM
	is.True(strings.Contains(srv.logs.String(), "stopped"))
	_, err = http.Get("http://" + srv.addr.String() + "/health")
	is.True(err != nil) // nothing listens any more
}

func TestServeFailsWhenTheAddressIsTaken(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	is.NoErr(err)
	defer ln.Close()
	r := runCLI(t, nil, "serve", "--db", demoDSN(t), "--addr", ln.Addr().String())
	is.Equal(r.code, 1)
	is.True(strings.Contains(r.stderr, "address already in use"))
}

func TestParseServeConfig(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	env := map[string]string{
		"FIELDAPI_DB":              "sqlite:env.db",
		"FIELDAPI_ADDR":            "0.0.0.0:9000",
		"FIELDAPI_REQUIRE_TOKENS":  "true",
		"FIELDAPI_RATE_LIMIT":      "0",
		"FIELDAPI_IDEMPOTENCY_TTL": "48h",
	}
	cfg, err := parseServeConfig([]string{"--addr", "127.0.0.1:9999", "--statement-timeout", "5s", "--token-lifetime", "15m"},
		func(k string) string { return env[k] }, io.Discard)
	is.NoErr(err)
	is.Equal(cfg.dsn, "sqlite:env.db")              // from FIELDAPI_DB
	is.Equal(cfg.addr, "127.0.0.1:9999")            // the flag wins over FIELDAPI_ADDR
	is.True(cfg.runtime.RequireTokens)              // FIELDAPI_REQUIRE_TOKENS=true
	is.Equal(cfg.runtime.RateLimit, rate.Limit(-1)) // 0 turns the limit off
	is.Equal(cfg.runtime.IdempotencyTTL, 48*time.Hour)
	is.Equal(cfg.runtime.TokenLifetime, 15*time.Minute)
	is.Equal(cfg.engine.StatementTimeout, 5*time.Second)

	defaults, err := parseServeConfig(nil, func(string) string { return "" }, io.Discard)
	is.NoErr(err)
	is.Equal(defaults.dsn, defaultDSN)
	is.Equal(defaults.runtime.IdempotencyTTL, 24*time.Hour)
	is.True(defaults.runtime.RateLimit > 0)

	for _, bad := range [][]string{
		{"--token-lifetime", "2h"},
		{"--idempotency-ttl", "0s"},
		{"--max-open-conns", "0"},
		{"--problem-base", "problems"},
		{"--statement-timeout", "-1s"},
	} {
		_, err := parseServeConfig(bad, func(string) string { return "" }, io.Discard)
		is.True(err != nil) // refused
	}
	_, err = parseServeConfig(nil, func(k string) string { return map[string]string{"FIELDAPI_RATE_BURST": "many"}[k] }, io.Discard)
	is.True(err != nil && strings.Contains(err.Error(), "FIELDAPI_RATE_BURST")) // names the variable
}

// fakeIdempotencyStore counts Prune calls.
type fakeIdempotencyStore struct {
	engine.IdempotencyStore
	prunes  atomic.Int32
	before  atomic.Value
	prunedC chan struct{}
}

func (f *fakeIdempotencyStore) Prune(_ context.Context, before time.Time) (int, error) {
	f.before.Store(before)
	if f.prunes.Add(1) == 3 {
		close(f.prunedC)
	}
	return 1, errors.New("ignored: pruning goes on after an error")
}

func TestPruneIdempotencyKeysRunsAtStartAndThenPeriodically(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	store := &fakeIdempotencyStore{prunedC: make(chan struct{})}
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	ctx, stop := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		pruneIdempotencyKeys(ctx, store, 24*time.Hour, time.Millisecond, func() time.Time { return now }, slog.New(slog.DiscardHandler))
		close(done)
	}()
	select {
	case <-store.prunedC:
	case <-time.After(5 * time.Second):
		t.Fatal("pruning did not repeat")
	}
	stop()
	<-done                                                            // stops with its context
	is.Equal(store.before.Load().(time.Time), now.Add(-24*time.Hour)) // keys older than the TTL
}

func TestServeGeocoderFlags(t *testing.T) {
	is := is.New(t)
	none := func(string) string { return "" }
	cfg, err := parseServeConfig([]string{"--geocoder", "nominatim", "--geocoder-url", "http://127.0.0.1:9/"}, none, io.Discard)
	is.NoErr(err)
	_, isNominatim := cfg.engine.Geocoder.(*geocode.Nominatim)
	is.True(isNominatim)
	_, err = parseServeConfig([]string{"--geocoder", "nominatim"}, none, io.Discard)
	is.True(err != nil) // needs its URL
	_, err = parseServeConfig([]string{"--geocoder", "google"}, none, io.Discard)
	is.True(err != nil)
}
