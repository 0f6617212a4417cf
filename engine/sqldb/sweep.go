package sqldb

import (
	"context"
	"sync/atomic"
)

// Sweeper keeps a queue table small on PostgreSQL. Rows pass through a
// queue table: writes insert them and a merge or a sequencer deletes them
// soon after (record_count_deltas, event_outbox), and the statement that
// empties it reads every page of the table. PostgreSQL keeps a deleted
// row in its page until the table is vacuumed; with autovacuum off or
// behind (it visits a table at most once a minute by default), a table of
// a few hundred live rows grew to 45 MB and each merge read all of it,
// 22 ms, eight times a second under 64 writers. A sweeper vacuums its
// table itself once sweepEvery rows have been deleted from it since the
// last time. SQLite needs none: pages a table empties leave its B-tree.
type Sweeper struct {
	db      *DB
	table   string
	deleted atomic.Int64
	running atomic.Bool
}

// sweepEvery is how many deleted rows a sweeper lets pass between
// vacuums: a few hundred kilobytes of dead rows, a vacuum of a few
// milliseconds.
const sweepEvery = 4096

// Sweeper returns the sweeper of a queue table: nil on SQLite, whose
// Deleted does nothing.
func (db *DB) Sweeper(table string) *Sweeper {
	if !db.dialect.Postgres() {
		return nil
	}
	return &Sweeper{db: db, table: table}
}

// Deleted notes n rows deleted from the table by a transaction that
// committed, and vacuums the table when sweepEvery have passed since the
// last vacuum (one at a time: a vacuum due while one runs is left to the
// next call). A vacuum that fails (a table locked, a server going away)
// loses nothing; its error is returned for the caller to ignore or log.
func (s *Sweeper) Deleted(ctx context.Context, n int) error {
	if s == nil || n <= 0 || s.deleted.Add(int64(n)) < sweepEvery || !s.running.CompareAndSwap(false, true) {
		return nil
	}
	defer s.running.Store(false)
	s.deleted.Store(0)
	_, err := s.db.pool.ExecContext(context.WithoutCancel(ctx), `VACUUM (SKIP_LOCKED) `+Quote(s.table))
	return err
}

// Analyzer keeps a growing table's statistics current on PostgreSQL.
// PostgreSQL plans a prepared statement once for any parameters (a
// generic plan) after a few runs and keeps that plan until the table's
// statistics change; with autovacuum off or behind, a table analyzed
// while empty (the idempotency keys of a new database) kept a sequential
// scan as its lookup's plan while it grew by every write, 38 ms a lookup
// at 40,000 keys (auto_explain, make bench). An analyzer analyzes its
// table when the rows noted since the process started reach the next of
// a doubling schedule (1,024, 2,048, ...): a few times in a table's life,
// each replanning the statements that read it.
type Analyzer struct {
	db      *DB
	table   string
	noted   atomic.Int64
	next    atomic.Int64
	running atomic.Bool
}

// analyzeFirst is the rows an analyzer notes before its first ANALYZE.
const analyzeFirst = 1024

// Analyzer returns the analyzer of a growing table: nil on SQLite, whose
// Grew does nothing (SQLite plans each statement when it is prepared, by
// the statistics of that moment, and the store's reads by key use their
// index whatever the statistics say).
func (db *DB) Analyzer(table string) *Analyzer {
	if !db.dialect.Postgres() {
		return nil
	}
	a := &Analyzer{db: db, table: table}
	a.next.Store(analyzeFirst)
	return a
}

// Grew notes n rows added to the table and analyzes it when the schedule
// says (one at a time). An ANALYZE that fails loses nothing; its error is
// returned for the caller to ignore or log.
func (a *Analyzer) Grew(ctx context.Context, n int) error {
	if a == nil || n <= 0 || a.noted.Add(int64(n)) < a.next.Load() || !a.running.CompareAndSwap(false, true) {
		return nil
	}
	defer a.running.Store(false)
	a.next.Store(2 * a.next.Load())
	_, err := a.db.pool.ExecContext(context.WithoutCancel(ctx), `ANALYZE `+Quote(a.table))
	return err
}
