package sqlstore

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"fieldapi/engine/sqldb"
	"fieldapi/engine/store"
)

// maxArgs keeps a statement under both databases' limit on placeholders
// (SQLite 32766, PostgreSQL 65535).
const maxArgs = 30000

// maxRowsPerInsert caps the rows of one INSERT statement.
const maxRowsPerInsert = 500

// Insert adds rows in as few statements as the placeholder limit allows.
// The columns are those any of the rows sets; the others store NULL.
func (t *Tx) Insert(ctx context.Context, tableName, company string, rows []store.Values) ([]int64, error) {
	seqs, _, err := t.InsertEach(ctx, []store.Insertion{{Table: tableName, Company: company, Rows: rows}}, nil)
	if failed := (*store.InsertionError)(nil); errors.As(err, &failed) {
		return nil, failed.Err
	} else if err != nil {
		return nil, err
	}
	return seqs[0], nil
}

// Append inserts rows as Insert does, without reading their Seqs back,
// queued (sqldb.Tx.ExecLaterRows): a table's rows queued between two
// statements of the transaction go in one INSERT. For rows that repeat
// no unique index, and that nothing else queued reads or changes.
func (t *Tx) Append(ctx context.Context, tableName, company string, rows []store.Values) error {
	tb, err := t.s.table(tableName)
	if err != nil || len(rows) == 0 {
		return err
	}
	ins, err := tb.insertion(rows)
	if err != nil {
		return err
	}
	if !ins.numbered {
		return t.queueRows(ctx, ins, company, rows, nil, func(err error) error { return t.duplicate(tb, err) })
	}
	// The statement numbers the rows itself (buildInsertSQL): not a plain
	// VALUES list to merge.
	for _, q := range t.s.insertStatements(ins, company, rows) {
		if err := t.duplicate(tb, t.tx.ExecLater(ctx, nil, q.SQL, q.Args...)); err != nil {
			return err
		}
	}
	t.addCount(tb, company, int64(len(rows)))
	return nil
}

// queueRows queues the INSERTs of rows, their Seqs given when seqs is,
// and counts them.
func (t *Tx) queueRows(ctx context.Context, ins insertion, company string, rows []store.Values, seqs []int64, named func(error) error) error {
	head, row := ins.valuesParts()
	perStatement := ins.perStatement()
	for start := 0; start < len(rows); start += perStatement {
		end := min(start+perStatement, len(rows))
		var chunkSeqs []int64
		if seqs != nil {
			chunkSeqs = seqs[start:end]
		}
		if err := t.tx.ExecLaterRows(ctx, named, head, row, end-start, ins.args(company, rows[start:end], chunkSeqs)); err != nil {
			return err
		}
	}
	t.addCount(ins.tb, company, int64(len(rows)))
	return nil
}

// InsertEach runs the inserts, then the selects, all their statements
// together: PostgreSQL is sent them in one round trip (sqldb.Tx.ReadEach).
func (t *Tx) InsertEach(ctx context.Context, list []store.Insertion, reads []store.Select) ([][]int64, [][]store.Row, error) {
	var queries []sqldb.Query
	var of []int // the insertion each insert query belongs to
	tables := make([]*table, len(list))
	for i, in := range list {
		tb, err := t.s.table(in.Table)
		if err != nil {
			return nil, nil, &store.InsertionError{Index: i, Err: err}
		}
		if len(in.Rows) == 0 {
			continue
		}
		ins, err := tb.insertion(in.Rows)
		if err != nil {
			return nil, nil, &store.InsertionError{Index: i, Err: err}
		}
		for _, q := range t.s.insertStatements(ins, in.Company, in.Rows) {
			if tb.Seq {
				q.SQL += ` RETURNING "seq"`
			}
			queries, of = append(queries, q), append(of, i)
		}
		tables[i] = tb
	}
	inserts := len(queries)
	queries, after, err := t.s.selectsAfter(queries, reads, true)
	if err != nil {
		return nil, nil, err
	}
	seqs := make([][]int64, len(list))
	done := 0 // the inserts read whole
	err = t.tx.ReadEach(ctx, queries, func(i int, r sqldb.Rows) error {
		if i >= inserts {
			return after.scan(i, r)
		}
		got, err := scanSeqs(r)
		seqs[of[i]] = append(seqs[of[i]], got...)
		if err == nil {
			done++
		}
		return err
	})
	if err != nil && done < inserts {
		failed := of[done]
		return nil, nil, &store.InsertionError{Index: failed, Err: t.duplicate(tables[failed], err)}
	} else if err != nil {
		return nil, nil, err
	}
	for i, tb := range tables {
		if tb == nil {
			continue
		}
		t.addCount(tb, list[i].Company, int64(len(list[i].Rows)))
		if !tb.Seq {
			seqs[i] = make([]int64, len(list[i].Rows))
		}
	}
	return seqs, after.rows, nil
}

