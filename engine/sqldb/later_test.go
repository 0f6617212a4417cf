package sqldb

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestExecLater: statements ExecLater queued are written by the commit,
// seen by the transaction's reads after them, run before a statement
// after them (which answers for itself), and their failure, as their
// caller names it, fails the write with nothing of it written and its
// OnRollback functions run, even when the transaction read on after it.
func TestExecLater(t *testing.T) {
	onScratchTables(t, "later", func(t *testing.T, _ backend, db *DB, table string) {
		ctx := context.Background()
		write := func(fn func(ctx context.Context, tx *Tx) error) (rolledBack bool, err error) {
			err = db.Write(ctx, func(ctx context.Context, tx *Tx) error {
				tx.OnRollback(func() { rolledBack = true })
				return fn(ctx, tx)
			})
			return rolledBack, err
		}
		add := func(ctx context.Context, tx *Tx, x int) error {
			return tx.ExecLater(ctx, nil, `INSERT INTO `+table+` ("x") VALUES (?)`, x)
		}
		stored := func() int { t.Helper(); return rowCount(t, db, table) }
		if _, err := write(func(ctx context.Context, tx *Tx) error {
			if err := errors.Join(add(ctx, tx, 1), add(ctx, tx, 2)); err != nil {
				return err
			}
			var n int
			if err := Get(ctx, tx, &n, `SELECT COUNT(*) FROM `+table); err != nil || n != 2 {
				t.Errorf("rows read after two queued inserts: %d, %v; want 2", n, err)
			}
			if err := add(ctx, tx, 3); err != nil {
				return err
			}
			if n, err := ExecAffected(ctx, tx, `UPDATE `+table+` SET "x" = "x" WHERE "x" >= ?`, 2); err != nil || n != 2 {
				t.Errorf("rows an UPDATE after a queued insert changed: %d, %v; want 2", n, err)
			}
			return add(ctx, tx, 4)
		}); err != nil {
			t.Fatal(err)
		}
		if n := stored(); n != 4 {
			t.Fatalf("rows after the commit: %d, want 4", n)
		}

		refused := errors.New("refused")
		failures := map[string]func(ctx context.Context, tx *Tx) error{
			"a queued insert fails": func(ctx context.Context, tx *Tx) error {
				return errors.Join(add(ctx, tx, 5), add(ctx, tx, 1))
			},
			"a queued insert fails and the transaction reads on": func(ctx context.Context, tx *Tx) error {
				if err := errors.Join(add(ctx, tx, 5), add(ctx, tx, 1)); err != nil {
					return err
				}
				var n int
				_ = Get(ctx, tx, &n, `SELECT COUNT(*) FROM `+table)
				return nil
			},
			"a queued insert fails as its caller names it": func(ctx context.Context, tx *Tx) error {
				return errors.Join(add(ctx, tx, 6), tx.ExecLater(ctx, func(err error) error { return fmt.Errorf("%w: %w", refused, err) },
					`INSERT INTO `+table+` ("x") VALUES (?)`, 1))
			},
		}
		for name, fn := range failures {
			rolledBack, err := write(fn)
			if err == nil || !rolledBack {
				t.Errorf("%s: Write answered %v, OnRollback ran: %v; want an error and a rollback", name, err, rolledBack)
			}
			if name == "a queued insert fails as its caller names it" && !errors.Is(err, refused) {
				t.Errorf("%s: Write answered %v, want the caller's error", name, err)
			}
			if n := stored(); n != 4 {
				t.Errorf("%s: rows after it: %d, want the 4 before it", name, n)
			}
		}
	})
}

// rowCount is how many rows table holds, committed.
func rowCount(t *testing.T, db *DB, table string) (n int) {
	t.Helper()
	if err := db.Read(context.Background(), func(ctx context.Context, q Querier) error {
		return Get(ctx, q, &n, `SELECT COUNT(*) FROM `+table)
	}); err != nil {
		t.Fatal(err)
	}
	return n
}

// onScratchTables runs test on each backend with a scratch table of its
// own (scratchTable).
func onScratchTables(t *testing.T, prefix string, test func(t *testing.T, b backend, db *DB, table string)) {
	for _, b := range backends(t) {
		t.Run(b.name, func(t *testing.T) {
			db := open(t, b.dsn, Options{})
			test(t, b, db, scratchTable(t, db, prefix))
		})
	}
}

