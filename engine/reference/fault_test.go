package reference_test

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite" // driver "sqlite", for the lock a fault holds

	"fieldapi/catalog"
	"fieldapi/engine"
	"fieldapi/engine/enginetest"
	"fieldapi/engine/reference"
)

// unreachablePostgres is a PostgreSQL address nobody answers.
const unreachablePostgres = "postgres://postgres@127.0.0.1:1/test?sslmode=disable&connect_timeout=2"

// faults is the suite's Harness.Fault for an engine of cat on dsn: a
// second engine on the same database, with a short busy timeout (busy)
// or statement timeout (timeout), called while a transaction of its own
// holds what a write of a register needs; a PostgreSQL address nobody
// answers (unreachable). An embedded SQLite file cannot be unreachable,
// and the memory storage has no faults to suffer.
func faults(dsn string, cat *catalog.Catalog, clock *enginetest.Clock) func(t *testing.T, kind error) (engine.Engine, func()) {
	return func(t *testing.T, kind error) (engine.Engine, func()) {
		pg := isPostgres(dsn)
		var faulty *reference.Engine
		switch {
		case dsn == reference.MemoryDSN:
			return nil, nil
		case errors.Is(kind, engine.ErrUnreachable) && pg:
			return openEngine(t, unreachablePostgres, cat, reference.Options{Now: clock.Now}), func() {}
		case errors.Is(kind, engine.ErrUnreachable):
			return nil, nil
		case errors.Is(kind, engine.ErrBusy) && pg:
			faulty = openEngine(t, dsn+"&lock_timeout=100", cat, reference.Options{Now: clock.Now}) // past it: lock_not_available
		case errors.Is(kind, engine.ErrBusy):
			faulty = openEngine(t, dsn, cat, reference.Options{Now: clock.Now, BusyTimeout: 100 * time.Millisecond})
		case errors.Is(kind, engine.ErrTimeout):
			faulty = openEngine(t, dsn, cat, reference.Options{Now: clock.Now, StatementTimeout: 200 * time.Millisecond})
		default:
			return nil, nil
		}
		return faulty, holdWriteLock(t, dsn, cat)
	}
}

func isPostgres(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// openEngine opens an engine on a database that exists, closed when the
// test ends.
func openEngine(t *testing.T, dsn string, cat *catalog.Catalog, opt reference.Options) *reference.Engine {
	t.Helper()
	e, err := reference.Open(context.Background(), dsn, cat, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// rawDB opens the database of a DSN with database/sql directly, past the
// engine: "sqlite:PATH" or a PostgreSQL URL; one connection, closed when
// the test ends.
func rawDB(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	driver, source := "sqlite", strings.TrimPrefix(dsn, "sqlite:")
	if isPostgres(dsn) {
		driver, source = "pgx", dsn
	}
	db, err := sql.Open(driver, source)
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db
}

// holdWriteLock begins a transaction on a connection of its own that holds
// what a write of the catalog's registers needs until the returned
// function ends it: SQLite's write lock (BEGIN IMMEDIATE), or on
// PostgreSQL an exclusive lock on every register's table but the users
// (so the signature's permissions still read, and the write itself waits).
func holdWriteLock(t *testing.T, dsn string, cat *catalog.Catalog) func() {
	t.Helper()
	ctx := context.Background()
	conn, err := rawDB(t, dsn).Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	lock := []string{`BEGIN IMMEDIATE`}
	if isPostgres(dsn) {
		var tables []string
		for _, r := range cat.Registers {
			if r.Name != "users" {
				tables = append(tables, `"`+r.Name+`"`)
			}
		}
		lock = []string{`BEGIN`, `LOCK TABLE ` + strings.Join(tables, ", ") + ` IN ACCESS EXCLUSIVE MODE`}
	}
	for _, stmt := range lock {
		if _, err := conn.ExecContext(ctx, stmt); err != nil {
			conn.Close()
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	return func() {
		if _, err := conn.ExecContext(ctx, `ROLLBACK`); err != nil {
			t.Errorf("ending the lock: %v", err)
		}
		conn.Close()
	}
}
