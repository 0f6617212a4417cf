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
