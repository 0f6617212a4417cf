package sqldb

import (
	"context"
	"database/sql"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jmoiron/sqlx"
)

// pool is the connection pool with a cache of prepared statements: the
// engine runs a small set of query texts over and over, and preparing each
// call costs more than running it (measured on SQLite: BenchmarkGetCustomer).
// database/sql prepares a cached statement again on each connection it
// lands on, so a statement stays valid when connections come and go.
type pool struct {
	*sqlx.DB

	mu        sync.Mutex
	stmts     map[string]*sql.Stmt
	preparing map[string]bool // queries prepareLater is preparing
	closed    bool
	// background are prepareLater's goroutines: Close waits for them, so
	// none holds a connection (or the database's files) after it.
	background sync.WaitGroup

	// rebound holds PostgreSQL's text ($1, $2, ...) of each query written
	// with ?: sqlx.Rebind scans and copies the whole text on every call,
	// a fourteenth of the bytes a PostgreSQL write allocated.
	dollar      bool     // PostgreSQL: placeholders are $1, $2, ...
	rebound     sync.Map // query → rebound text
	reboundSize atomic.Int32
}

// maxCachedStatements bounds the cache (and that of rebound texts);
// queries past it run unprepared (and are rebound on each call).
// Query texts vary only with the number of IN placeholders (page sizes).
const maxCachedStatements = 2000

func newPool(db *sqlx.DB) *pool {
	return &pool{DB: db, stmts: map[string]*sql.Stmt{}, preparing: map[string]bool{},
		dollar: sqlx.BindType(db.DriverName()) == sqlx.DOLLAR}
}

// Rebind is sqlx's Rebind, remembered per query text.
func (p *pool) Rebind(query string) string {
	if !p.dollar {
		return query // SQLite takes ? as written
	}
	if text, ok := p.rebound.Load(query); ok {
		return text.(string)
	}
	text := sqlx.Rebind(sqlx.DOLLAR, query)
	if p.reboundSize.Load() < maxCachedStatements {
		if _, loaded := p.rebound.LoadOrStore(query, text); !loaded {
			p.reboundSize.Add(1)
		}
	}
	return text
}

// stmt returns the query's cached statement, preparing it on first use.
// No lock is held while preparing: it waits for a free connection, and a
// write transaction looking up its statements (txn) must never wait on that.
func (p *pool) stmt(ctx context.Context, query string) *sql.Stmt {
	p.mu.Lock()
	s, ok := p.stmts[query]
	full := p.closed || len(p.stmts) >= maxCachedStatements
	p.mu.Unlock()
	if ok || full {
		return s
	}
	s, err := p.DB.PrepareContext(ctx, query)
	if err != nil {
		return nil // let the plain call report the error
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if cached, ok := p.stmts[query]; ok || p.closed {
		s.Close() // prepared meanwhile by another call, or the pool closed
		return cached
	}
	p.stmts[query] = s
	return s
}

// cached returns the query's statement if it is prepared already.
func (p *pool) cached(query string) *sql.Stmt {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stmts[query]
}

// prepareLater prepares a query for the cache in the background.
func (p *pool) prepareLater(query string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.preparing[query] || p.closed || len(p.stmts)+len(p.preparing) >= maxCachedStatements {
		return
	}
	p.preparing[query] = true
	p.background.Add(1)
	go func() {
		defer p.background.Done()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		p.stmt(ctx, query)
		p.mu.Lock()
		delete(p.preparing, query)
		p.mu.Unlock()
	}()
}

// QueryContext runs a cached statement.
func (p *pool) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if s := p.stmt(ctx, query); s != nil {
		return s.QueryContext(ctx, args...)
	}
	return p.DB.QueryContext(ctx, query, args...)
}

// QueryxContext runs a cached statement, scanning with sqlx.
func (p *pool) QueryxContext(ctx context.Context, query string, args ...any) (*sqlx.Rows, error) {
	rows, err := p.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return &sqlx.Rows{Rows: rows, Mapper: p.Mapper}, nil
}

// QueryRowxContext runs a cached statement for one row.
func (p *pool) QueryRowxContext(ctx context.Context, query string, args ...any) *sqlx.Row {
	if s := p.stmt(ctx, query); s != nil {
		return (&sqlx.Stmt{Stmt: s, Mapper: p.Mapper}).QueryRowxContext(ctx, args...)
	}
	return p.DB.QueryRowxContext(ctx, query, args...)
}

