package sqldb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// laterStatement is a statement ExecLater queued.
type laterStatement struct {
	query  string // with ? placeholders
	args   []any
	failed func(error) error // names the statement's failure; nil: as the driver does
	rows   *insertRows       // an INSERT ... VALUES that ExecLaterRows queued; nil for others
}

// insertRows is what a queued INSERT of rows (ExecLaterRows) is made of,
// for merging it with the others of its head.
type insertRows struct {
	head  string // the text up to VALUES
	row   string // one row's values, "(?, ?, ...)"
	n     int    // rows in its args
	parts int    // the queued INSERTs merged in it (mergeRows)
}

// text is the INSERT of n of the rows.
func (r *insertRows) text(n int) string {
	return r.head + strings.TrimSuffix(strings.Repeat(r.row+", ", n), ", ")
}

// ExecLater runs a statement of the transaction whose result nothing
// before the commit needs; failed (nil: none) turns its failure into the
// caller's error. On PostgreSQL it is queued and sent with the
// transaction's next statement, or with its COMMIT: the change log,
// events, count deltas and idempotency record a write ends with go in one
// round trip with the COMMIT instead of one each. Its failure is then the
// error of that next statement, or the write's (the transaction rolls
// back, nothing written). On SQLite, in process, it runs at once. A
// condition the write depends on must fail the statement on the server
// (a constraint), so that the COMMIT sent with it does not run.
func (t *Tx) ExecLater(ctx context.Context, failed func(error) error, query string, args ...any) error {
	if t.conn == nil {
		_, err := t.ExecContext(ctx, t.Rebind(query), args...)
		if err != nil && failed != nil {
			err = failed(err)
		}
		return err
	}
	t.later = append(t.later, laterStatement{query: query, args: args, failed: failed})
	return nil
}

// ExecLaterRows queues an INSERT of n rows as ExecLater does, on SQLite
// too (sent before the transaction's next statement, or when the write's
// fn returns): head is its text up to VALUES, row one row's "(?, ...)",
// args the rows' values, row after row. When the queue is sent, the
// INSERTs of one head queued since the last send go as one statement of
// all their rows (within the placeholder limit), in the place of the
// first, named by the first's failed: so it is for rows whose order
// against the other statements queued does not matter. A queue of
// sendAheadValues values is sent at once, its outcome read later
// (ahead.go).
func (t *Tx) ExecLaterRows(ctx context.Context, failed func(error) error, head, row string, n int, args []any) error {
	// Its text is written when the queue is sent (mergeRows).
	rows := &insertRows{head: head, row: row, n: n, parts: 1}
	t.later = append(t.later, laterStatement{args: args, failed: failed, rows: rows})
	t.laterValues += len(args)
	if t.sendsAhead() && t.laterValues >= sendAheadValues {
		t.sendAhead(ctx)
	}
	return nil
}

// maxMergedArgs keeps a merged INSERT under PostgreSQL's 65535
// placeholders.
const maxMergedArgs = 30000

// mergeRows merges the queued INSERTs of one head (ExecLaterRows) into
// one statement each, in the place of the first, while it holds at most
// maxMergedArgs values, and writes their texts.
func mergeRows(queued []laterStatement) []laterStatement {
	merged := 0
	for _, s := range queued {
		if s.rows != nil {
			merged++
		}
	}
	if merged >= 2 {
		out := make([]laterStatement, 0, len(queued))
		open := map[string]int{} // head → its statement in out still taking rows
		for _, s := range queued {
			if s.rows == nil {
				out = append(out, s)
				continue
			}
			if i, ok := open[s.rows.head]; ok && len(out[i].args)+len(s.args) <= maxMergedArgs {
				m := &out[i]
				m.args = append(m.args, s.args...)
				m.rows.n += s.rows.n
				m.rows.parts++
				continue
			}
			open[s.rows.head] = len(out)
			rows := *s.rows
			s.rows, s.args = &rows, slices.Clip(s.args)
			out = append(out, s)
		}
		queued = out
	}
	for i, s := range queued {
		if s.rows != nil {
			queued[i].query = s.rows.text(s.rows.n)
		}
	}
	return queued
}

