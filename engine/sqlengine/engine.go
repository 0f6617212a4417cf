// Package sqlengine is the reference engine: the business system behind the
// API, on sqlx with SQLite (default) or PostgreSQL.
//
// Every business rule lives here and is driven by the register catalog:
// the schema, number series, references and lookups, defaults, line lists,
// extra fields, the signature's permissions and the change log. A register
// declared in YAML alone works with no code in this package.
//
// Files by concern: dialect.go (every SQLite/PostgreSQL difference),
// errors.go (driver faults → engine errors), schema.go (Migrate), table.go
// (catalog → columns and values), read.go (List, Get, totals), lines.go (line lists
// in read shapes), write.go (Create, Update, receipts; the hooks of the
// register rules in engine/rules), ruletx.go (what those rules may do in a
// write), commands.go (AddLine, Act), rules.go (defaults, required fields,
// references and lookups, inherited and referenced defaults, number
// series), extrafields.go,
// fieldnames.go, permissions.go, changelog.go, locations.go (the optional
// engine.Locations; package geocode places addresses), documents.go (the
// optional engine.Documents; package docrender renders and fetches),
// calendar.go (each company's settings and time zone), cache.go (prepared
// statements, also inside write transactions; short caches of permissions
// and definitions), keys.go,
// idempotency.go, import.go (Import: data written as it is, such as package
// demo's), bulk.go (BulkInsert: large loads such as fieldapi seed's),
// counts.go (each register's record count per company, the lists' totals)
// and sqlutil.go (small SQL helpers).
//
// All SQL is written with ? placeholders and rebound for the dialect, with
// every identifier double-quoted. Times are stored as fixed-width UTC text
// (timestampLayout) so that text order is time order in both databases.
package sqlengine

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"fieldapi/catalog"
	"fieldapi/engine"
	"fieldapi/engine/geocode"
	"fieldapi/engine/rules"
)

var _ engine.Engine = (*Engine)(nil)

// Options tunes the engine.
type Options struct {
	MaxOpenConns     int              // pool size; 0 = 10
	BusyTimeout      time.Duration    // SQLite: how long a writer waits for the lock; 0 = 5s
	StatementTimeout time.Duration    // 0 = none; a call past it returns engine.ErrTimeout
	Now              func() time.Time // clock; nil = time.Now
	Geocoder         geocode.Geocoder // locates records; nil = the offline geocode.Gazetteer
	LinkTimeout      time.Duration    // how long fetching a linked document may wait for its source; 0 = 10s
	// NoEvents records no events with writes: the feed and webhooks stay
	// empty. Only for measuring what recording costs (make bench).
	NoEvents bool
}

// Engine is the reference engine. It is safe for concurrent use.
type Engine struct {
	db      *pool
	dialect dialect
	cat     *catalog.Catalog
	tables  map[string]*table // by register name
	opt     Options

	rules *rules.Set // rules beyond the catalog (engine/rules), bound to cat

	permissions *ttlCache[userAccess] // by company and sign
	extraDefs   *ttlCache[[]extraDef] // by company and register

	health *healthProbe // PostgreSQL: marks a server that stops answering; nil on SQLite

	writers *writerGate // SQLite: lets one write of this process at a time take the write lock; nil on PostgreSQL
}