// scratchTable creates a table of the test, named after prefix, with one
// unique INTEGER column "x", and drops it when the test ends.
func scratchTable(t *testing.T, db *DB, prefix string) string {
	t.Helper()
	ctx := context.Background()
	table := Quote(fmt.Sprint(prefix, "_", time.Now().UnixNano()))
	if err := db.Write(ctx, func(ctx context.Context, tx *Tx) error {
		_, err := Exec(ctx, tx, `CREATE TABLE `+table+` ("x" INTEGER UNIQUE)`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = db.Write(ctx, func(ctx context.Context, tx *Tx) error { _, err := Exec(ctx, tx, `DROP TABLE `+table); return err })
	})
	return table
}

// TestMergeRows: queued INSERTs of one head go as one statement of all
// their rows, in the place of the first, the other statements keeping
// their order; a statement past maxMergedArgs values starts another.
func TestMergeRows(t *testing.T) {
	row := func(head string, args ...any) laterStatement {
		return laterStatement{query: head + "(?)", args: args, rows: &insertRows{head: head, row: "(?)", n: len(args)}}
	}
	plain := func(query string) laterStatement { return laterStatement{query: query} }
	a, b := "INSERT INTO a (x) VALUES ", "INSERT INTO b (x) VALUES "
	got := mergeRows([]laterStatement{plain("BEGIN"), row(a, 1), row(b, 2), row(a, 3, 4), plain("UPDATE c"), row(b, 5)})
	var queries []string
	for _, s := range got {
		queries = append(queries, s.query)
	}
	want := []string{"BEGIN", a + "(?), (?), (?)", b + "(?), (?)", "UPDATE c"}
	if !slices.Equal(queries, want) {
		t.Fatalf("merged: %q\nwant %q", queries, want)
	}
	if !slices.Equal(got[1].args, []any{1, 3, 4}) || !slices.Equal(got[2].args, []any{2, 5}) {
		t.Errorf("merged args: %v and %v, want [1 3 4] and [2 5]", got[1].args, got[2].args)
	}

	many := make([]any, maxMergedArgs-1)
	got = mergeRows([]laterStatement{row(a, many...), row(a, 1, 2), row(a, 3)})
	if len(got) != 2 || len(got[0].args) != maxMergedArgs-1 || !slices.Equal(got[1].args, []any{1, 2, 3}) {
		t.Errorf("past %d values: %d statements of %d and %v values, want %d, then [1 2 3]", maxMergedArgs, len(got), len(got[0].args), got[len(got)-1].args, maxMergedArgs-1)
	}
}

// TestQueuedRowsInChunks: INSERTs of rows queued apart (ExecLaterRows)
// are all written, each row once, before the statement after them. On
// SQLite they go in chunks of a power of two rows (at most maxChunkRows)
// whose texts the pool prepares, so the next batch of another size
// parses nothing new: 100 + 37 + 1 rows are chunks of 64, 64, 8 and 2.
func TestQueuedRowsInChunks(t *testing.T) {
	onScratchTables(t, "chunks", func(t *testing.T, b backend, db *DB, table string) {
		ctx := context.Background()
		head := `INSERT INTO ` + table + ` ("x") VALUES `
		next := 0
		queue := func(ctx context.Context, tx *Tx, n int) error {
			args := make([]any, n)
			for i := range args {
				args[i], next = next, next+1
			}
			return tx.ExecLaterRows(ctx, nil, head, "(?)", n, args)
		}
		if err := db.Write(ctx, func(ctx context.Context, tx *Tx) error {
			if err := errors.Join(queue(ctx, tx, 100), queue(ctx, tx, 37), queue(ctx, tx, 1)); err != nil {
				return err
			}
			var n, sum int
			if err := tx.QueryRowxContext(ctx, `SELECT COUNT(*), SUM("x") FROM `+table).Scan(&n, &sum); err != nil || n != 138 || sum != 137*138/2 {
				t.Errorf("rows read after 138 queued: %d of sum %d (%v); want 138 of sum %d", n, sum, err, 137*138/2)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if b.name != "sqlite" {
			return
		}
		db.pool.background.Wait() // the chunks' texts are prepared beside the write
		var chunks []int
		for query := range db.pool.stmts {
			if rows, ok := strings.CutPrefix(query, head); ok {
				chunks = append(chunks, strings.Count(rows, "(?)"))
			}
		}
		slices.Sort(chunks)
		if !slices.Equal(chunks, []int{2, 8, 64}) {
			t.Errorf("statements prepared for the rows, by rows: %v; want [2 8 64]", chunks)
		}
	})
}

// TestRowsSentAhead: rows queued past sendAheadValues values, or fewer
// when SendQueued asks, are sent at once (to PostgreSQL; on SQLite, to a
// goroutine of their own), and whatever was queued, sent or not, is
// written by the commit and read by the transaction before its next
// statement. A row sent ahead
// that the server refuses fails the write, not the call that queued it:
// nothing is written, and the connection serves the next write. A write
// that fails with rows sent ahead leaves nothing either.
func TestRowsSentAhead(t *testing.T) {
	onScratchTables(t, "ahead", func(t *testing.T, b backend, db *DB, table string) {
		ctx := context.Background()
		head := `INSERT INTO ` + table + ` ("x") VALUES `
		queue := func(ctx context.Context, tx *Tx, from, n int) error {
			args := make([]any, n)
			for i := range args {
				args[i] = from + i
			}
			return tx.ExecLaterRows(ctx, nil, head, "(?)", n, args)
		}
		// sent checks that what was queued went ahead, after what it says.
		sent := func(tx *Tx, after string) {
			t.Helper()
			if tx.ahead == nil || len(tx.later) > 0 {
				t.Errorf("after %s: sent ahead %v, still queued %d; want sent, none queued", after, tx.ahead != nil, len(tx.later))
			}
		}
		stored := func() int { t.Helper(); return rowCount(t, db, table) }
		if err := db.Write(ctx, func(ctx context.Context, tx *Tx) error {
			if err := queue(ctx, tx, 0, sendAheadValues); err != nil {
				return err
			}
			sent(tx, fmt.Sprintf("%d values queued", sendAheadValues))
			if err := queue(ctx, tx, sendAheadValues, 10); err != nil {
				return err
			}
			tx.SendQueued(ctx)
			sent(tx, "SendQueued with ten rows queued")
			var n int
			if err := Get(ctx, tx, &n, `SELECT COUNT(*) FROM `+table); err != nil || n != sendAheadValues+10 {
				t.Errorf("rows read in the transaction: %d, %v; want %d", n, err, sendAheadValues+10)
			}
			return queue(ctx, tx, sendAheadValues+10, 1)
		}); err != nil {
			t.Fatal(err)
		}
		want := sendAheadValues + 11
		if n := stored(); n != want {
			t.Fatalf("rows after the commit: %d, want %d", n, want)
		}

		refused := errors.New("refused")
		failures := map[string]func(ctx context.Context, tx *Tx) error{
			"a row sent ahead is refused": func(ctx context.Context, tx *Tx) error {
				// x 0 is stored: the UNIQUE column refuses it again.
				if err := queue(ctx, tx, -sendAheadValues+1, sendAheadValues); err != nil {
					t.Errorf("the call that queued a refused row: %v, want nil", err)
				}
				sent(tx, fmt.Sprintf("%d values queued", sendAheadValues))
				return queue(ctx, tx, -sendAheadValues-10, 10)
			},
			"a row sent ahead is refused and the transaction reads on": func(ctx context.Context, tx *Tx) error {
				_ = queue(ctx, tx, -sendAheadValues+1, sendAheadValues)
				var n int
				_ = Get(ctx, tx, &n, `SELECT COUNT(*) FROM `+table)
				return nil
			},
			"the write fails after sending ahead": func(ctx context.Context, tx *Tx) error {
				if err := queue(ctx, tx, -sendAheadValues, sendAheadValues); err != nil {
					return err
				}
				sent(tx, fmt.Sprintf("%d values queued", sendAheadValues))
				return refused
			},
		}
		for name, fn := range failures {
			rolledBack := false
			err := db.Write(ctx, func(ctx context.Context, tx *Tx) error {
				tx.OnRollback(func() { rolledBack = true })
				return fn(ctx, tx)
			})
			if !errors.As(err, new(wroteNothing)) || !rolledBack {
				t.Errorf("%s: Write answered %v, OnRollback ran: %v; want nothing written and a rollback", name, err, rolledBack)
			}
			if n := stored(); n != want {
				t.Errorf("%s: rows after it: %d, want the %d before it", name, n, want)
			}
		}
	})
}
