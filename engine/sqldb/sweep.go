package sqldb

import (
	"context"
	"math"
	"sync"
	"sync/atomic"
)

// Sweeper keeps a queue table small on PostgreSQL (record_count_deltas,
// event_outbox: writes insert rows, a merge or a sequencer deletes them
// soon after, reading every page of the table). PostgreSQL keeps a
// deleted row in its page until a vacuum; with autovacuum off or behind
// (once a minute at most), a table of a few hundred live rows grew to
// 45 MB and each merge took 22 ms, eight times a second under 64 writers.
// A sweeper vacuums its table once sweepEvery rows were deleted since the
// last time. SQLite needs none: pages a table empties leave its B-tree.
//
// TRUNCATE false: truncating takes the table's exclusive lock, which a
// queue table every write inserts into is seldom free (the vacuum waited
// up to 0.8 s for it).
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
	s := &Sweeper{upkeep{db: db, statement: `VACUUM (SKIP_LOCKED, TRUNCATE false) ` + Quote(table),
		then: func(noted int64) int64 { return noted + sweepEvery }}}
	s.due.Store(sweepEvery)
	return s
}

// Deleted notes n rows deleted from the table by a transaction that
// committed; the table is vacuumed beside the calls when sweepEvery have
// passed since the last vacuum (one at a time: a vacuum due while one
// runs is left to the next note). A vacuum that fails (a table locked, a
// server going away) loses nothing.
func (s *Sweeper) Deleted(n int) {
	if s != nil {
		s.note(n)
	}
}

// Analyzer keeps a growing table's statistics current on PostgreSQL,
// which keeps a prepared statement's generic plan until they change: with
// autovacuum off or behind, a table analyzed while empty (a new
// database's idempotency keys) kept a sequential scan as its lookup's
// plan, 38 ms a lookup at 40,000 keys. An analyzer analyzes its table
// when the rows noted since the process started reach the next of a
// doubling schedule: a few times in a table's life. The schedule starts
// at the rows the table held when last analyzed (reltuples), at least
// 1,024: started at 1,024 whatever the table held, a new process spent
// three or four ANALYZEs of 0.7 to 1.5 s each on statistics that already
// planned lookups by the index.
type Analyzer struct {
	upkeep
	table   string // quoted
	started atomic.Bool
}

// analyzeFirst is the rows an analyzer notes before its first ANALYZE.
const analyzeFirst = 1024

// Analyzer returns the analyzer of a growing table: nil on SQLite, whose
// Grew does nothing (SQLite plans a statement when it is prepared, and
// the reads by key use their index whatever the statistics say).
func (db *DB) Analyzer(table string) *Analyzer {
	if !db.dialect.Postgres() {
		return nil
	}
	a := &Analyzer{upkeep: upkeep{db: db, statement: `ANALYZE ` + Quote(table),
		then: func(noted int64) int64 { return 2 * noted }}, table: Quote(table)}
	a.due.Store(math.MaxInt64) // no mark until the first note has read where the schedule starts
	return a
}

// Grew notes n rows added to the table; it is analyzed beside the calls
// when the schedule says (one at a time). The first note reads where the
// schedule starts, beside the calls too. An ANALYZE that fails loses
// nothing but the plan.
func (a *Analyzer) Grew(n int) {
	if a == nil {
		return
	}
	if !a.started.Load() && a.started.CompareAndSwap(false, true) {
		a.db.upkeep.start(a.startFromStatistics)
	}
	a.note(n)
}

// startFromStatistics sets the first mark: the rows the table held when
// its statistics were taken (its size doubled since), analyzeFirst for a
// table never analyzed (reltuples -1), small, or whose statistics cannot
// be read.
func (a *Analyzer) startFromStatistics(ctx context.Context) {
	var analyzed float64
	err := a.db.Read(ctx, func(ctx context.Context, q Querier) error {
		return Get(ctx, q, &analyzed, `SELECT reltuples FROM pg_class WHERE oid = to_regclass(?)`, a.table)
	})
	if err != nil || analyzed < analyzeFirst {
		analyzed = analyzeFirst
	}
	a.due.Store(int64(analyzed))
	a.note(0) // the rows noted meanwhile may have passed it
}

// upkeep runs a statement that looks after a table (a VACUUM, an
// ANALYZE) when the rows noted since the process started reach the next
// mark of its schedule. It runs beside the calls, never in the one that
// noted the rows, which may hold the pool's last connection (a pool of
// one waited for itself). One runs at a time: a mark passed while one
// runs is left to the next note.
type upkeep struct {
	db        *DB
	statement string
	then      func(noted int64) int64 // the next mark, from the rows noted when a run starts
	noted     atomic.Int64
	due       atomic.Int64
	running   atomic.Bool
}

// note counts n rows and starts the statement when a mark is reached.
func (u *upkeep) note(n int) {
	if n < 0 || u.noted.Add(int64(n)) < u.due.Load() || !u.running.CompareAndSwap(false, true) {
		return
	}
	u.due.Store(u.then(u.noted.Load()))
	if !u.db.upkeep.start(func(ctx context.Context) {
		defer u.running.Store(false)
		if _, err := u.db.pool.ExecContext(ctx, u.statement); err != nil && ctx.Err() == nil {
			u.db.opt.Logger.Warn("database upkeep failed", "statement", u.statement, "err", err)
		}
	}) {
		u.running.Store(false)
	}
}

// background runs a database's upkeep beside its calls, each job in a
// goroutine of its own; close ends the jobs' statements and waits for
// them.
type background struct {
	mu     sync.Mutex
	closed bool
	ctx    context.Context // the jobs', ended by close
	cancel context.CancelFunc
	jobs   sync.WaitGroup
}

// start runs job in the background, unless the database is closing.
func (b *background) start(job func(ctx context.Context)) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return false
	}
	if b.ctx == nil {
		b.ctx, b.cancel = context.WithCancel(context.Background())
	}
	ctx := b.ctx
	b.jobs.Go(func() { job(ctx) })
	return true
}

// close starts no job any more, ends the statements of those running and
// waits for them.
func (b *background) close() {
	b.mu.Lock()
	b.closed = true
	if b.cancel != nil {
		b.cancel()
	}
	b.mu.Unlock()
	b.jobs.Wait()
}

// wait waits for the jobs running (tests).
func (b *background) wait() { b.jobs.Wait() }