// Open connects to the database named by dsn ("sqlite:PATH" or
// "postgres://..."). It does not need the database to be up: a PostgreSQL
// that is down makes calls fail with engine.ErrUnreachable until it returns.
// Call Migrate before first use of a new database.
func Open(ctx context.Context, dsn string, cat *catalog.Catalog, opt Options) (*Engine, error) {
	if opt.BusyTimeout <= 0 {
		opt.BusyTimeout = 5 * time.Second
	}
	if opt.MaxOpenConns <= 0 {
		opt.MaxOpenConns = 10
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Geocoder == nil {
		opt.Geocoder = geocode.Gazetteer{}
	}
	if opt.LinkTimeout <= 0 {
		opt.LinkTimeout = 10 * time.Second
	}
	tables, err := newTables(cat)
	if err != nil {
		return nil, err
	}
	// The rules state the fields they need: a catalog that no longer has
	// them stops the engine here, before any write could trip over it.
	ruleSet, err := rules.Bind(cat, rules.Builtin()...)
	if err != nil {
		return nil, err
	}
	d, driverDSN, err := parseDSN(dsn, opt.BusyTimeout)
	if err != nil {
		return nil, err
	}
	if err := d.prepare(); err != nil {
		return nil, err
	}
	db, pgConfig, err := d.open(driverDSN, opt.StatementTimeout)
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	db.SetMaxOpenConns(opt.MaxOpenConns)
	db.SetMaxIdleConns(opt.MaxOpenConns)
	db.SetConnMaxIdleTime(5 * time.Minute)
	e := &Engine{
		db: newPool(db), dialect: d, cat: cat, tables: tables, opt: opt,
		rules:       ruleSet,
		permissions: newTTLCache[userAccess](cacheTTL, opt.Now),
		extraDefs:   newTTLCache[[]extraDef](cacheTTL, opt.Now),
	}
	if !d.postgres {
		// SQLite opens the file on first use; fail now on a path that cannot be opened.
		if err := e.Ping(ctx); err != nil {
			db.Close()
			return nil, fmt.Errorf("open %s: %w", dsn, err)
		}
		e.writers = newWriterGate(opt.BusyTimeout)
	} else {
		e.health = startHealthProbe(pgConfig)
	}
	return e, nil
}

// Close stops the health probe and closes the connection pool.
func (e *Engine) Close() error {
	if e.health != nil {
		e.health.close()
	}
	return e.db.Close()
}

// Ping reports whether the database answers a trivial query.
func (e *Engine) Ping(ctx context.Context) error {
	_, err := call(e, ctx, func(ctx context.Context) (struct{}, error) {
		var one int
		return struct{}{}, e.db.GetContext(ctx, &one, `SELECT 1`)
	})
	return err
}

// DBStats reports the database pool's statistics, for metrics.
func (e *Engine) DBStats() sql.DBStats { return e.db.Stats() }

// Keys returns the store of API keys and tokens.
func (e *Engine) Keys() engine.KeyStore { return keyStore{e} }

// Idempotency returns the store of write responses.
func (e *Engine) Idempotency() engine.IdempotencyStore { return idempotencyStore{e} }

// call runs one engine call under the statement timeout and turns driver
// faults into the engine's errors (busy, unreachable, timeout). While the
// health probe finds the database not answering, it answers
// engine.ErrUnreachable at once, without waiting on a connection.
func call[T any](e *Engine, ctx context.Context, fn func(ctx context.Context) (T, error)) (T, error) {
	if e.health != nil && e.health.down() {
		var zero T
		return zero, wrapFault(engine.ErrUnreachable, errMarkedUnreachable)
	}
	if e.opt.StatementTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, e.opt.StatementTimeout)
		defer cancel()
	}
	v, err := fn(ctx)
	err = e.classify(ctx, err)
	if e.health != nil && !isFault(err) {
		e.health.answered()
	}
	return v, err
}

// inTx runs fn in one write transaction: committed when fn returns nil,
// rolled back otherwise. A failure before COMMIT is sent leaves nothing
// written, which classify tells apart from a COMMIT left unanswered.
func (e *Engine) inTx(ctx context.Context, fn func(tx *txn) error) error {
	leave, err := e.writers.enter(ctx)
	if err != nil {
		return notCommitted(err)
	}
	defer leave()
	sqlTx, err := e.db.BeginTxx(ctx, nil)
	if err != nil {
		return notCommitted(err)
	}
	tx := &txn{Tx: sqlTx, pool: e.db}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return notCommitted(err)
	}
	return tx.Commit()
}

// table returns the register's table, or an error naming the unknown register.
func (e *Engine) table(register string) (*table, error) {
	t := e.tables[register]
	if t == nil {
		return nil, fmt.Errorf("unknown register %q", register)
	}
	return t, nil
}

// timestampLayout is how every time is stored: UTC and fixed width, so that
// comparing the text orders by time in both dialects.
const timestampLayout = "2006-01-02T15:04:05.000000Z"

func formatTime(t time.Time) string { return t.UTC().Format(timestampLayout) }

func parseTime(s string) (time.Time, error) { return time.Parse(timestampLayout, s) }

// now is the engine's clock as stored text.
func (e *Engine) now() string { return formatTime(e.opt.Now()) }