// ExecContext runs a cached statement.
func (p *pool) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if s := p.stmt(ctx, query); s != nil {
		return s.ExecContext(ctx, args...)
	}
	return p.DB.ExecContext(ctx, query, args...)
}

// Close closes the cached statements and the pool.
func (p *pool) Close() error {
	p.mu.Lock()
	for _, s := range p.stmts {
		s.Close()
	}
	p.stmts = map[string]*sql.Stmt{}
	p.closed = true
	p.mu.Unlock()
	p.background.Wait()
	return p.DB.Close()
}

// Tx is a write transaction that runs the pool's prepared statements: a
// write runs the same few dozen statements every call, and parsing them
// again in each transaction was a quarter of a task create's CPU (pprof,
// SQLite). database/sql prepares a statement on the transaction's
// connection once and reuses it there.
type Tx struct {
	*sqlx.Tx
	pool     *pool
	Dialect  Dialect
	rollback []func()         // OnRollback
	grouped  bool             // shares its transaction with other writes (group.go)
	conn     *sql.Conn        // PostgreSQL: the transaction's connection, for batches (ReadEach, ExecLater); nil on SQLite
	later    []laterStatement // queued by ExecLater
	laterErr error            // the failure of statements ExecLater queued
}

// statementContext is the context a statement of the transaction runs
// on. In a write group, a deadline that passes while a statement runs
// does not interrupt it: SQLite rolls the whole transaction back when it
// interrupts a write, and with it the group's other writes. The
// statement runs to its end, and the write's next statement, started past
// the deadline, fails before it runs (database/sql checks the context
// first), so the write still ends at its deadline, one statement late.
func (t *Tx) statementContext(ctx context.Context) context.Context {
	if t.grouped && ctx.Err() == nil {
		return context.WithoutCancel(ctx)
	}
	return ctx
}

// OnRollback registers fn to run if the transaction does not commit.
func (t *Tx) OnRollback(fn func()) { t.rollback = append(t.rollback, fn) }

// Rebind is the pool's Rebind: a query's rebound text is remembered.
func (t *Tx) Rebind(query string) string { return t.pool.Rebind(query) }

// stmt is the cached statement bound to the transaction, or nil. A query
// not cached yet runs unprepared this time and is prepared in the
// background: preparing takes a connection of its own, and waiting for one
// while holding the transaction's could starve the pool.
func (t *Tx) stmt(ctx context.Context, query string) *sql.Stmt {
	if s := t.pool.cached(query); s != nil {
		return t.Tx.StmtContext(ctx, s)
	}
	t.pool.prepareLater(query)
	return nil
}

// QueryContext runs a cached statement in the transaction.
func (t *Tx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if err := t.flushBefore(ctx); err != nil {
		return nil, err
	}
	ctx = t.statementContext(ctx)
	if s := t.stmt(ctx, query); s != nil {
		return s.QueryContext(ctx, args...)
	}
	return t.Tx.QueryContext(ctx, query, args...)
}

// QueryxContext runs a cached statement in the transaction, scanning with sqlx.
func (t *Tx) QueryxContext(ctx context.Context, query string, args ...any) (*sqlx.Rows, error) {
	rows, err := t.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return &sqlx.Rows{Rows: rows, Mapper: t.Mapper}, nil
}

// QueryRowxContext runs a cached statement in the transaction for one row.
func (t *Tx) QueryRowxContext(ctx context.Context, query string, args ...any) *sqlx.Row {
	_ = t.flushBefore(ctx) // a failure stays with the transaction: it cannot commit
	ctx = t.statementContext(ctx)
	if s := t.stmt(ctx, query); s != nil {
		return (&sqlx.Stmt{Stmt: s, Mapper: t.Mapper}).QueryRowxContext(ctx, args...)
	}
	return t.Tx.QueryRowxContext(ctx, query, args...)
}

// ExecContext runs a cached statement in the transaction.
func (t *Tx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if len(t.later) > 0 {
		// The statement rides with the queued ones: one round trip.
		res, err := t.flushLater(ctx, &laterStatement{query: query, args: args})
		if err != nil {
			t.laterErr = err
		}
		return res, err
	}
	if t.laterErr != nil {
		return nil, t.laterErr
	}
	ctx = t.statementContext(ctx)
	if s := t.stmt(ctx, query); s != nil {
		return s.ExecContext(ctx, args...)
	}
	return t.Tx.ExecContext(ctx, query, args...)
}
