// Package sqldb is the SQL plumbing the SQL stores share: opening SQLite
// or PostgreSQL from a DSN, a pool of prepared statements, write
// transactions, the call budget (statement timeout), driver faults turned
// into the engine's errors, PostgreSQL's health probe (package health)
// and upkeep, SQLite's writer gate, group commit and checkpoints. It
// holds no table and no business rule: engine/store/sqlstore and
// engine/platform/sqlplatform keep their rows on it, in one transaction
// when a write and its receipt must commit together.
//
// All SQL is written with ? placeholders and rebound for the dialect,
// with every identifier double-quoted. Times are stored as fixed-width
// UTC text (TimestampLayout), so text order is time order in both.
package sqldb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"log/slog"
	"time"

	"github.com/jmoiron/sqlx"

	"fieldapi/engine"
	"fieldapi/engine/sqldb/health"
)

// Options tunes the database.
type Options struct {
	MaxOpenConns     int           // pool size; 0 = 10
	BusyTimeout      time.Duration // SQLite: how long a writer waits for the lock; 0 = 5s
	StatementTimeout time.Duration // 0 = none; a call past it returns engine.ErrTimeout
	// WrapDriver, when set, wraps the database driver, to see every
	// statement the database is sent (tests count them; tracing).
	WrapDriver func(driver.Driver) driver.Driver
	// Logger hears of failed upkeep (a checkpoint, a vacuum, an
	// ANALYZE), which no call returns; nil: it is not logged.
	Logger *slog.Logger
}

// DB is one database: the pool and what every call on it goes through.
// It is safe for concurrent use.
type DB struct {
	pool    *pool
	dialect Dialect
	opt     Options
	health  *health.Probe    // PostgreSQL: marks a server that stops answering; nil on SQLite
	writers *writerGate      // SQLite: one write of this process at a time takes the write lock; nil on PostgreSQL
	queue   *writeQueue      // SQLite: write transactions commit in groups; nil on PostgreSQL
	wal     *walCheckpointer // SQLite: checkpoints the write-ahead log beside the writes; nil on PostgreSQL
	upkeep  background       // PostgreSQL: the sweepers' vacuums and the analyzers' ANALYZEs
}

// Open connects to the database named by dsn ("sqlite:PATH" or
// "postgres://..."). A PostgreSQL that is down makes calls fail with
// engine.ErrUnreachable until it returns; a SQLite file that cannot be
// opened fails here.
func Open(ctx context.Context, dsn string, opt Options) (*DB, error) {
	if opt.BusyTimeout <= 0 {
		opt.BusyTimeout = 5 * time.Second
	}
	if opt.MaxOpenConns <= 0 {
		opt.MaxOpenConns = 10
	}
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	d, driverDSN, err := parseDSN(dsn, opt.BusyTimeout)
	if err != nil {
		return nil, err
	}
	if !d.postgres {
		if err := registerSQLiteCase(); err != nil {
			return nil, err
		}
	}
	sqlDB, pgConfig, err := d.open(driverDSN, opt.StatementTimeout, opt.WrapDriver)
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	sqlDB.SetMaxOpenConns(opt.MaxOpenConns)
	sqlDB.SetMaxIdleConns(opt.MaxOpenConns)
	sqlDB.SetConnMaxIdleTime(5 * time.Minute)
	db := &DB{pool: newPool(sqlDB), dialect: d, opt: opt}
	if d.postgres {
		db.health = health.Start(pgConfig)
		return db, nil
	}
	// SQLite opens the file on first use; fail now on a path that cannot be opened.
	if err := db.Ping(ctx); err != nil {
		sqlDB.Close()
		return nil, fmt.Errorf("open %s: %w", dsn, err)
	}
	db.writers = &writerGate{slot: make(chan struct{}, 1), timeout: opt.BusyTimeout}
	db.queue = &writeQueue{}
	db.wal = &walCheckpointer{db: db, maxLogFrames: maxLogFrames}
	return db, nil
}

// Dialect is the database's dialect.
func (db *DB) Dialect() Dialect { return db.dialect }

// Close stops the health probe, waits for a checkpoint running, ends the
// upkeep running and closes the pool (SQLite checkpoints the rest of its
// log as the last connection closes).
func (db *DB) Close() error {
	if db.health != nil {
		db.health.Close()
	}
	db.wal.close()
	db.upkeep.close()
	return db.pool.Close()
}

