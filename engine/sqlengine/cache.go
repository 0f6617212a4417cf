package sqlengine

import (
	"context"
	"database/sql"
	"sync"
	"time"

	"github.com/jmoiron/sqlx"
	"golang.org/x/sync/singleflight"
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
}

// maxCachedStatements bounds the cache; queries past it run unprepared.
// Query texts vary only with the number of IN placeholders (page sizes).
const maxCachedStatements = 2000

func newPool(db *sqlx.DB) *pool {
	return &pool{DB: db, stmts: map[string]*sql.Stmt{}, preparing: map[string]bool{}}
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
	go func() {
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
	return p.DB.Close()
}

// txn is a write transaction that runs the pool's prepared statements: a
// write runs the same few dozen statements every call, and parsing them
// again in each transaction was a quarter of a task create's CPU (pprof,
// SQLite). database/sql prepares a statement on the transaction's
// connection once and reuses it there.
type txn struct {
	*sqlx.Tx
	pool *pool
}

// stmt is the cached statement bound to the transaction, or nil. A query
// not cached yet runs unprepared this time and is prepared in the
// background: preparing takes a connection of its own, and waiting for one
// while holding the transaction's could starve the pool.
func (t *txn) stmt(ctx context.Context, query string) *sql.Stmt {
	if s := t.pool.cached(query); s != nil {
		return t.Tx.StmtContext(ctx, s)
	}
	t.pool.prepareLater(query)
	return nil
}

// QueryContext runs a cached statement in the transaction.
func (t *txn) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if s := t.stmt(ctx, query); s != nil {
		return s.QueryContext(ctx, args...)
	}
	return t.Tx.QueryContext(ctx, query, args...)
}

// QueryxContext runs a cached statement in the transaction, scanning with sqlx.
func (t *txn) QueryxContext(ctx context.Context, query string, args ...any) (*sqlx.Rows, error) {
	rows, err := t.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return &sqlx.Rows{Rows: rows, Mapper: t.Mapper}, nil
}

// QueryRowxContext runs a cached statement in the transaction for one row.
func (t *txn) QueryRowxContext(ctx context.Context, query string, args ...any) *sqlx.Row {
	if s := t.stmt(ctx, query); s != nil {
		return (&sqlx.Stmt{Stmt: s, Mapper: t.Mapper}).QueryRowxContext(ctx, args...)
	}
	return t.Tx.QueryRowxContext(ctx, query, args...)
}

// ExecContext runs a cached statement in the transaction.
func (t *txn) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if s := t.stmt(ctx, query); s != nil {
		return s.ExecContext(ctx, args...)
	}
	return t.Tx.ExecContext(ctx, query, args...)
}

// ttlCache keeps values that change rarely and are read on every call (a
// signature's permissions, extra-field definitions) for a short time. A
// change made in the engine's administration shows within cacheTTL. Its
// entries expire by the engine's clock (Options.Now).
type ttlCache[V any] struct {
	ttl time.Duration
	now func() time.Time

	mu      sync.Mutex
	entries map[string]ttlEntry[V]
	loading singleflight.Group // one load per key at a time, outside transactions
}

type ttlEntry[V any] struct {
	value   V
	expires time.Time
}

// cacheTTL is how long a cached permission or definition is trusted.
const cacheTTL = 2 * time.Second

const maxCacheEntries = 10_000

func newTTLCache[V any](ttl time.Duration, now func() time.Time) *ttlCache[V] {
	return &ttlCache[V]{ttl: ttl, now: now, entries: map[string]ttlEntry[V]{}}
}

// get returns the cached value, or loads it on q and caches it.
func (c *ttlCache[V]) get(q db, key string, load func(q db) (V, error)) (V, error) {
	now := c.now()
	c.mu.Lock()
	e, ok := c.entries[key]
	c.mu.Unlock()
	if ok && now.Before(e.expires) {
		return e.value, nil
	}
	if _, inTx := q.(*txn); inTx {
		// A transaction loads on its own connection and never waits for a
		// load shared with other calls: that load may be waiting for a
		// connection of the pool, and on SQLite every connection may be
		// held by a writer waiting for the write lock this transaction
		// holds. All waited until the busy timeout (5 s), and the writers
		// then failed with engine_busy (issue 20).
		v, err := load(q)
		if err == nil {
			c.put(key, v, now)
		}
		return v, err
	}
	// When an entry expires under load, every call in flight misses it at
	// once; one of them loads it and the others wait for that (the load
	// stampede was the p99 of GET one under 64 clients).
	shared, err, wasShared := c.loading.Do(key, func() (any, error) {
		v, err := load(q)
		if err == nil {
			c.put(key, v, now)
		}
		return v, err
	})
	if err != nil && wasShared {
		// The error may be the loading call's own (its context ended):
		// this call loads for itself.
		v, err := load(q)
		if err == nil {
			c.put(key, v, now)
		}
		return v, err
	}
	v, _ := shared.(V)
	return v, err
}

func (c *ttlCache[V]) put(key string, v V, loaded time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) >= maxCacheEntries {
		clear(c.entries)
	}
	c.entries[key] = ttlEntry[V]{value: v, expires: loaded.Add(c.ttl)}
}

// forget drops every cached value, after the engine itself changed them.
func (c *ttlCache[V]) forget() {
	c.mu.Lock()
	clear(c.entries)
	c.mu.Unlock()
}
