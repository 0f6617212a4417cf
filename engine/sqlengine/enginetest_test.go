package sqlengine

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"fieldapi/catalog"
	"fieldapi/engine"
	"fieldapi/engine/dataset"
	"fieldapi/engine/enginetest"
)

// TestConformance runs the port's conformance suite against the reference
// engine, on SQLite and (with FIELDAPI_TEST_POSTGRES) PostgreSQL.
func TestConformance(t *testing.T) {
	t.Parallel()
	for _, b := range testBackends(t) {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			enginetest.Run(t, func(t *testing.T) enginetest.Harness { return conformanceHarness(t, b) })
		})
	}
}

// The conformance suite's two companies; API may do everything, READER only read.
var (
	suiteCompany = engine.Session{Company: "suite1", Sign: "API", ClientID: "enginetest"}
	suiteOther   = engine.Session{Company: "suite2", Sign: "API", ClientID: "enginetest"}
	suiteReader  = engine.Session{Company: "suite1", Sign: "READER", ClientID: "enginetest"}
)

// conformanceHarness opens a fresh, empty database with the builtin
// catalog and imports the suite's companies and signatures (nothing else),
// on the real clock.
func conformanceHarness(t *testing.T, b testBackend) enginetest.Harness {
	t.Helper()
	ctx := context.Background()
	cat, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	dsn := b.dsn(t)
	open := func(dsn string, opt Options) *Engine {
		t.Helper()
		e, err := Open(ctx, dsn, cat, opt)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		return e
	}
	e := open(dsn, Options{})
	if err := e.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	var reads []string
	for _, r := range cat.Registers {
		reads = append(reads, r.ReadScope)
	}
	user := func(s engine.Session, permissions string) dataset.Record {
		return dataset.Record{Values: map[string]any{"Sign": s.Sign, "Name": s.Sign, "Status": "Active"}, Permissions: permissions}
	}
	company := func(session engine.Session, name string, users ...dataset.Record) dataset.Company {
		return dataset.Company{ID: session.Company, Name: name, Batches: []dataset.Batch{
			{Name: "enginetest users", Registers: []dataset.Register{{Name: "users", Records: users}}},
		}}
	}
	for _, c := range []dataset.Company{
		company(suiteCompany, "Suite One", user(suiteCompany, "*"), user(suiteReader, strings.Join(reads, ","))),
		company(suiteOther, "Suite Two", user(suiteOther, "*")),
	} {
		if err := e.Import(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	return enginetest.Harness{
		Engine: e, Catalog: cat,
		Company: suiteCompany, Other: suiteOther, ReadOnly: suiteReader,
		Fault: func(t *testing.T, kind error) (engine.Engine, func()) {
			return conformanceFault(t, e, dsn, open, kind)
		},
	}
}

// conformanceFault brings the database into a fault for a second engine
// on the same data: a transaction that holds the customers table makes
// writes wait, past the busy timeout (busy) or the statement timeout
// (timeout); a PostgreSQL address nobody answers is unreachable. An
// embedded SQLite file cannot be unreachable.
func conformanceFault(t *testing.T, e *Engine, dsn string, open func(string, Options) *Engine, kind error) (engine.Engine, func()) {
	ctx := context.Background()
	pg := e.dialect.postgres
	var faulty *Engine
	switch {
	case errors.Is(kind, engine.ErrUnreachable) && pg:
		return open("postgres://postgres@127.0.0.1:1/test?sslmode=disable&connect_timeout=2", Options{}), func() {}
	case errors.Is(kind, engine.ErrUnreachable):
		return nil, nil
	case errors.Is(kind, engine.ErrBusy) && pg:
		faulty = open(dsn+"&lock_timeout=100", Options{}) // past it: lock_not_available
	case errors.Is(kind, engine.ErrBusy):
		faulty = open(dsn, Options{BusyTimeout: 100 * time.Millisecond})
	case errors.Is(kind, engine.ErrTimeout):
		faulty = open(dsn, Options{StatementTimeout: 200 * time.Millisecond})
	default:
		return nil, nil
	}
	tx, err := e.db.BeginTxx(ctx, nil) // SQLite: BEGIN IMMEDIATE takes the write lock
	if err != nil {
		t.Fatal(err)
	}
	if pg {
		if _, err := tx.ExecContext(ctx, `LOCK TABLE "customers" IN ACCESS EXCLUSIVE MODE`); err != nil {
			t.Fatal(err)
		}
	}
	return faulty, func() { _ = tx.Rollback() }
}
