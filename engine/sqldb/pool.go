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
	p.background.Go(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		p.stmt(ctx, query)
		p.mu.Lock()
		delete(p.preparing, query)
		p.mu.Unlock()
	})
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
	return p.scanning(p.QueryContext(ctx, query, args...))
}

// scanning is rows that sqlx scans with the pool's mapper.
func (p *pool) scanning(rows *sql.Rows, err error) (*sqlx.Rows, error) {
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
