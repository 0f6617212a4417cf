package sqlstore

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"fieldapi/engine/sqldb"
	"fieldapi/engine/store"
)

// maxArgs keeps a statement under both databases' limit on placeholders
// (SQLite 32766, PostgreSQL 65535).
const maxArgs = 30000

// maxRowsPerInsert caps the rows of one INSERT statement.
const maxRowsPerInsert = 500

// Insert adds rows in as few statements as the placeholder limit allows:
// one for a record's line list. The columns are those any of the rows
// sets; a row without one stores NULL there.
func (t *Tx) Insert(ctx context.Context, tableName, company string, rows []store.Values) ([]int64, error) {
	tb, err := t.s.table(tableName)
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	var cols []*store.Column
	for _, c := range tb.allCols {
		for _, row := range rows {
			if _, set := row[c.Field]; set {
				cols = append(cols, c)
				break
			}
		}
	}
	for _, row := range rows {
		for field := range row {
			if tb.columns[field] == nil {
				return nil, fmt.Errorf("sqlstore: table %s has no column %q", tb.Name, field)
			}
		}
	}
	names := make([]string, 0, len(cols)+1)
	if tb.Company {
		names = append(names, sqldb.Quote(companyColumn))
	}
	for _, c := range cols {
		names = append(names, sqldb.Quote(c.Name))
	}
	width := max(len(names), 1)
	rowSQL := "(" + sqldb.Placeholders(len(names)) + ")"
	if len(names) == 0 {
		rowSQL = "(DEFAULT)" // not reached: every table has a column
	}
	head := "INSERT INTO " + tb.name + " (" + strings.Join(names, ", ") + ") VALUES "
	tail := ""
	if tb.Seq {
		tail = ` RETURNING "seq"`
	}
	perStatement := min(maxRowsPerInsert, maxArgs/width)
	seqs := make([]int64, 0, len(rows))
	for start := 0; start < len(rows); start += perStatement {
		chunk := rows[start:min(start+perStatement, len(rows))]
		args := make([]any, 0, len(chunk)*width)
		for _, row := range chunk {
			if tb.Company {
				args = append(args, company)
			}
			for _, c := range cols {
				args = append(args, toDB(c, row[c.Field]))
			}
		}
		query := head + strings.TrimSuffix(strings.Repeat(rowSQL+", ", len(chunk)), ", ") + tail
		got, err := t.insertChunk(ctx, tb, query, args)
		if err != nil {
			return nil, err
		}
		seqs = append(seqs, got...)
	}
	if tb.Counted {
		t.addCount(tb.Name, company, int64(len(rows)))
	}
	if !tb.Seq {
		return make([]int64, len(rows)), nil
	}
	return seqs, nil
}

// insertChunk runs one INSERT and returns the seqs it gave, in the order
// of its rows. Both databases number the rows of one INSERT in the order
// of its VALUES (SQLite's AUTOINCREMENT one after the other, PostgreSQL
// calling nextval row by row), while RETURNING may list them in any
// order: sorted, they are the rows' seqs in order.
func (t *Tx) insertChunk(ctx context.Context, tb *table, query string, args []any) ([]int64, error) {
	if !tb.Seq {
		_, err := sqldb.Exec(ctx, t.tx, query, args...)
		return nil, t.duplicate(tb, err)
	}
	rows, err := t.tx.QueryContext(ctx, t.tx.Rebind(query), args...)
	if err != nil {
		return nil, t.duplicate(tb, err)
	}
	defer rows.Close()
	var seqs []int64
	for rows.Next() {
		var seq int64
		if err := rows.Scan(&seq); err != nil {
			return nil, err
		}
		seqs = append(seqs, seq)
	}
	if err := rows.Err(); err != nil {
		return nil, t.duplicate(tb, err)
	}
	slices.Sort(seqs)
	return seqs, nil
}

// duplicate turns a unique violation into a *store.DuplicateError.
func (t *Tx) duplicate(tb *table, err error) error {
	if err != nil && t.s.db.Dialect().IsUniqueViolation(err) {
		return fmt.Errorf("%w: %w", &store.DuplicateError{Table: tb.Name}, err)
	}
	return err
}