// Ping reports whether the database answers a trivial query.
func (db *DB) Ping(ctx context.Context) error {
	return db.Read(ctx, func(ctx context.Context, q Querier) error {
		var one int
		return q.QueryRowxContext(ctx, `SELECT 1`).Scan(&one)
	})
}

// Stats are the database's statistics, for metrics.
type Stats struct {
	sql.DBStats // the pool's
	// SQLite's write queue (group.go): the transactions it committed and
	// the writes they held, whose ratio is the mean group. Zero on
	// PostgreSQL.
	WriteGroups, GroupedWrites int64
}

// Stats reports the database's statistics, for metrics.
func (db *DB) Stats() Stats {
	s := Stats{DBStats: db.pool.Stats()}
	if db.queue != nil {
		s.WriteGroups, s.GroupedWrites = db.queue.groups.Load(), db.queue.grouped.Load()
	}
	return s
}

// Querier is what reads and writes run on: the pool or a transaction.
type Querier = sqlx.ExtContext

// Read runs fn on the pool, outside a transaction, under the call budget.
// fn only reads, so it cannot have written: a fault is busy or unreachable
// (503, safe to retry), never a "may have written" timeout, even when the
// deadline passes or the server goes silent with its statement sent.
func (db *DB) Read(ctx context.Context, fn func(ctx context.Context, q Querier) error) error {
	return db.call(ctx, func(ctx context.Context) error { return nothingWritten(fn(ctx, db.pool)) })
}

// Autocommit runs fn on the pool for writes outside a transaction, each
// statement its own (an idempotency claim, a token), under the call
// budget and, on SQLite, through the writer gate.
func (db *DB) Autocommit(ctx context.Context, fn func(ctx context.Context, q Querier) error) error {
	return db.call(ctx, func(ctx context.Context) error {
		leave, err := db.writers.enter(ctx)
		if err != nil {
			return err
		}
		defer leave()
		if err := fn(ctx, db.pool); err != nil {
			return err
		}
		db.wal.committed()
		return nil
	})
}

// Write runs fn in one transaction under the call budget: committed when
// fn returns nil, rolled back otherwise, with fn's error returned as it
// is. A fault before the COMMIT was sent wrote nothing: it is busy or
// unreachable (503, safe to retry), never a "may have written" timeout.
func (db *DB) Write(ctx context.Context, fn func(ctx context.Context, tx *Tx) error) error {
	return db.call(ctx, func(ctx context.Context) error {
		if db.queue != nil {
			return db.queue.write(ctx, fn, db.runGroup)
		}
		// The transaction runs on a connection held here, so ReadEach
		// and ExecLater can send batches on it inside the transaction.
		conn, err := db.pool.Connx(ctx)
		if err != nil {
			return nothingWritten(err)
		}
		defer conn.Close()
		tx := &Tx{run: conn, conn: conn.Conn, batches: db.opt.WrapDriver == nil, pool: db.pool, Dialect: db.dialect}
		err = nothingWritten(fn(ctx, tx))
		if err == nil {
			err = tx.commit(ctx)
		}
		if err != nil {
			tx.abort(ctx)
			tx.undo()
		}
		return err
	})
}

// call runs one call under the statement timeout and turns driver faults
// into the engine's errors. On PostgreSQL the health probe watches the
// call: while it finds the server not answering, a call answers
// engine.ErrUnreachable at once, without waiting on a connection, and a
// call in flight when it marks the server ends then, within a second of
// the server going silent, rather than at its statement timeout.
func (db *DB) call(ctx context.Context, fn func(ctx context.Context) error) error {
	if db.health != nil {
		var unwatch func()
		var err error
		if ctx, unwatch, err = db.health.Watch(ctx); err != nil {
			return wrapFault(engine.ErrUnreachable, err)
		}
		defer unwatch()
	}
	if db.opt.StatementTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, db.opt.StatementTimeout)
		defer cancel()
	}
	err := db.classify(ctx, fn(ctx))
	if db.health != nil && !isFault(err) {
		db.health.Answered()
	}
	return err
}

// TimestampLayout is how every time is stored: UTC and fixed width, so
// comparing the text orders by time in both dialects.
const TimestampLayout = "2006-01-02T15:04:05.000000Z"

// FormatTime is a time as stored.
func FormatTime(t time.Time) string { return t.UTC().Format(TimestampLayout) }

// ParseTime reads a time as stored.
func ParseTime(s string) (time.Time, error) { return time.Parse(TimestampLayout, s) }
