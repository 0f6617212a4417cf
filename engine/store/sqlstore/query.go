package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"fieldapi/engine/sqldb"
	"fieldapi/engine/store"
)

// selectRows runs a Select on q. inTx allows ForUpdate.
func (s *Store) selectRows(ctx context.Context, q sqldb.Querier, sel store.Select, inTx bool) ([]store.Row, error) {
	built, err := s.buildSelect(sel, inTx)
	if err != nil {
		return nil, err
	}
	rows, err := q.QueryContext(ctx, q.Rebind(built.query.SQL), built.query.Args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return built.scan(rows)
}

// builtSelect is a Select as SQL, and how to read its rows.
type builtSelect struct {
	query sqldb.Query // with ? placeholders
	t     *table
	cols  []*store.Column
	exprs []store.Expr
}

// buildSelect writes a Select's SQL. inTx allows ForUpdate.
func (s *Store) buildSelect(sel store.Select, inTx bool) (builtSelect, error) {
	t, err := s.table(sel.Table)
	if err != nil {
		return builtSelect{}, err
	}
	cols := t.allCols
	list := t.allSQL
	if sel.Columns != nil {
		if cols, list, err = t.selectList(sel.Columns); err != nil {
			return builtSelect{}, err
		}
	}
	var b strings.Builder
	b.WriteString("SELECT ")
	b.WriteString(list)
	for i, x := range sel.Exprs {
		// The expressions are the company's administration's, kept as
		// written (they must not hold "?"); the alias is ours.
		fmt.Fprintf(&b, ", CAST((%s) AS TEXT) AS %s", x.Text, sqldb.Quote("x"+strconv.Itoa(i)))
	}
	b.WriteString(" FROM ")
	b.WriteString(t.name)
	args, err := s.where(&b, t, sel.Company, sel.Where, nil)
	if err != nil {
		return builtSelect{}, err
	}
	if sel.After != nil {
		b.WriteString(map[bool]string{true: " AND ", false: " WHERE "}[t.Company || len(sel.Where) > 0])
		if args, err = t.keyset(&b, sel, args); err != nil {
			return builtSelect{}, err
		}
	}
	if len(sel.OrderBy) > 0 {
		b.WriteString(" ORDER BY ")
		for i, o := range sel.OrderBy {
			col, _, err := t.column(o.Field)
			if err != nil {
				return builtSelect{}, err
			}
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(col)
			if o.Desc {
				b.WriteString(" DESC")
			}
			if o.NullsLast {
				b.WriteString(" NULLS LAST")
			}
		}
	}
	if sel.Limit > 0 || sel.Offset > 0 {
		limit := sel.Limit
		if limit <= 0 {
			limit = -1 // SQLite's "no limit"; PostgreSQL takes LIMIT ALL
		}
		if limit < 0 && s.db.Dialect().Postgres() {
			b.WriteString(" LIMIT ALL OFFSET ?")
			args = append(args, sel.Offset)
		} else {
			b.WriteString(" LIMIT ? OFFSET ?")
			args = append(args, limit, sel.Offset)
		}
	}
	if sel.ForUpdate && inTx {
		b.WriteString(s.db.Dialect().ForUpdate())
	}
	return builtSelect{query: sqldb.Query{SQL: b.String(), Args: args}, t: t, cols: cols, exprs: sel.Exprs}, nil
}

// scan reads the rows of a built Select.
func (bs builtSelect) scan(rows sqldb.Rows) ([]store.Row, error) {
	t, cols := bs.t, bs.cols
	var out []store.Row
	width := len(cols) + len(bs.exprs)
	if t.Seq {
		width++
	}
	if got, err := rows.Columns(); err != nil {
		return nil, err
	} else if len(got) != width {
		return nil, fmt.Errorf("sqlstore: %s: %d columns read, %d expected", t.Name, len(got), width)
	}
	// One destination for every row: Scan into *any copies what the
	// driver hands out, so each row's values are its own.
	scanned := make([]any, width)
	dest := make([]any, width)
	for i := range dest {
		dest[i] = &scanned[i]
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		raw := scanned
		// Room for one member more, as a caller may add (a key). A map's
		// table holds more than it is sized for, up to a power of two, so
		// one more rarely makes it grow, while asking room for several
		// doubled the table of many rows (a material line's 26 columns).
		row := store.Row{Values: make(store.Values, len(cols)+len(bs.exprs)+1)}
		if t.Seq {
			seq, ok := sqldb.AsInt64(raw[0])
			if !ok {
				return nil, fmt.Errorf("sqlstore: %s: unexpected seq %T", t.Name, raw[0])
			}
			row.Seq, raw = seq, raw[1:]
		}
		for i, c := range cols {
			v, err := fromDB(c, raw[i])
			if err != nil {
				return nil, fmt.Errorf("sqlstore: %s.%s: %w", t.Name, c.Field, err)
			}
			row.Values[c.Field] = v
		}
		for i, x := range bs.exprs {
			row.Values[x.Name] = sqldb.AsText(raw[len(cols)+i])
		}
		out = append(out, row)
	}
	return out, rows.Err()
}

// selectList is the columns of a Select that names them.
func (t *table) selectList(fields []string) ([]*store.Column, string, error) {
	cols := make([]*store.Column, 0, len(fields))
	names := make([]string, 0, len(fields)+1)
	if t.Seq {
		names = append(names, sqldb.Quote(seqColumn))
	}
	for _, f := range fields {
		c := t.columns[f]
		if c == nil {
			return nil, "", fmt.Errorf("sqlstore: table %s has no column %q", t.Name, f)
		}
		cols = append(cols, c)
		names = append(names, sqldb.Quote(c.Name))
	}
	return cols, strings.Join(names, ", "), nil
}

// count runs a Select's conditions as a COUNT.
func (s *Store) count(ctx context.Context, q sqldb.Querier, sel store.Select) (int64, error) {
	_, query, args, err := s.filtered("SELECT COUNT(*) FROM ", sel)
	if err != nil {
		return 0, err
	}
	var n int64
	return n, sqldb.Get(ctx, q, &n, query, args...)
}

// filtered is head, the table's name and the WHERE of a Select's
// conditions (count, estimate, Delete), with its args.
func (s *Store) filtered(head string, sel store.Select) (*table, string, []any, error) {
	t, err := s.table(sel.Table)
	if err != nil {
		return nil, "", nil, err
	}
	var b strings.Builder
	b.WriteString(head)
	b.WriteString(t.name)
	args, err := s.where(&b, t, sel.Company, sel.Where, nil)
	return t, b.String(), args, err
}

// where writes " WHERE company = ? AND ..." for the conditions and
// returns args with theirs appended.
func (s *Store) where(b *strings.Builder, t *table, company string, conds []store.Cond, args []any) ([]any, error) {
	joiner := " WHERE "
	if t.Company {
		b.WriteString(` WHERE "company" = ?`)
		args = append(args, company)
		joiner = " AND "
	}
	for _, c := range conds {
		b.WriteString(joiner)
		joiner = " AND "
		var err error
		if c.Op == store.InRows {
			args, err = s.inRows(b, t, c, args)
		} else {
			args, err = t.condition(b, c, args)
		}
		if err != nil {
			return nil, err
		}
	}
	return args, nil
}

// inRows writes the SQL of an InRows condition: the column IN a SELECT of
// the other table's column, with its own conditions.
func (s *Store) inRows(b *strings.Builder, t *table, c store.Cond, args []any) ([]any, error) {
	if err := store.CheckRows(c); err != nil {
		return nil, fmt.Errorf("sqlstore: %w", err)
	}
	sub := c.Rows
	col, _, err := t.column(c.Field)
	if err != nil {
		return nil, err
	}
	st, err := s.table(sub.Table)
	if err != nil {
		return nil, err
	}
	subCol, _, err := st.column(sub.Columns[0])
	if err != nil {
		return nil, err
	}
	b.WriteString(col + " IN (SELECT " + subCol + " FROM " + st.name)
	if args, err = s.where(b, st, sub.Company, sub.Where, args); err != nil {
		return nil, err
	}
	b.WriteString(")")
	return args, nil
}

// condition writes the SQL of one condition.
func (t *table) condition(b *strings.Builder, c store.Cond, args []any) ([]any, error) {
	col, column, err := t.column(c.Field)
	if err != nil {
		return nil, err
	}
	op := c.Op
	if op == store.Eq && c.Value == nil {
		op = store.IsNull
	}
	switch op {
	case store.IsNull, store.NotNull:
		b.WriteString(col + [...]string{store.IsNull: " IS NULL", store.NotNull: " IS NOT NULL"}[op])
		return args, nil
	case store.Eq, store.Lt, store.Le, store.Gt, store.Ge:
		b.WriteString(col + " " + [...]string{store.Eq: "=", store.Lt: "<", store.Le: "<=", store.Gt: ">", store.Ge: ">="}[op] + " ?")
		return append(args, toDB(column, c.Value)), nil
	case store.In, store.NotIn:
		if len(c.Values) == 0 {
			b.WriteString([...]string{store.In: "1 = 0", store.NotIn: "1 = 1"}[op])
			return args, nil
		}
		for _, v := range c.Values {
			args = append(args, toDB(column, v))
		}
		if op == store.In {
			b.WriteString(col + " IN (" + sqldb.Placeholders(len(c.Values)) + ")")
		} else {
			// NOT IN is unknown for NULL; a row without a value is "none of them".
			b.WriteString("(" + col + " IS NULL OR " + col + " NOT IN (" + sqldb.Placeholders(len(c.Values)) + "))")
		}
		return args, nil
	case store.Contains:
		b.WriteString(`LOWER(` + col + `) LIKE LOWER(CAST(? AS TEXT)) ESCAPE '\'`)
		return append(args, "%"+likeEscaper.Replace(sqldb.AsText(c.Value))+"%"), nil
	case store.Prefix:
		// substr counts characters in both dialects and compares exactly,
		// where LIKE would fold ASCII case on SQLite.
		prefix := sqldb.AsText(c.Value)
		b.WriteString("substr(" + col + ", 1, ?) = ?")
		return append(args, len([]rune(prefix)), prefix), nil
	}
	return nil, fmt.Errorf("sqlstore: unknown condition operator %d on %s", c.Op, c.Field)
}

// likeEscaper escapes the LIKE wildcards of a literal, with \ as escape.
var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// fromDB converts a value as the driver returns it into the column's
// type; one already of that type is returned as it came, not boxed anew.
func fromDB(c *store.Column, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch c.Type {
	case store.Number:
		switch n := v.(type) {
		case float64:
			return v, nil
		case int64:
			return float64(n), nil
		}
		return strconv.ParseFloat(sqldb.AsText(v), 64)
	case store.Int:
		if _, ok := v.(int64); ok {
			return v, nil
		}
		n, ok := sqldb.AsInt64(v)
		if !ok {
			return nil, fmt.Errorf("unexpected integer %T", v)
		}
		return n, nil
	case store.Bool:
		switch b := v.(type) {
		case bool:
			return v, nil
		case int64:
			return b != 0, nil
		}
		return nil, fmt.Errorf("unexpected bool %T", v)
	case store.Bytes:
		switch b := v.(type) {
		case []byte:
			return b, nil
		case string:
			return []byte(b), nil
		}
		return nil, fmt.Errorf("unexpected bytes %T", v)
	case store.List:
		var list []string
		if err := json.Unmarshal([]byte(sqldb.AsText(v)), &list); err != nil {
			return nil, err
		}
		if list == nil {
			list = []string{}
		}
		return list, nil
	case store.Object:
		var obj map[string]string
		if err := json.Unmarshal([]byte(sqldb.AsText(v)), &obj); err != nil {
			return nil, err
		}
		if obj == nil {
			obj = map[string]string{}
		}
		return obj, nil
	}
	if _, ok := v.(string); ok {
		return v, nil
	}
	return sqldb.AsText(v), nil
}

// toDB converts a value into a statement argument for the column (nil:
// the Seq, which takes an int64 as it is).
func toDB(c *store.Column, v any) any {
	if v == nil || c == nil {
		return v
	}
	switch c.Type {
	case store.List, store.Object:
		b, _ := json.Marshal(v) // []string and map[string]string always marshal
		return string(b)
	}
	return v
}

// selectsAfter are selects sent in one ReadEach after other statements
// (none for SelectEach; a write's for InsertEach, UpdateThenSelect): their
// rows, by select.
type selectsAfter struct {
	first int // the index of the first select among the queries
	built []builtSelect
	rows  [][]store.Row
}

// selectsAfter appends the statements of reads to queries. inTx allows
// ForUpdate.
func (s *Store) selectsAfter(queries []sqldb.Query, reads []store.Select, inTx bool) ([]sqldb.Query, *selectsAfter, error) {
	after := &selectsAfter{first: len(queries), built: make([]builtSelect, len(reads)), rows: make([][]store.Row, len(reads))}
	for i, sel := range reads {
		var err error
		if after.built[i], err = s.buildSelect(sel, inTx); err != nil {
			return nil, nil, err
		}
		queries = append(queries, after.built[i].query)
	}
	return queries, after, nil
}

// scan reads the rows of query i, one of the selects.
func (a *selectsAfter) scan(i int, r sqldb.Rows) (err error) {
	j := i - a.first
	a.rows[j], err = a.built[j].scan(r)
	return err
}
