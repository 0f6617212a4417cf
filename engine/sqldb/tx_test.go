package sqldb

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"
)

// TestFailedWritesLeaveTheConnectionIdle: on PostgreSQL a write's BEGIN
// and COMMIT ride with its statements, on a connection it holds outside
// database/sql's transactions. However a write fails (its function's
// error before or after statements went, a failed statement its function
// went on past, a queued statement failing with the COMMIT, a panic),
// nothing of it is written and the next write, on the pool's one
// connection, runs in a transaction of its own and commits. The write's
// ROLLBACK keeps the connection; a panic skips it, and pgx's driver
// replaces the connection instead.
func TestFailedWritesLeaveTheConnectionIdle(t *testing.T) {
	dsn := os.Getenv(postgresEnv)
	if dsn == "" {
		t.Skipf("set %s: on SQLite a write is database/sql's transaction", postgresEnv)
	}
	db := open(t, dsn, Options{MaxOpenConns: 1})
	ctx := context.Background()
	table := scratchTable(t, db, "idle")
	// backend is the server process of the pool's one connection: the
	// same after a failed write whose ROLLBACK kept the connection.
	backend := func() (pid int) {
		t.Helper()
		if err := db.Read(ctx, func(ctx context.Context, q Querier) error {
			return Get(ctx, q, &pid, `SELECT pg_backend_pid()`)
		}); err != nil {
			t.Fatal(err)
		}
		return pid
	}
	insert := func(ctx context.Context, tx *Tx, x int) error {
		_, err := Exec(ctx, tx, `INSERT INTO `+table+` ("x") VALUES (?)`, x)
		return err
	}
	stored := func() (xs []int) {
		t.Helper()
		if err := db.Read(ctx, func(ctx context.Context, q Querier) error {
			return Select(ctx, q, &xs, `SELECT "x" FROM `+table+` ORDER BY "x"`)
		}); err != nil {
			t.Fatal(err)
		}
		return xs
	}
	refused := errors.New("refused")
	failures := []struct {
		name     string
		fn       func(ctx context.Context, tx *Tx) error
		dropConn bool // the write ends without its ROLLBACK: pgx's driver drops the connection
	}{
		{"refused before any statement", func(ctx context.Context, tx *Tx) error { return refused }, false},
		{"refused after a statement", func(ctx context.Context, tx *Tx) error {
			if err := insert(ctx, tx, 100); err != nil {
				return err
			}
			return refused
		}, false},
		{"a failed statement gone on past", func(ctx context.Context, tx *Tx) error {
			_ = insert(ctx, tx, 101)
			_ = insert(ctx, tx, 1) // a duplicate: the transaction is aborted
			return nil
		}, false},
		{"a queued statement failing with the COMMIT", func(ctx context.Context, tx *Tx) error {
			return errors.Join(tx.ExecLater(ctx, nil, `INSERT INTO `+table+` ("x") VALUES (?)`, 102),
				tx.ExecLater(ctx, nil, `INSERT INTO `+table+` ("x") VALUES (?)`, 1))
		}, false},
		{"a panic after a statement", func(ctx context.Context, tx *Tx) error {
			if err := insert(ctx, tx, 103); err != nil {
				return err
			}
			panic("write panics")
		}, true},
	}
	if err := db.Write(ctx, func(ctx context.Context, tx *Tx) error { return insert(ctx, tx, 1) }); err != nil {
		t.Fatal(err)
	}
	want := []int{1}
	for i, f := range failures {
		before := backend()
		err := func() (err error) {
			defer func() {
				if p := recover(); p != nil {
					err = fmt.Errorf("panic: %v", p)
				}
			}()
			return db.Write(ctx, f.fn)
		}()
		if err == nil {
			t.Errorf("%s: the write succeeded", f.name)
		}
		if got := stored(); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%s: stored %v, want %v: the failed write left rows", f.name, got, want)
		}
		if kept := backend() == before; kept == f.dropConn {
			t.Errorf("%s: the connection was kept: %v; want %v", f.name, kept, !f.dropConn)
		}
		next := 2 + i
		if err := db.Write(ctx, func(ctx context.Context, tx *Tx) error { return insert(ctx, tx, next) }); err != nil {
			t.Fatalf("the write after %q: %v", f.name, err)
		}
		// Rolled back, it would show a connection left inside a transaction.
		if err := db.Write(ctx, func(ctx context.Context, tx *Tx) error { return refused }); !errors.Is(err, refused) {
			t.Fatalf("a refused write after %q: %v", f.name, err)
		}
		if want = append(want, next); fmt.Sprint(stored()) != fmt.Sprint(want) {
			t.Fatalf("after %q and a write of %d: stored %v, want %v", f.name, next, stored(), want)
		}
	}
}