// flushLater sends the statements ExecLater queued, with next (when
// given) last in the same round trip, and returns next's result.
func (t *Tx) flushLater(ctx context.Context, next *laterStatement) (sql.Result, error) {
	if t.ahead != nil {
		if err := t.drainAhead(); err != nil {
			return nil, err
		}
	}
	queued := t.pending()
	if next != nil {
		queued = append(queued, *next)
	}
	if len(queued) == 0 {
		return nil, nil // only what was sent ahead was due
	}
	var results []sql.Result
	var err error
	if t.batches {
		results, _, err = sendPgxBatch(ctx, t.conn, t.pool, queued, nil, nil)
	} else {
		// SQLite, or not pgx's own connection (a wrapped driver): one by one.
		results, err = t.execEach(ctx, queued)
	}
	if err != nil || next == nil {
		return nil, err
	}
	return results[len(results)-1], nil
}

// execEach runs queued statements one by one, up to the first failure.
func (t *Tx) execEach(ctx context.Context, queued []laterStatement) ([]sql.Result, error) {
	results := make([]sql.Result, len(queued))
	for i, s := range queued {
		var err error
		if results[i], err = t.execQueued(ctx, s); err != nil {
			return nil, s.named(err)
		}
	}
	return results, nil
}

// maxChunkRows is the most rows of one INSERT execQueued sends.
const maxChunkRows = 64

// execQueued runs a queued statement alone, through the pool's prepared
// statements where the transaction has them (SQLite). A merged INSERT
// (mergeRows) goes in chunks of a power of two rows, whose few texts
// repeat from write to write and are prepared once: parsing each merged
// text anew cost an atomic batch of 100 task creates 7 % of its CPU
// (pprof, SQLite). An INSERT merged with no other goes whole: one
// statement, however many rows a write has.
func (t *Tx) execQueued(ctx context.Context, s laterStatement) (sql.Result, error) {
	if s.rows == nil || s.rows.parts < 2 || t.sqlTx == nil {
		return t.execStatement(ctx, t.Rebind(s.query), s.args)
	}
	width := len(s.args) / s.rows.n
	var affected int64
	for start := 0; start < s.rows.n; {
		size := min(maxChunkRows, 1<<(bits.Len(uint(s.rows.n-start))-1)) // the largest power of two left
		res, err := t.execStatement(ctx, s.rows.text(size), s.args[start*width:(start+size)*width])
		if err != nil {
			return nil, err
		}
		n, _ := res.RowsAffected()
		affected += n
		start += size
	}
	return driver.RowsAffected(affected), nil
}

// execStatement runs a statement of the transaction, its cached prepared
// statement if it has one.
func (t *Tx) execStatement(ctx context.Context, query string, args []any) (sql.Result, error) {
	ctx = t.statementContext(ctx)
	if s := t.stmt(ctx, query); s != nil {
		return s.ExecContext(ctx, args...)
	}
	return t.run.ExecContext(ctx, query, args...)
}

// flushBefore sends what ExecLater queued before another statement: it
// must see what they write, and run after them. A failure also stays
// with the transaction (laterErr), which then cannot commit, for a caller
// that cannot be handed it (QueryRowxContext).
func (t *Tx) flushBefore(ctx context.Context) error {
	if !t.due() {
		return t.laterErr
	}
	if _, err := t.flushLater(ctx, nil); err != nil {
		t.laterErr = err
	}
	return t.laterErr
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
			return nil, fmt.Errorf("statement %d of %d sent together: %w", i+1, len(statements), statements[i].named(err))
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

// named is the statement's failure as its caller names it.
func (s laterStatement) named(err error) error {
	if s.failed == nil {
		return err
	}
	return s.failed(err)
}
