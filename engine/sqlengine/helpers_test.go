package sqlengine

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"fieldapi/catalog"
	"fieldapi/engine"
	"fieldapi/engine/demo"
)

// postgresEnv names the PostgreSQL DSN the tests also run against, e.g.
// postgres://postgres@127.0.0.1:5432/test?sslmode=disable.
const postgresEnv = "FIELDAPI_TEST_POSTGRES"

var logPostgresSkipped sync.Once

// testBackend is one database the tests run against.
type testBackend struct {
	name string
	// dsn returns a DSN of a fresh, empty database, removed when t ends.
	dsn func(t *testing.T) string
}

// testBackends are SQLite, plus PostgreSQL when FIELDAPI_TEST_POSTGRES is set.
func testBackends(t *testing.T) []testBackend {
	backends := []testBackend{{name: "sqlite", dsn: func(t *testing.T) string {
		return "sqlite:" + filepath.Join(t.TempDir(), "engine.db")
	}}}
	base := os.Getenv(postgresEnv)
	if base == "" {
		logPostgresSkipped.Do(func() {
			t.Logf("PostgreSQL skipped: set %s (e.g. postgres://postgres@127.0.0.1:5432/test?sslmode=disable) to run these tests against it too", postgresEnv)
		})
		return backends
	}
	return append(backends, testBackend{name: "postgres", dsn: func(t *testing.T) string { return freshSchema(t, base) }})
}

// freshSchema creates a schema with a random name, returns a DSN whose
// search_path points at it, and drops it when the test ends.
func freshSchema(t *testing.T, base string) string {
	t.Helper()
	dsn, drop, err := newSchema(base)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := drop(); err != nil {
			t.Error(err)
		}
	})
	return dsn
}

// newSchema creates a schema with a random name and returns a DSN whose
// search_path points at it, and a function that drops it.
func newSchema(base string) (dsn string, drop func() error, err error) {
	admin, err := sqlx.Open("pgx", base)
	if err != nil {
		return "", nil, err
	}
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	schema := "fieldapi_test_" + hex.EncodeToString(b)
	if _, err := admin.Exec(`CREATE SCHEMA ` + quote(schema)); err != nil {
		admin.Close()
		return "", nil, fmt.Errorf("create schema: %w", err)
	}
	drop = func() error {
		defer admin.Close()
		if _, err := admin.Exec(`DROP SCHEMA ` + quote(schema) + ` CASCADE`); err != nil {
			return fmt.Errorf("drop schema %s: %w", schema, err)
		}
		return nil
	}
	sep := "?"
	if strings.Contains(base, "?") {
		sep = "&"
	}
	return base + sep + "search_path=" + schema, drop, nil
}

// testEngine is an engine under test with its clock.
type testEngine struct {
	*Engine
	clock *testClock
}

// eachEngine runs fn once per backend, in parallel subtests, each with a
// fresh migrated database holding the demo data. The test itself runs in
// parallel with the other tests.
func eachEngine(t *testing.T, fn func(t *testing.T, e testEngine)) {
	t.Parallel()
	for _, b := range testBackends(t) {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			e := openTestEngine(t, b.dsn(t), Options{})
			fn(t, e)
		})
	}
}

// openTestEngine opens, migrates and loads the demo data; the engine is
// closed when the test ends.
func openTestEngine(t *testing.T, dsn string, opt Options) testEngine {
	t.Helper()
	cat, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	return openTestEngineWith(t, dsn, cat, opt)
}

// openTestEngineWith is openTestEngine with another catalog.
func openTestEngineWith(t *testing.T, dsn string, cat *catalog.Catalog, opt Options) testEngine {
	t.Helper()
	e, err := openDemoEngine(dsn, cat, opt)
	if err != nil {
		t.Fatal(err)
	}
	// Registered after the schema cleanup, so it runs before it.
	t.Cleanup(func() { e.Close() })
	return e
}

func openDemoEngine(dsn string, cat *catalog.Catalog, opt Options) (testEngine, error) {
	ctx := context.Background()
	clock := newTestClock()
	if opt.Now == nil {
		opt.Now = clock.Now
	}
	e, err := Open(ctx, dsn, cat, opt)
	if err != nil {
		return testEngine{}, err
	}
	if err := e.Migrate(ctx); err != nil {
		e.Close()
		return testEngine{}, err
	}
	if err := demo.Load(ctx, e); err != nil {
		e.Close()
		return testEngine{}, err
	}
	return testEngine{Engine: e, clock: clock}, nil
}

