package sqlengine

import (
	"context"
	"fmt"
	"strings"

	"fieldapi/engine/dataset"
)

// Bulk loading: the path for data sets too large for Import's one
// transaction and row-by-row inserts, such as "fieldapi seed"'s million
// tasks. Like Import it writes values as they are given (no rule, reference
// or change log) but only plain values: no extra fields, documents or
// positions. Each BulkInsert is one transaction of multi-row INSERTs and
// adds to the record counts (counts.go) in it, so the list totals stay
// exact however a load ends.

// bulkMaxArgs keeps a multi-row INSERT under both databases' limit on
// placeholders per statement (SQLite 32766, PostgreSQL 65535).
const bulkMaxArgs = 30000

// bulkMaxRows caps the rows of one INSERT statement.
const bulkMaxRows = 500

// BulkInsert writes the records of each register, in order, for a company
// that exists, in one transaction. A record's key must be given where the
// register is not keyed by the engine: take numbers with ReserveNumbers.
func (e *Engine) BulkInsert(ctx context.Context, company string, registers []dataset.Register) error {
	_, err := call(e, ctx, func(ctx context.Context) (struct{}, error) {
		return struct{}{}, e.inTx(ctx, func(tx *txn) error {
			for _, r := range registers {
				t, err := e.table(r.Name)
				if err != nil {
					return err
				}
				if err := e.bulkRegister(ctx, tx, company, t, r.Records); err != nil {
					return fmt.Errorf("bulk %s: %w", r.Name, err)
				}
			}
			return nil
		})
	})
	return err
}

// bulkRegister inserts records of one register with as many rows per
// statement as the placeholder limit allows. The columns are the fields any
// of the records sets; a record without one stores NULL there.
func (e *Engine) bulkRegister(ctx context.Context, tx *txn, company string, t *table, records []dataset.Record) error {
	if len(records) == 0 {
		return nil
	}
	set := map[string]bool{}
	for _, rec := range records {
		for name := range rec.Values {
			set[name] = true
		}
	}
	cols := []string{quote(companyColumn), quote(modifiedColumn)}
	var fields []int // indexes into t.stored
	for i, f := range t.stored {
		if set[f.Name] {
			cols = append(cols, quote(f.Column))
			fields = append(fields, i)
			delete(set, f.Name)
		}
	}
	for name := range set {
		return fmt.Errorf("%s has no stored field %q", t.reg.Name, name)
	}
	rowsPer := min(bulkMaxRows, bulkMaxArgs/len(cols))
	now := e.now()
	head := `INSERT INTO ` + t.name() + ` (` + strings.Join(cols, ", ") + `) VALUES `
	row := "(" + placeholders(len(cols)) + ")"
	args := make([]any, 0, rowsPer*len(cols))
	for start := 0; start < len(records); start += rowsPer {
		chunk := records[start:min(start+rowsPer, len(records))]
		args = args[:0]
		for _, rec := range chunk {
			args = append(args, company, now)
			for _, i := range fields {
				f := t.stored[i]
				v, err := normalize(f, rec.Values[f.Name])
				if err != nil {
					return err
				}
				args = append(args, toDB(f, v))
			}
		}
		query := head + strings.TrimSuffix(strings.Repeat(row+", ", len(chunk)), ", ")
		if _, err := exec(ctx, tx, query, args...); err != nil {
			return err
		}
	}
	return addCount(ctx, tx, company, t, int64(len(records)))
}

// ReserveNumbers takes n consecutive numbers of a register's number series
// for a company and returns the first. Numbers below the series' next that
// are in use stay skipped; keys above it (given by hand) are the caller's
// to avoid: a bulk load takes its numbers here before anyone else writes.
func (e *Engine) ReserveNumbers(ctx context.Context, company, register string, n int64) (int64, error) {
	return call(e, ctx, func(ctx context.Context) (int64, error) {
		t, err := e.table(register)
		if err != nil {
			return 0, err
		}
		if !t.reg.NumberSeries || t.engineKeyed {
			return 0, fmt.Errorf("%s has no number series", register)
		}
		var first int64
		err = e.inTx(ctx, func(tx *txn) error {
			_, err := exec(ctx, tx, `INSERT INTO "number_series" ("company", "register", "next") VALUES (?, ?, 1)
				ON CONFLICT ("company", "register") DO NOTHING`, company, register)
			if err != nil {
				return err
			}
			return get(ctx, tx, &first, `UPDATE "number_series" SET "next" = "next" + ?
				WHERE "company" = ? AND "register" = ? RETURNING "next" - ?`, n, company, register, n)
		})
		return first, err
	})
}

// Analyze refreshes the database's table statistics, which its query
// planner picks indexes by: run it after a bulk load.
func (e *Engine) Analyze(ctx context.Context) error {
	_, err := call(e, ctx, func(ctx context.Context) (struct{}, error) {
		_, err := e.db.ExecContext(ctx, `ANALYZE`)
		return struct{}{}, err
	})
	return err
}