// insertStatements are the INSERTs of rows, perStatement rows each.
func (s *Store) insertStatements(ins insertion, company string, rows []store.Values) []sqldb.Query {
	var out []sqldb.Query
	for chunk := range slices.Chunk(rows, ins.perStatement()) {
		out = append(out, sqldb.Query{SQL: s.insertSQL(ins, len(chunk)), Args: ins.args(company, chunk, nil)})
	}
	return out
}

// insertion is how rows go into a table: the columns any of them sets,
// and whether the statement numbers them itself, because a row leaves a
// SeqText column empty (the columns are then every SeqText one too).
type insertion struct {
	tb       *table
	cols     []*store.Column
	numbered bool
	seqs     bool   // each row's Seq is given, first of its values (InsertLater)
	shape    string // the cols by their place in the table, two bytes each: the key of the statement's text
}

// insertion says how rows go into t, refusing a field that is no column.
func (t *table) insertion(rows []store.Values) (insertion, error) {
	for _, row := range rows {
		for field := range row {
			if t.columns[field] == nil {
				return insertion{}, fmt.Errorf("sqlstore: table %s has no column %q", t.Name, field)
			}
		}
	}
	ins := insertion{tb: t}
	var shape []byte
	var unset []int // the SeqText columns no row sets, by place in allCols
	for i, c := range t.allCols {
		set, empty := false, false
		for _, row := range rows {
			v, ok := row[c.Field]
			set, empty = set || ok, empty || v == nil
		}
		ins.numbered = ins.numbered || c.SeqText && empty
		if set {
			ins.cols = append(ins.cols, c)
			shape = binary.BigEndian.AppendUint16(shape, uint16(i))
		} else if c.SeqText {
			unset = append(unset, i)
		}
	}
	if ins.numbered {
		for _, i := range unset {
			ins.cols = append(ins.cols, t.allCols[i])
			shape = binary.BigEndian.AppendUint16(shape, uint16(i))
		}
	}
	ins.shape = string(shape)
	return ins, nil
}

// columnNames are the insertion's columns, quoted, in the order of each
// row's values: its Seq when given, its company, its columns.
func (ins insertion) columnNames() []string {
	names := make([]string, 0, len(ins.cols)+2)
	if ins.seqs {
		names = append(names, sqldb.Quote(seqColumn))
	}
	if ins.tb.Company {
		names = append(names, sqldb.Quote(companyColumn))
	}
	for _, c := range ins.cols {
		names = append(names, sqldb.Quote(c.Name))
	}
	return names
}

// valuesParts are an INSERT ... VALUES of rows given whole (not
// numbered): its text up to VALUES, and one row's values. Remembered:
// building them anew for each write of an atomic batch was 3 % of a
// PostgreSQL batch's CPU.
func (ins insertion) valuesParts() (head, row string) {
	parts := remembered(ins.tb, insertKey{shape: ins.shape, seqs: ins.seqs}, func() [2]string {
		names := ins.columnNames()
		row := "(" + sqldb.Placeholders(len(names)) + ")"
		if len(names) == 0 {
			row = "(DEFAULT)" // not reached: every table has a column
		}
		return [2]string{"INSERT INTO " + ins.tb.name + " (" + strings.Join(names, ", ") + ") VALUES ", row}
	})
	return parts[0], parts[1]
}

// width is the number of values of each row (columnNames).
func (ins insertion) width() int {
	n := len(ins.cols)
	if ins.seqs {
		n++
	}
	if ins.tb.Company {
		n++
	}
	return max(n, 1)
}

// perStatement is how many rows one INSERT of the insertion carries.
func (ins insertion) perStatement() int { return min(maxRowsPerInsert, maxArgs/ins.width()) }

// args are the values of the rows, row after row, each row's Seq first
// when the insertion gives them (seqs, one per row).
func (ins insertion) args(company string, rows []store.Values, seqs []int64) []any {
	args := make([]any, 0, len(rows)*ins.width())
	for i, row := range rows {
		if ins.seqs {
			args = append(args, seqs[i])
		}
		if ins.tb.Company {
			args = append(args, company)
		}
		for _, c := range ins.cols {
			args = append(args, toDB(c, row[c.Field]))
		}
	}
	return args
}