// Update sets columns of the matching rows.
func (t *Tx) Update(ctx context.Context, tableName, company string, where []store.Cond, set store.Values) (int64, error) {
	tb, err := t.s.table(tableName)
	if err != nil {
		return 0, err
	}
	if len(set) == 0 {
		return t.s.count(ctx, t.tx, store.Select{Table: tableName, Company: company, Where: where})
	}
	var b strings.Builder
	b.WriteString("UPDATE " + tb.name + " SET ")
	args := make([]any, 0, len(set)+len(where)+1)
	first := true
	for _, c := range tb.allCols { // schema order: the same text for the same fields
		v, ok := set[c.Field]
		if !ok {
			continue
		}
		if !first {
			b.WriteString(", ")
		}
		first = false
		b.WriteString(sqldb.Quote(c.Name) + " = ?")
		args = append(args, toDB(c, v))
	}
	for field := range set {
		if tb.columns[field] == nil {
			return 0, fmt.Errorf("sqlstore: table %s has no column %q", tb.Name, field)
		}
	}
	args, err = t.s.where(&b, tb, company, where, args)
	if err != nil {
		return 0, err
	}
	n, err := sqldb.ExecAffected(ctx, t.tx, b.String(), args...)
	return n, t.duplicate(tb, err)
}

// Upsert inserts a row or updates the one its conflict columns name.
func (t *Tx) Upsert(ctx context.Context, tableName, company string, row store.Values, conflict, replace []string) error {
	tb, err := t.s.table(tableName)
	if err != nil {
		return err
	}
	var names, targets, sets []string
	var args []any
	if tb.Company {
		names, targets = append(names, sqldb.Quote(companyColumn)), append(targets, sqldb.Quote(companyColumn))
		args = append(args, company)
	}
	for _, c := range tb.allCols {
		if v, ok := row[c.Field]; ok {
			names = append(names, sqldb.Quote(c.Name))
			args = append(args, toDB(c, v))
		}
	}
	for _, field := range conflict {
		col, _, err := tb.column(field)
		if err != nil {
			return err
		}
		targets = append(targets, col)
	}
	for _, field := range replace {
		col, _, err := tb.column(field)
		if err != nil {
			return err
		}
		sets = append(sets, col+" = excluded."+col)
	}
	action := "DO NOTHING"
	if len(sets) > 0 {
		action = "DO UPDATE SET " + strings.Join(sets, ", ")
	}
	query := "INSERT INTO " + tb.name + " (" + strings.Join(names, ", ") + ") VALUES (" + sqldb.Placeholders(len(args)) + ")" +
		" ON CONFLICT (" + strings.Join(targets, ", ") + ") " + action
	if !tb.Counted {
		_, err = sqldb.Exec(ctx, t.tx, query, args...)
		return t.duplicate(tb, err)
	}
	// A counted table counts only the rows the upsert inserted.
	inserted, err := t.s.count(ctx, t.tx, store.Select{Table: tableName, Company: company, Where: conflictConds(conflict, row)})
	if err != nil {
		return err
	}
	if _, err := sqldb.Exec(ctx, t.tx, query, args...); err != nil {
		return t.duplicate(tb, err)
	}
	if inserted == 0 {
		t.addCount(tb.Name, company, 1)
	}
	return nil
}

// conflictConds are the conditions that find the row an upsert may meet.
func conflictConds(conflict []string, row store.Values) []store.Cond {
	conds := make([]store.Cond, len(conflict))
	for i, f := range conflict {
		conds[i] = store.Equal(f, row[f])
	}
	return conds
}

// Delete removes the matching rows.
func (t *Tx) Delete(ctx context.Context, tableName, company string, where []store.Cond) (int64, error) {
	tb, err := t.s.table(tableName)
	if err != nil {
		return 0, err
	}
	var b strings.Builder
	b.WriteString("DELETE FROM " + tb.name)
	args, err := t.s.where(&b, tb, company, where, nil)
	if err != nil {
		return 0, err
	}
	n, err := sqldb.ExecAffected(ctx, t.tx, b.String(), args...)
	if err == nil && tb.Counted && n > 0 {
		t.addCount(tb.Name, company, -n)
	}
	return n, err
}
