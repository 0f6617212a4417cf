package sqldb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// laterStatement is a statement ExecLater queued.
type laterStatement struct {
	query string // with ? placeholders
	args  []any
	check func(sql.Result) error
}

// ExecLater runs a statement of the transaction whose result nothing
// before the commit needs, except check (nil: none), which judges it. On
// PostgreSQL it is queued and sent with the transaction's next statement,
// or just before its COMMIT: the change log, events, count deltas and
// idempotency record a write ends with go in one round trip instead of
// one each. Its failure, or check's error, is then the error of that
// next statement, or the write's (the transaction rolls back, nothing
// written). On SQLite, in process, it runs at once. For statements that
// repeat no unique key: a violation would be the error of the statement
// it rode with.
func (t *Tx) ExecLater(ctx context.Context, check func(sql.Result) error, query string, args ...any) error {
	if t.conn == nil {
		res, err := t.ExecContext(ctx, t.Rebind(query), args...)
		if err == nil && check != nil {
			err = check(res)
		}
		return err
	}
	t.later = append(t.later, laterStatement{query: query, args: args, check: check})
	return nil
}

// flushLater sends the statements ExecLater queued, with next (when
// given) last in the same round trip, and returns next's result.
func (t *Tx) flushLater(ctx context.Context, next *laterStatement) (sql.Result, error) {
	queued := t.pending()
	if next != nil {
		queued = append(queued, *next)
	}
	var results []sql.Result
	var err error
	if t.batches {
		results, _, err = execBatch(ctx, t.conn, t.pool, queued)
	} else {
		// SQLite, or not pgx's own connection (a wrapped driver): one by one.
		results = make([]sql.Result, len(queued))
		for i, s := range queued {
			if results[i], err = t.run.ExecContext(ctx, t.Rebind(s.query), s.args...); err != nil {
				break
			}
		}
	}
	if err != nil {
		return nil, err
	}
	if err := checkResults(queued, results); err != nil {
		return nil, err
	}
	if next == nil {
		return nil, nil
	}
	return results[len(results)-1], nil
}

// flushBefore sends what ExecLater queued before another statement: it
// must see what they write, and run after them. A failure also stays
// with the transaction (laterErr), which then cannot commit, for a caller
// that cannot be handed it (QueryRowxContext).
func (t *Tx) flushBefore(ctx context.Context) error {
	if len(t.later) == 0 && (t.conn == nil || t.begun) {
		return t.laterErr
	}
	if _, err := t.flushLater(ctx, nil); err != nil {
		t.laterErr = err
	}
	return t.laterErr
}

// execBatch runs statements as one pgx batch on conn, in the transaction
// open on it; see sendPgxBatch.
func execBatch(ctx context.Context, conn *sql.Conn, p *pool, statements []laterStatement) (results []sql.Result, sent bool, err error) {
	sent, err = sendPgxBatch(ctx, conn, func(batch *pgx.Batch) { queueExec(batch, p, statements) },
		func(out pgx.BatchResults) (err error) {
			results, err = execResults(out, statements)
			return err
		})
	return results, sent, err
}

// queueExec queues statements in a batch.
func queueExec(batch *pgx.Batch, p *pool, statements []laterStatement) {
	for _, s := range statements {
		batch.Queue(p.Rebind(s.query), s.args...)
	}
}

// execResults reads the results of the statements queueExec queued.
func execResults(out pgx.BatchResults, statements []laterStatement) ([]sql.Result, error) {
	results := make([]sql.Result, len(statements))
	for i := range statements {
		tag, err := out.Exec()
		if err != nil {
			return nil, fmt.Errorf("statement %d of %d sent together: %w", i+1, len(statements), err)
		}
		results[i] = batchResult{tag}
	}
	return results, nil
}

// batchResult is a statement's result as a batch reports it.
type batchResult struct{ tag pgconn.CommandTag }

func (r batchResult) RowsAffected() (int64, error) { return r.tag.RowsAffected(), nil }

func (batchResult) LastInsertId() (int64, error) {
	return 0, errors.New("sqldb: no LastInsertId in PostgreSQL")
}

// checkResults has each statement's check judge its result.
func checkResults(statements []laterStatement, results []sql.Result) error {
	for i, s := range statements {
		if s.check != nil {
			if err := s.check(results[i]); err != nil {
				return err
			}
		}
	}
	return nil
}