// eachSharedEngine runs fn once per backend on one demo database per
// backend, shared by every test that only reads (creating the schema costs
// most of a test's time on PostgreSQL). fn must not write.
func eachSharedEngine(t *testing.T, fn func(t *testing.T, e testEngine)) {
	t.Parallel()
	for _, b := range testBackends(t) {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			e, err := shared.engine(b)
			if err != nil {
				t.Fatal(err)
			}
			fn(t, e)
		})
	}
}

// shared holds the read-only demo databases, closed by TestMain.
var shared = &sharedEngines{byBackend: map[string]*sharedEngine{}}

type sharedEngines struct {
	mu        sync.Mutex
	byBackend map[string]*sharedEngine
}

type sharedEngine struct {
	once  sync.Once
	e     testEngine
	err   error
	close func()
}

func (s *sharedEngines) engine(b testBackend) (testEngine, error) {
	s.mu.Lock()
	se := s.byBackend[b.name]
	if se == nil {
		se = &sharedEngine{}
		s.byBackend[b.name] = se
	}
	s.mu.Unlock()
	se.once.Do(func() {
		var dsn string
		drop := func() error { return nil }
		if b.name == "postgres" {
			if dsn, drop, se.err = newSchema(os.Getenv(postgresEnv)); se.err != nil {
				return
			}
		} else {
			dir, err := os.MkdirTemp("", "sqlengine-shared-")
			if err != nil {
				se.err = err
				return
			}
			dsn = "sqlite:" + filepath.Join(dir, "engine.db")
			drop = func() error { return os.RemoveAll(dir) }
		}
		cat, err := catalog.Builtin()
		if err != nil {
			se.err = err
			return
		}
		se.e, se.err = openDemoEngine(dsn, cat, Options{})
		se.close = func() {
			if se.e.Engine != nil {
				se.e.Close()
			}
			_ = drop()
		}
	})
	return se.e, se.err
}

func (s *sharedEngines) closeAll() {
	for _, se := range s.byBackend {
		if se.close != nil {
			se.close()
		}
	}
}

func TestMain(m *testing.M) {
	code := m.Run()
	shared.closeAll()
	os.Exit(code)
}

// testClock is a clock the tests move by hand.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func newTestClock() *testClock {
	return &testClock{now: time.Date(2025, 6, 2, 8, 0, 0, 0, time.UTC)}
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// Sessions of the demo data.
var (
	demoAPI  = engine.Session{Company: "demo", Sign: "API", ClientID: "test"}
	demo2API = engine.Session{Company: "demo2", Sign: "API", ClientID: "test"}
)

// asJSON is a receipt that renders the record as JSON, the way the HTTP
// layer would, and stores it under claim (zero claim: not stored).
func asJSON(claim engine.Claim) engine.Receipt {
	return engine.Receipt{Claim: claim, Render: func(r engine.Record) (engine.Response, error) {
		body, err := json.Marshal(r)
		return engine.Response{Status: 201, Body: body}, err
	}}
}

// created decodes the record a write with asJSON returned.
func decoded(t *testing.T, resp engine.Response) map[string]any {
	t.Helper()
	var rec map[string]any
	if err := json.Unmarshal(resp.Body, &rec); err != nil {
		t.Fatalf("decode %s: %v", resp.Body, err)
	}
	return rec
}

// input builds an engine.Input from field values.
func input(values map[string]any) engine.Input { return engine.Input{Values: values} }

// count counts rows of a table matching a condition (use ? placeholders).
func count(t *testing.T, e testEngine, table, where string, args ...any) int {
	t.Helper()
	var n int
	query := `SELECT COUNT(*) FROM ` + quote(table)
	if where != "" {
		query += ` WHERE ` + where
	}
	if err := get(context.Background(), e.db, &n, query, args...); err != nil {
		t.Fatalf("count %s: %v", table, err)
	}
	return n
}

// commandError returns err as a CommandError, failing the test otherwise.
func commandError(t *testing.T, err error) *engine.CommandError {
	t.Helper()
	ce, ok := err.(*engine.CommandError)
	if !ok {
		t.Fatalf("want a CommandError, got %T: %v", err, err)
	}
	return ce
}

// zeroClaim stores no response: the write runs without idempotency.
var zeroClaim engine.Claim
