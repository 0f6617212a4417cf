package memstore

import (
	"fmt"
	"maps"
	"reflect"
	"slices"

	"fieldapi/engine/store"
)

// table is a schema table and what the store derives from it.
type table struct {
	*store.Table
	uniques []store.Index // the primary key (named "") and the unique indexes
	last    int64         // the newest row's seq: moved by the writer, kept by a rollback
}

// row is a stored row: its columns by Field (an absent one is NULL) and,
// under store.SeqField, its seq, the insert order across the table (a Seq
// table's Seq), so conditions and orders read both alike. A company's rows
// are in no order (reads sort them) and a row never changes (a change
// makes a new one), so states share rows.
type row = store.Values

func newTable(st *store.Table) *table {
	uniques := slices.DeleteFunc(slices.Clone(st.Indexes), func(ix store.Index) bool { return !ix.Unique })
	if len(st.Key) > 0 { // none in a Seq table (Schema.Check)
		uniques = slices.Insert(uniques, 0, store.Index{Fields: st.Key, Unique: true})
	}
	return &table{Table: st, uniques: uniques}
}

// key is what a state keeps a company's rows of the table under.
func (t *table) key(company string) [2]string {
	if !t.Company {
		company = ""
	}
	return [2]string{t.Name, company}
}

func (t *table) noColumn(field string) error {
	return fmt.Errorf("memstore: table %s has no column %q", t.Name, field)
}

// values checks the values a caller passed and returns a copy of them.
func (t *table) values(in store.Values) (store.Values, error) {
	out := make(store.Values, len(in))
	for f, v := range in {
		if t.Column(f) == nil {
			return nil, t.noColumn(f)
		}
		var err error
		if out[f], err = t.value(f, v); err != nil {
			return nil, err
		}
	}
	return out, nil
}

var goTypes = [...]reflect.Type{store.Text: reflect.TypeFor[string](), store.Number: reflect.TypeFor[float64](),
	store.Int: reflect.TypeFor[int64](), store.Bool: reflect.TypeFor[bool](), store.Bytes: reflect.TypeFor[[]byte](),
	store.List: reflect.TypeFor[[]string](), store.Object: reflect.TypeFor[map[string]string]()}

// value checks that field is a column (or the Seq) and v nil or of its Go
// type, and returns a copy of v. Nil bytes are NULL, as the SQL drivers
// store them.
func (t *table) value(field string, v any) (any, error) {
	typ := store.Int // the Seq's
	if c := t.Column(field); c != nil {
		typ = c.Type
	} else if field != store.SeqField || !t.Seq {
		return nil, t.noColumn(field)
	}
	if v != nil && (int(typ) >= len(goTypes) || reflect.TypeOf(v) != goTypes[typ]) {
		return nil, fmt.Errorf("memstore: %s.%s (type %d) cannot hold a %T", t.Name, field, typ, v)
	}
	if b, isBytes := v.([]byte); isBytes && b == nil {
		return nil, nil
	}
	return copyValue(v), nil
}

// copyValue is a copy of a value that shares nothing with it; a nil list
// or object is an empty one (the SQL store reads them back so).
func copyValue(v any) any {
	switch x := v.(type) {
	case []byte:
		return append([]byte{}, x...)
	case []string:
		return append([]string{}, x...)
	case map[string]string:
		return maps.Collect(maps.All(x))
	}
	return v
}

// put makes rows a company's rows in st if those from from on, which the
// call wrote, leave no NotNull column NULL and repeat no unique key (in
// SQL, NULLs never collide).
func (t *table) put(st *state, company string, rows []row, from int) error {
	for i, r := range rows[from:] {
		for _, c := range t.Columns {
			if c.NotNull && r[c.Field] == nil {
				return fmt.Errorf("memstore: %s.%s must not be NULL", t.Name, c.Field)
			}
		}
		for _, ix := range t.uniques {
			for j, other := range rows {
				if j != from+i && !slices.ContainsFunc(ix.Fields, func(f string) bool { return !store.SameValue(r[f], other[f]) }) {
					return fmt.Errorf("memstore: %w", &store.DuplicateError{Table: t.Name, Index: ix.Name})
				}
			}
		}
	}
	st.rows[t.key(company)] = rows
	return nil
}

// read returns the found rows a query asks for, as it reads them.
func (t *table) read(found []row, q store.Select) ([]store.Row, error) {
	fields := q.Columns
	if fields == nil {
		for _, c := range t.Columns {
			fields = append(fields, c.Field)
		}
	}
	for _, f := range fields {
		if t.Column(f) == nil {
			return nil, t.noColumn(f)
		}
	}
	found, err := t.order(found, q)
	if err != nil {
		return nil, err
	}
	found = found[min(max(q.Offset, 0), len(found)):]
	if q.Limit > 0 && q.Limit < len(found) {
		found = found[:q.Limit]
	}
	out := make([]store.Row, len(found))
	for i, r := range found {
		out[i].Values = make(store.Values, len(fields)+len(q.Exprs))
		if t.Seq {
			out[i].Seq = r[store.SeqField].(int64)
		}
		for _, f := range fields {
			out[i].Values[f] = copyValue(r[f])
		}
		for _, x := range q.Exprs {
			out[i].Values[x.Name] = store.EvalExpr(x.Text, func(name string) (any, bool) {
				for _, c := range t.Columns {
					if c.Name == name {
						return r[c.Field], true
					}
				}
				return nil, false
			})
		}
	}
	return out, nil
}

// order sorts found rows by q.OrderBy, ties in insert order, and with
// q.After keeps those after it.
func (t *table) order(found []row, q store.Select) ([]row, error) {
	if err := store.CheckAfter(q); err != nil {
		return nil, err
	}
	after := row{} // q.After by field
	for i, o := range q.OrderBy {
		if _, err := t.value(o.Field, nil); err != nil { // an unknown field
			return nil, err
		}
		if q.After != nil {
			after[o.Field] = q.After[i]
		}
	}
	byKeys := append(slices.Clip(q.OrderBy), store.Order{Field: store.SeqField})
	slices.SortFunc(found, func(a, b row) int { return store.CompareRows(byKeys, a, b) })
	if q.After != nil {
		found = slices.DeleteFunc(found, func(r row) bool { return store.CompareRows(q.OrderBy, r, after) <= 0 })
	}
	return found, nil
}

// matcher compiles conditions into one test of rows (store.Matcher), each
// field and operand checked against the column.
func (t *table) matcher(conds []store.Cond) (func(row) bool, error) {
	tests := make([]func(row) bool, len(conds))
	for i, c := range conds {
		args, err := store.Operands(c)
		if err != nil {
			return nil, fmt.Errorf("memstore: table %s: %w", t.Name, err)
		}
		if _, err := t.value(c.Field, nil); err != nil { // an unknown field
			return nil, err
		}
		list := make([]any, len(args)) // args may be the caller's c.Values
		for j, a := range args {
			if list[j], err = t.value(c.Field, a); err != nil {
				return nil, err
			}
		}
		match := store.Matcher(c, list)
		tests[i] = func(r row) bool { return match(r[c.Field]) }
	}
	return func(r row) bool {
		return !slices.ContainsFunc(tests, func(test func(row) bool) bool { return !test(r) })
	}, nil
}
