package sqlengine

import (
	"context"
	"fmt"
	"strings"

	"fieldapi/catalog"
	"fieldapi/engine"
)

// defaultLimit is the page size when a query gives none.
const defaultLimit = 50

// List returns one page of a register, newest first. A cursor page is an
// index range scan on (company, seq), so its cost does not grow with depth.
func (e *Engine) List(ctx context.Context, s engine.Session, register string, q engine.Query) (engine.Page, error) {
	return call(e, ctx, func(ctx context.Context) (engine.Page, error) {
		t, err := e.table(register)
		if err != nil {
			return engine.Page{}, err
		}
		if err := e.authorize(ctx, e.db, s, register, readAccess); err != nil {
			return engine.Page{}, err
		}
		filter, args, err := e.filter(t, q)
		if err != nil {
			return engine.Page{}, err
		}

		limit := q.Limit
		if limit <= 0 {
			limit = defaultLimit
		}
		tail, tailArgs := filter, args
		if q.After != nil {
			tail += ` AND "seq" < ?`
			tailArgs = append(append([]any{}, args...), *q.After)
		}
		offset := 0
		if q.Page > 1 {
			offset = (q.Page - 1) * limit
		}
		// One row more than asked says whether another page exists.
		tail += ` ORDER BY "seq" DESC LIMIT ? OFFSET ?`
		tailArgs = append(tailArgs, limit+1, offset)

		recs, seqs, err := e.fetch(ctx, e.db, t, s.Company, tail, tailArgs...)
		if err != nil {
			return engine.Page{}, err
		}
		page := engine.Page{Records: recs}
		if len(recs) > limit {
			page.Records, seqs = recs[:limit], seqs[:limit]
			next := seqs[limit-1]
			page.Next = &next
		}
		if err := e.complete(ctx, e.db, t, s.Company, page.Records, seqs); err != nil {
			return engine.Page{}, err
		}
		if !t.reg.Uncounted && !q.KnownTotal {
			total, err := e.total(ctx, t, s.Company, filter, args)
			if err != nil {
				return engine.Page{}, err
			}
			page.Total = &total
		}
		return page, nil
	})
}

// total counts the company's rows that pass filter. Without a filter it is
// the register's stored count (counts.go): one row read. A filter on an
// indexed field (tableIndexes) counts from that index; a "contains" filter
// has no index to use and counts by scanning the company's rows.
func (e *Engine) total(ctx context.Context, t *table, company, filter string, args []any) (int, error) {
	if filter == "" {
		return storedCount(ctx, e.db, company, t)
	}
	var total int
	err := get(ctx, e.db, &total, `SELECT COUNT(*) FROM `+t.name()+` WHERE "company" = ?`+filter,
		append([]any{company}, args...)...)
	return total, err
}

// Get returns one record of the caller's company by its key, with extra
// fields, or ErrNotFound.
func (e *Engine) Get(ctx context.Context, s engine.Session, register, key string) (engine.Record, error) {
	return call(e, ctx, func(ctx context.Context) (engine.Record, error) {
		t, err := e.table(register)
		if err != nil {
			return nil, err
		}
		if err := e.authorize(ctx, e.db, s, register, readAccess); err != nil {
			return nil, err
		}
		rec, _, err := e.getRecord(ctx, e.db, t, s.Company, key)
		return rec, err
	})
}

// getRecord reads one record by key as the API shows it (see complete).
func (e *Engine) getRecord(ctx context.Context, q db, t *table, company, key string) (engine.Record, int64, error) {
	cond, arg, ok := t.keyMatch(key)
	if !ok {
		return nil, 0, engine.ErrNotFound
	}
	return e.getRecordWhere(ctx, q, t, company, cond, arg)
}

// getRecordBySeq reads one record by its seq as the API shows it.
func (e *Engine) getRecordBySeq(ctx context.Context, q db, t *table, company string, seq int64) (engine.Record, error) {
	rec, _, err := e.getRecordWhere(ctx, q, t, company, `"seq" = ?`, seq)
	return rec, err
}

