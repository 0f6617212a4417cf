package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jmoiron/sqlx"
)

// Tx is a write transaction.
//
// On SQLite it is database/sql's, running the pool's prepared
// statements: a write runs the same few dozen statements every call, and
// parsing them again in each transaction was a quarter of a task
// create's CPU (pprof). database/sql prepares a statement on the
// transaction's connection once and reuses it there.
//
// On PostgreSQL it runs on a connection held for it, without
// database/sql's transaction, whose BEGIN and COMMIT cost a round trip
// each: BEGIN goes with the transaction's first statements and COMMIT
// with its last (pgx batches; see ReadEach and ExecLater). pgx prepares
// each statement once per connection by itself.
type Tx struct {
	sqlTx       *sqlx.Tx  // SQLite: database/sql's transaction; nil on PostgreSQL
	run         runner    // where a statement runs alone: sqlTx, or the held connection
	conn        *sql.Conn // PostgreSQL: the held connection; nil on SQLite
	batches     bool      // PostgreSQL: conn is pgx's own, which sends batches (not behind Options.WrapDriver)
	begun       bool      // PostgreSQL: BEGIN has been sent
	pool        *pool
	Dialect     Dialect
	rollback    []func()         // OnRollback
	grouped     bool             // shares its transaction with other writes (group.go)
	later       []laterStatement // queued by ExecLater
	laterErr    error            // the failure of statements ExecLater queued
	laterValues int              // values of the rows queued (ExecLaterRows) since the last send
	ahead       *sentAhead       // sent ahead, its outcome not read yet (ahead.go)
}

// runner runs single statements: *sqlx.Tx and *sqlx.Conn are runners.
type runner interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowxContext(ctx context.Context, query string, args ...any) *sqlx.Row
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

var (
	beginStatement  = laterStatement{query: "BEGIN"}
	commitStatement = laterStatement{query: "COMMIT"}
)

// pending takes what must reach the server before the transaction's next
// statement: BEGIN, until sent, and what ExecLater queued.
func (t *Tx) pending() []laterStatement {
	queued := mergeRows(t.later)
	t.later, t.laterValues = nil, 0
	if t.conn != nil && !t.begun {
		t.begun = true // sent now, or the transaction fails
		queued = append([]laterStatement{beginStatement}, queued...)
	}
	return queued
}

// due tells whether something must reach the server before the
// transaction's next statement: BEGIN, what ExecLater queued, or the
// outcome of what was sent ahead.
func (t *Tx) due() bool { return len(t.later) > 0 || t.ahead != nil || (t.conn != nil && !t.begun) }

// commit ends a PostgreSQL transaction: COMMIT goes with what ExecLater
// queued, in one round trip. An error the server answered (a
// statement's, or the COMMIT's) leaves nothing written: the transaction
// did not commit. Any other leaves it unknown.
func (t *Tx) commit(ctx context.Context) error {
	if !t.begun && len(t.later) == 0 {
		return nil // nothing was sent: nothing to commit
	}
	if t.drainAhead() != nil {
		return nothingWritten(t.laterErr) // the COMMIT was not sent
	}
	res, err := t.flushLater(ctx, &commitStatement)
	if _, refused := errors.AsType[*pgconn.PgError](err); refused {
		return nothingWritten(err)
	}
	if r, ok := res.(batchResult); ok && r.tag.String() == "ROLLBACK" {
		// The COMMIT of a transaction a failed statement ended (its
		// caller went on past the error) rolls back.
		return nothingWritten(errRolledBack)
	}
	return err
}

var errRolledBack = errors.New("sqldb: the transaction was rolled back at its COMMIT: a statement of it had failed")

// abort rolls a PostgreSQL transaction back, if anything of it was sent.
// Should the ROLLBACK fail, or not run (a panic), pgx's database/sql
// driver closes the connection rather than hand it out again inside the
// transaction (stdlib.Conn.ResetSession): the ROLLBACK keeps it. It runs
// past the call's deadline, but not longer than a silent server is
// allowed (pgx closes the connection when it gives up).
func (t *Tx) abort(ctx context.Context) {
	_ = t.drainAhead() // the connection takes no ROLLBACK before
	if t.begun {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), rollbackTimeout)
		defer cancel()
		_, _ = t.conn.ExecContext(ctx, "ROLLBACK")
	}
}

// rollbackTimeout bounds a ROLLBACK after a failed write.
const rollbackTimeout = time.Second

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

// undo runs the OnRollback functions, last first.
func (t *Tx) undo() {
	for i := len(t.rollback) - 1; i >= 0; i-- {
		t.rollback[i]()
	}
	t.rollback = nil
}

// Rebind is the pool's Rebind: a query's rebound text is remembered.
func (t *Tx) Rebind(query string) string { return t.pool.Rebind(query) }

// DriverName names the database/sql driver, as sqlx's binders do.
func (t *Tx) DriverName() string { return t.pool.DriverName() }

// BindNamed binds a query with :names, as sqlx's do.
func (t *Tx) BindNamed(query string, arg any) (string, []any, error) {
	return t.pool.BindNamed(query, arg)
}

// stmt is the cached statement bound to a SQLite transaction, or nil. A
// query not cached yet runs unprepared this time and is prepared in the
// background: preparing takes a connection of its own, and waiting for
// one while holding the transaction's could starve the pool.
func (t *Tx) stmt(ctx context.Context, query string) *sql.Stmt {
	if t.sqlTx == nil {
		return nil
	}
	if s := t.pool.cached(query); s != nil {
		return t.sqlTx.StmtContext(ctx, s)
	}
	t.pool.prepareLater(query)
	return nil
}

// QueryContext runs a statement in the transaction.
func (t *Tx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if err := t.flushBefore(ctx); err != nil {
		return nil, err
	}
	ctx = t.statementContext(ctx)
	if s := t.stmt(ctx, query); s != nil {
		return s.QueryContext(ctx, args...)
	}
	return t.run.QueryContext(ctx, query, args...)
}

// QueryxContext runs a statement in the transaction, scanning with sqlx.
func (t *Tx) QueryxContext(ctx context.Context, query string, args ...any) (*sqlx.Rows, error) {
	return t.pool.scanning(t.QueryContext(ctx, query, args...))
}

// QueryRowxContext runs a statement in the transaction for one row.
func (t *Tx) QueryRowxContext(ctx context.Context, query string, args ...any) *sqlx.Row {
	_ = t.flushBefore(ctx) // a failure stays with the transaction: it cannot commit
	ctx = t.statementContext(ctx)
	if s := t.stmt(ctx, query); s != nil {
		return (&sqlx.Stmt{Stmt: s, Mapper: t.pool.Mapper}).QueryRowxContext(ctx, args...)
	}
	return t.run.QueryRowxContext(ctx, query, args...)
}

// ExecContext runs a statement in the transaction.
func (t *Tx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if t.due() {
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
	return t.execStatement(ctx, query, args)
}