// insertSQL is the INSERT of n rows, without RETURNING or ON CONFLICT,
// remembered (building it was a twentieth of a PostgreSQL create's
// allocations): INSERT ... VALUES, or, when the statement numbers the
// rows, an INSERT ... SELECT from the rows numbered once each in the order
// of VALUES (a materialized WITH), whose empty SeqText columns take it.
func (s *Store) insertSQL(ins insertion, n int) string {
	return remembered(ins.tb, insertKey{ins.shape, ins.numbered, ins.seqs, n}, func() string { return s.buildInsertSQL(ins, n) })
}

// insertKey names the text of an INSERT into one table: which columns,
// whether it numbers the rows, and how many rows (0: valuesParts).
type insertKey struct {
	shape    string
	numbered bool
	seqs     bool
	rows     int
}

// maxInsertTexts bounds a table's remembered INSERT texts.
const maxInsertTexts = 256

// remembered is the table's text under key, built and remembered on
// first use.
func remembered[T any](tb *table, key insertKey, build func() T) T {
	if text, ok := tb.inserts.Load(key); ok {
		return text.(T)
	}
	text := build()
	if tb.insertsSize.Load() < maxInsertTexts {
		if _, loaded := tb.inserts.LoadOrStore(key, text); !loaded {
			tb.insertsSize.Add(1)
		}
	}
	return text
}

func (s *Store) buildInsertSQL(ins insertion, n int) string {
	if !ins.numbered {
		head, row := ins.valuesParts()
		return head + strings.TrimSuffix(strings.Repeat(row+", ", n), ", ")
	}
	names := ins.columnNames()
	d := s.db.Dialect()
	// VALUES names its columns column1, column2, ... in both databases:
	// column1 is the row's ordinal, then come its company and columns.
	seq := sqldb.Quote(seqColumn)
	params := make([]string, 0, len(names))
	selected := []string{seq}
	if ins.tb.Company {
		params = append(params, d.TypedParam("TEXT"))
		selected = append(selected, `"column2"`)
	}
	for _, c := range ins.cols {
		params = append(params, d.TypedParam(s.columnType(c)))
		value := fmt.Sprintf(`"column%d"`, len(selected)+1)
		if c.SeqText {
			value = "COALESCE(" + value + ", CAST(" + seq + " AS TEXT))"
		}
		selected = append(selected, value)
	}
	rows := make([]string, n)
	for i := range rows {
		rows[i] = "(" + strconv.Itoa(i+1) + ", " + strings.Join(params, ", ") + ")"
	}
	return `WITH "numbered" AS MATERIALIZED (SELECT ` + d.InsertedSeq(ins.tb.Name, `"v"."column1"`) + ` AS ` + seq +
		`, "v".* FROM (VALUES ` + strings.Join(rows, ", ") + `) AS "v" ORDER BY "v"."column1") ` +
		"INSERT INTO " + ins.tb.name + " (" + seq + ", " + strings.Join(names, ", ") + ") " +
		"SELECT " + strings.Join(selected, ", ") + ` FROM "numbered" WHERE true` // WHERE: SQLite's parser wants it before ON CONFLICT
}

