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
//
// The vacuum leaves the table's emptied pages to its next rows instead of
// truncating them (TRUNCATE false): truncating takes the table's
// exclusive lock, which a queue table every write inserts into is never
// free for long; the vacuum waited for it up to 0.8 s (make bench,
// PostgreSQL), the write that ran it with it.
type Sweeper struct{ upkeep }

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
	s := &Sweeper{}
	s.init(db, `VACUUM (SKIP_LOCKED, TRUNCATE false) `+Quote(table), sweepEvery, func(noted int64) int64 { return noted + sweepEvery })
	return s
}

// Deleted notes n rows deleted from the table by a transaction that
// committed, and vacuums the table when sweepEvery have passed since the
// last vacuum (one at a time: a vacuum due while one runs is left to the
// next call). A vacuum that fails (a table locked, a server going away)
// loses nothing; its error is returned for the caller to ignore or log.
func (s *Sweeper) Deleted(ctx context.Context, n int) error {
	if s == nil {
		return nil
	}
	return s.note(ctx, n)
}

// Analyzer keeps a growing table's statistics current on PostgreSQL.
// PostgreSQL plans a prepared statement once for any parameters (a
// generic plan) after a few runs and keeps that plan until the table's
// statistics change; with autovacuum off or behind, a table analyzed
// while empty (the idempotency keys of a new database) kept a sequential
// scan as its lookup's plan while it grew by every write, 38 ms a lookup
// at 40,000 keys (auto_explain, make bench). An analyzer analyzes its
// table when the rows noted since the process started reach the next of
// a doubling schedule: a few times in a table's life, each replanning the
// statements that read it. The schedule starts at the rows the table
// held when it was last analyzed or vacuumed (reltuples), at least
// 1,024: statistics that already describe 45,000 keys plan lookups by
// the index, and each ANALYZE of that table took 0.7 s of the database's
// CPU, four of them in a new process's first 10,000 writes when the
// schedule started at 1,024 whatever the table held.
type Analyzer struct {
	upkeep
	table string // quoted
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
	a := &Analyzer{}
	a.table = Quote(table)
	a.init(db, `ANALYZE `+a.table, analyzeFirst, func(noted int64) int64 { return 2 * noted })
	return a
}

// Grew notes n rows added to the table and analyzes it when the schedule
// says (one at a time). An ANALYZE that fails loses nothing; its error is
// returned for the caller to ignore or log.
func (a *Analyzer) Grew(ctx context.Context, n int) error {
	if a == nil {
		return nil
	}
	return a.note(ctx, n)
}

// StartFromStatistics moves the first ANALYZE to when the rows noted
// reach the rows the table held when its statistics were taken (its size
// doubled since). A table never analyzed (reltuples -1) or small keeps
// the first mark. For a process's start, once the table exists: an
// analyzer not started this way starts at the first mark.
func (a *Analyzer) StartFromStatistics(ctx context.Context) error {
	if a == nil {
		return nil
	}
	var analyzed float64
	err := a.db.Read(ctx, func(ctx context.Context, q Querier) error {
		return Get(ctx, q, &analyzed, `SELECT reltuples FROM pg_class WHERE oid = to_regclass(?)`, a.table)
	})
	if err == nil && int64(analyzed) > a.due.Load() {
		a.due.Store(int64(analyzed))
	}
	return err
}

// upkeep runs a statement that looks after a table (a VACUUM, an
// ANALYZE) when the rows noted since the process started reach the next
// mark of its schedule, one run at a time: a mark passed while one runs
// is left to the next note.
type upkeep struct {
	db        *DB
	statement string
	then      func(noted int64) int64 // the next mark, from the rows noted when a run starts
	noted     atomic.Int64
	due       atomic.Int64
	running   atomic.Bool
}

func (u *upkeep) init(db *DB, statement string, first int64, then func(noted int64) int64) {
	u.db, u.statement, u.then = db, statement, then
	u.due.Store(first)
}

// note counts n rows and runs the statement when a mark is reached.
func (u *upkeep) note(ctx context.Context, n int) error {
	if n <= 0 || u.noted.Add(int64(n)) < u.due.Load() || !u.running.CompareAndSwap(false, true) {
		return nil
	}
	defer u.running.Store(false)
	u.due.Store(u.then(u.noted.Load()))
	_, err := u.db.pool.ExecContext(context.WithoutCancel(ctx), u.statement)
	return err
}
