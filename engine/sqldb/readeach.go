package sqldb

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// Query is one statement of ReadEach, with ? placeholders.
type Query struct {
	SQL  string
	Args []any
}

// Rows are the rows one query of ReadEach returns. *sql.Rows is Rows.
type Rows interface {
	Columns() ([]string, error)
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// ReadEach runs independent reads outside a transaction, under one call
// budget, and hands each query's rows to read, in order. PostgreSQL is
// sent them all at once, in one round trip (a pgx batch) where one each
// cost a network wait and a wake-up of both processes; SQLite, in
// process, runs them one after the other. A failing query, or read's
// error, ends the call.
func (db *DB) ReadEach(ctx context.Context, queries []Query, read func(i int, rows Rows) error) error {
	return db.Read(ctx, func(ctx context.Context, q Querier) error {
		if db.dialect.postgres && len(queries) > 1 {
			conn, err := db.pool.Conn(ctx)
			if err != nil {
				return err
			}
			defer conn.Close()
			if _, sent, err := sendPgxBatch(ctx, conn, db.pool, nil, queries, read); sent {
				return err
			}
		}
		return readOneByOne(ctx, db.pool, queries, read)
	})
}

// ReadEach runs independent reads in the transaction as DB.ReadEach does
// outside one: PostgreSQL is sent them in one round trip, after what must
// go first (BEGIN, what ExecLater queued).
func (t *Tx) ReadEach(ctx context.Context, queries []Query, read func(i int, rows Rows) error) error {
	if !t.batches || (len(queries) < 2 && len(t.later) == 0 && t.begun) {
		if err := t.flushBefore(ctx); err != nil {
			return err
		}
		return readOneByOne(ctx, t, queries, read)
	}
	if err := t.drainAhead(); err != nil {
		return err
	}
	first := t.pending()
	_, _, err := sendPgxBatch(ctx, t.conn, t.pool, first, queries, read)
	if err != nil && len(first) > 0 {
		t.laterErr = err // a queued statement's failure, or the transaction's: it cannot commit
	}
	return err
}

// readOneByOne runs the queries of ReadEach one after the other.
func readOneByOne(ctx context.Context, q Querier, queries []Query, read func(i int, rows Rows) error) error {
	for i, query := range queries {
		rows, err := q.QueryContext(ctx, q.Rebind(query.SQL), query.Args...)
		if err != nil {
			return err
		}
		err = read(i, rows)
		rows.Close()
		if err = cmp.Or(err, rows.Err()); err != nil {
			return err
		}
	}
	return nil
}

// sendPgxBatch sends statements, then queries, as one pgx batch on conn
// (in the transaction open on it, if any), in one round trip: it returns
// the statements' results and hands the queries' rows to read. It reports
// false, having sent nothing, when the connection is not pgx's own (a
// wrapped driver: tests that count statements, tracing).
func sendPgxBatch(ctx context.Context, conn *sql.Conn, p *pool, statements []laterStatement, queries []Query, read func(i int, rows Rows) error) (results []sql.Result, sent bool, err error) {
	err = conn.Raw(func(driverConn any) error {
		c, ok := driverConn.(*stdlib.Conn)
		if !ok {
			return nil
		}
		sent = true
		batch := &pgx.Batch{}
		queueExec(batch, p, statements)
		for _, q := range queries {
			batch.Queue(p.Rebind(q.SQL), q.Args...)
		}
		out := c.Conn().SendBatch(ctx, batch)
		var err error
		results, err = execResults(out, statements)
		for i := 0; err == nil && i < len(queries); i++ {
			err = readResult(out, i, read)
		}
		return cmp.Or(err, out.Close()) // Close reads what the server still sends
	})
	return results, sent, err
}

// readResult hands the next result of a batch to read.
func readResult(results pgx.BatchResults, i int, read func(i int, rows Rows) error) error {
	rows, err := results.Query()
	if err != nil {
		return err
	}
	defer rows.Close()
	if err := read(i, pgxRows{rows}); err != nil {
		return err
	}
	rows.Close()
	return rows.Err()
}

// pgxRows are pgx's rows as Rows. Scanning into *any gives the values
// database/sql's pgx driver gives for the column types the stores use
// (text, bigint, double precision, boolean, bytea).
type pgxRows struct{ pgx.Rows }

// Scan into destinations that are all *any takes the row's Values: the
// same decoding (each column type's codec), without pgx's planning of a
// scan per column of every result, which cost a GET of one task about 5 %
// of its CPU (the task, each line list and its extra fields are results
// of their own, most of one row).
func (r pgxRows) Scan(dest ...any) error {
	for _, d := range dest {
		if _, ok := d.(*any); !ok {
			return r.Rows.Scan(dest...)
		}
	}
	values, err := r.Values()
	if err != nil {
		return err
	}
	if len(values) != len(dest) {
		return fmt.Errorf("sqldb: %d values in a row, %d destinations", len(values), len(dest))
	}
	for i, v := range values {
		*dest[i].(*any) = v
	}
	return nil
}

func (r pgxRows) Columns() ([]string, error) {
	fields := r.FieldDescriptions()
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.Name
	}
	return names, nil
}

var _ Rows = (*sql.Rows)(nil)