// scanSeqs reads the seqs an INSERT ... RETURNING "seq" gave (or numbers
// a series' nextvals), sorted: the seqs of its rows in order. Both databases number the rows in the
// order of VALUES (a numbered insertion by their ordinals), while
// RETURNING may list them in any order.
func scanSeqs(rows sqldb.Rows) ([]int64, error) {
	var seqs []int64
	for rows.Next() {
		var seq int64
		if err := rows.Scan(&seq); err != nil {
			return nil, err
		}
		seqs = append(seqs, seq)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	slices.Sort(seqs)
	return seqs, nil
}

// duplicate turns a unique violation into a *store.DuplicateError naming
// the index it hit.
func (t *Tx) duplicate(tb *table, err error) error {
	hit, index, columns := t.s.db.Dialect().UniqueViolation(err)
	if !hit {
		return err
	}
	return fmt.Errorf("%w: %w", &store.DuplicateError{Table: tb.Name, Index: tb.violated(index, columns)}, err)
}

// violated is the unique index of the table a violation names, by its name
// or by its columns, or "" when none matches.
func (tb *table) violated(index string, columns []string) string {
	for _, ix := range tb.Indexes {
		if ix.Unique && (index != "" && ix.Name == index || columns != nil && slices.Equal(columns, tb.indexColumns(ix))) {
			return ix.Name
		}
	}
	return ""
}

// indexColumns are an index's columns as SQLite names them in a violation:
// table-qualified, the company first.
func (tb *table) indexColumns(ix store.Index) []string {
	var cols []string
	if tb.Company {
		cols = append(cols, tb.Name+"."+companyColumn)
	}
	for _, f := range ix.Fields {
		if c := tb.columns[f]; c != nil {
			cols = append(cols, tb.Name+"."+c.Name)
		} else if f == store.SeqField {
			cols = append(cols, tb.Name+"."+seqColumn)
		}
	}
	return cols
}

// Update sets columns of the matching rows.
func (t *Tx) Update(ctx context.Context, tableName, company string, where []store.Cond, set store.Values) (int64, error) {
	if len(set) == 0 {
		return t.s.count(ctx, t.tx, store.Select{Table: tableName, Company: company, Where: where})
	}
	tb, q, err := t.s.updateQuery(tableName, company, where, set)
	if err != nil {
		return 0, err
	}
	n, err := sqldb.ExecAffected(ctx, t.tx, q.SQL, q.Args...)
	return n, t.duplicate(tb, err)
}

// UpdateLater runs an UPDATE as Update does, without its count, queued
// (sqldb.Tx.ExecLater).
func (t *Tx) UpdateLater(ctx context.Context, tableName, company string, where []store.Cond, set store.Values) error {
	if len(set) == 0 {
		_, err := t.s.table(tableName)
		return err
	}
	tb, q, err := t.s.updateQuery(tableName, company, where, set)
	if err != nil {
		return err
	}
	return t.tx.ExecLater(ctx, func(err error) error { return t.duplicate(tb, err) }, q.SQL, q.Args...)
}

// UpdateThenSelect is Update with the selects after it, sent together
// (store.EachUpdater): the UPDATE returns a row for each it changed.
func (t *Tx) UpdateThenSelect(ctx context.Context, tableName, company string, where []store.Cond, set store.Values, reads []store.Select) (int64, [][]store.Row, error) {
	tb, update, err := t.s.updateQuery(tableName, company, where, set)
	if err != nil {
		return 0, nil, err
	}
	update.SQL += " RETURNING 1"
	queries, after, err := t.s.selectsAfter([]sqldb.Query{update}, reads, true)
	if err != nil {
		return 0, nil, err
	}
	var n int64
	updated := false
	err = t.tx.ReadEach(ctx, queries, func(i int, r sqldb.Rows) error {
		if i > 0 {
			return after.scan(i, r)
		}
		for r.Next() {
			n++
		}
		updated = r.Err() == nil
		return r.Err()
	})
	if err != nil && !updated {
		return 0, nil, t.duplicate(tb, err)
	}
	return n, after.rows, err
}

// updateQuery is the UPDATE of set's fields in the rows where names.
func (s *Store) updateQuery(tableName, company string, where []store.Cond, set store.Values) (*table, sqldb.Query, error) {
	tb, err := s.table(tableName)
	if err != nil {
		return nil, sqldb.Query{}, err
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
			return nil, sqldb.Query{}, fmt.Errorf("sqlstore: table %s has no column %q", tb.Name, field)
		}
	}
	if args, err = s.where(&b, tb, company, where, args); err != nil {
		return nil, sqldb.Query{}, err
	}
	return tb, sqldb.Query{SQL: b.String(), Args: args}, nil
}

// Upsert inserts a row or updates the one its conflict columns name.
func (t *Tx) Upsert(ctx context.Context, tableName, company string, row store.Values, conflict, replace []string) error {
	tb, err := t.s.table(tableName)
	if err != nil {
		return err
	}
	rows := []store.Values{row}
	ins, err := tb.insertion(rows)
	if err != nil {
		return err
	}
	args := ins.args(company, rows, nil)
	targets, err := tb.keyColumns(conflict)
	if err != nil {
		return err
	}
	var sets []string
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
	query := t.s.insertSQL(ins, 1) + " ON CONFLICT (" + strings.Join(targets, ", ") + ") " + action
	var met int64 // a counted table counts only the rows the upsert inserted
	if tb.Counted {
		where := make([]store.Cond, len(conflict))
		for i, f := range conflict {
			where[i] = store.Equal(f, row[f])
		}
		if met, err = t.s.count(ctx, t.tx, store.Select{Table: tableName, Company: company, Where: where}); err != nil {
			return err
		}
	}
	if _, err := sqldb.Exec(ctx, t.tx, query, args...); err != nil {
		return t.duplicate(tb, err)
	}
	if met == 0 {
		t.addCount(tb, company, 1)
	}
	return nil
}

// Delete removes the matching rows.
func (t *Tx) Delete(ctx context.Context, tableName, company string, where []store.Cond) (int64, error) {
	tb, query, args, err := t.s.filtered("DELETE FROM ", store.Select{Table: tableName, Company: company, Where: where})
	if err != nil {
		return 0, err
	}
	n, err := sqldb.ExecAffected(ctx, t.tx, query, args...)
	if err == nil {
		t.addCount(tb, company, -n)
	}
	return n, err
}