func (e *Engine) getRecordWhere(ctx context.Context, q db, t *table, company, cond string, arg any) (engine.Record, int64, error) {
	recs, seqs, err := e.fetch(ctx, q, t, company, " AND "+cond, arg)
	if err != nil {
		return nil, 0, err
	}
	if len(recs) == 0 {
		return nil, 0, engine.ErrNotFound
	}
	if err := e.complete(ctx, q, t, company, recs, seqs); err != nil {
		return nil, 0, err
	}
	return recs[0], seqs[0], nil
}

// fetch selects records of one company; tail continues the WHERE clause
// after the company condition (" AND ... ORDER BY ..."). It reads the rows
// only: see complete.
func (e *Engine) fetch(ctx context.Context, q db, t *table, company, tail string, args ...any) ([]engine.Record, []int64, error) {
	query := `SELECT ` + t.selectList() + ` FROM ` + t.name() + ` WHERE "company" = ?` + tail
	rows, err := q.QueryxContext(ctx, q.Rebind(query), append([]any{company}, args...)...)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	var recs []engine.Record
	var seqs []int64
	for rows.Next() {
		row, err := rows.SliceScan()
		if err != nil {
			return nil, nil, err
		}
		rec, seq, err := t.scan(row)
		if err != nil {
			return nil, nil, err
		}
		recs = append(recs, rec)
		seqs = append(seqs, seq)
	}
	return recs, seqs, rows.Err()
}

// filter turns a query's conditions and modified range into SQL that
// continues a WHERE clause (" AND ..."), with its arguments.
func (e *Engine) filter(t *table, q engine.Query) (string, []any, error) {
	var sqlText strings.Builder
	var args []any
	for _, c := range q.Where {
		c, err := e.rules.ListCondition(t.reg.Name, c)
		if err != nil {
			return "", nil, err
		}
		f, err := t.field(c.Field)
		if err != nil {
			return "", nil, err
		}
		cond, condArgs, err := e.condition(t, f, c)
		if err != nil {
			return "", nil, err
		}
		sqlText.WriteString(" AND " + cond)
		args = append(args, condArgs...)
	}
	if q.ModifiedSince != nil {
		sqlText.WriteString(` AND "modified" >= ?`)
		args = append(args, formatTime(*q.ModifiedSince))
	}
	if q.ModifiedBefore != nil {
		sqlText.WriteString(` AND "modified" < ?`)
		args = append(args, formatTime(*q.ModifiedBefore))
	}
	return sqlText.String(), args, nil
}

// condition is the SQL of one filter on a field.
func (e *Engine) condition(t *table, f *catalog.Field, c engine.Condition) (string, []any, error) {
	col := t.column(f)
	values := make([]any, len(c.Values))
	for i, v := range c.Values {
		n, err := normalize(f, v)
		if err != nil {
			return "", nil, fmt.Errorf("filter on %s: %w", f.Name, err)
		}
		values[i] = toDB(f, n)
	}
	switch c.Op {
	case engine.OpEquals:
		if len(values) != 1 {
			return "", nil, fmt.Errorf("filter on %s: equals takes one value", f.Name)
		}
		if values[0] == nil {
			return col + " IS NULL", nil, nil
		}
		return col + " = ?", values, nil
	case engine.OpContains:
		if len(values) != 1 || f.Type != catalog.Text {
			return "", nil, fmt.Errorf("filter on %s: contains takes one text value", f.Name)
		}
		pattern := "%" + escapeLike(asText(values[0])) + "%"
		return `LOWER(` + col + `) LIKE LOWER(CAST(? AS TEXT)) ESCAPE '\'`, []any{pattern}, nil
	case engine.OpIn:
		if len(values) == 0 {
			return "1 = 0", nil, nil
		}
		return col + " IN (" + placeholders(len(values)) + ")", values, nil
	case engine.OpNotIn:
		if len(values) == 0 {
			return "1 = 1", nil, nil
		}
		// NOT IN is unknown for NULL; a record without a value is "none of them".
		return "(" + col + " IS NULL OR " + col + " NOT IN (" + placeholders(len(values)) + "))", values, nil
	}
	return "", nil, fmt.Errorf("filter on %s: unknown operator %q", f.Name, c.Op)
}

// escapeLike escapes the LIKE wildcards of a literal, with \ as escape.
func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}
