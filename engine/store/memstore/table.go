package memstore

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"fieldapi/engine/store"
)

// table is a schema table with its rows.
type table struct {
	*store.Table
	cols    map[string]*store.Column // by Field
	fields  []string                 // every column's Field, in schema order
	uniques []*unique                // the primary key and the unique indexes
	rows    map[string][]*row        // by company ("" in a table without), in insert order
	last    int64                    // the ord of the newest row
}

// row is a stored row. Its values never change in place: an update gives
// the row a new map, and an undo puts the old one back.
type row struct {
	ord     int64 // insert order across the table: a Seq table's Seq
	company string
	vals    store.Values // by Field, a column absent being NULL; nil: not in the table
}

// unique is the primary key or a unique index: the row holding each key.
type unique struct {
	name   string // "" for the primary key
	fields []string
	rows   map[string]*row
}

func newTable(st *store.Table) *table {
	t := &table{Table: st, cols: map[string]*store.Column{}, rows: map[string][]*row{}}
	for i, c := range st.Columns {
		t.cols[c.Field], t.fields = &st.Columns[i], append(t.fields, c.Field)
	}
	key := store.Index{Fields: st.Key, Unique: !st.Seq && len(st.Key) > 0} // the primary key
	for _, ix := range append([]store.Index{key}, st.Indexes...) {
		if ix.Unique {
			t.uniques = append(t.uniques, &unique{name: ix.Name, fields: ix.Fields, rows: map[string]*row{}})
		}
	}
	return t
}

// company is the rows key of a call's company: "" in a table without.
func (t *table) company(c string) string {
	if t.Company {
		return c
	}
	return ""
}

func (t *table) noColumn(field string) error {
	return fmt.Errorf("memstore: table %s has no column %q", t.Name, field)
}

// read returns a copy of a row's fields and its expressions' values.
func (t *table) read(r *row, fields []string, exprs []store.Expr) store.Row {
	out := store.Row{Values: make(store.Values, len(fields)+len(exprs))}
	if t.Seq {
		out.Seq = r.ord
	}
	for _, f := range fields {
		out.Values[f] = copyValue(r.vals[f])
	}
	for _, x := range exprs {
		out.Values[x.Name] = evalExpr(x.Text, func(name string) (any, bool) {
			for _, c := range t.Columns {
				if c.Name == name {
					return r.vals[c.Field], true
				}
			}
			return nil, false
		})
	}
	return out
}

// values checks the values a caller passed and returns a copy of them.
func (t *table) values(in store.Values) (store.Values, error) {
	out := make(store.Values, len(in))
	for f, v := range in {
		if t.cols[f] == nil {
			return nil, t.noColumn(f)
		}
		var err error
		if out[f], err = t.value(f, v); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// fillSeqText puts a new row's Seq in each SeqText column its values
// leave empty (absent or nil).
func (t *table) fillSeqText(vals store.Values, seq int64) {
	for _, c := range t.Columns {
		if c.SeqText && vals[c.Field] == nil {
			vals[c.Field] = store.SeqText(seq)
		}
	}
}

var goTypes = [...]reflect.Type{store.Text: reflect.TypeFor[string](), store.Number: reflect.TypeFor[float64](),
	store.Int: reflect.TypeFor[int64](), store.Bool: reflect.TypeFor[bool](), store.Bytes: reflect.TypeFor[[]byte](),
	store.List: reflect.TypeFor[[]string](), store.Object: reflect.TypeFor[map[string]string]()}

// value checks that v is nil or of the Go type of field's column (an
// int64 for the Seq) and returns a copy of it. Nil bytes are NULL, as the
// SQL drivers store them.
func (t *table) value(field string, v any) (any, error) {
	typ := store.Int
	if c := t.cols[field]; c != nil {
		typ = c.Type
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
		m := make(map[string]string, len(x))
		maps.Copy(m, x)
		return m
	}
	return v
}

// key is r's key in u with the values vals: "" when a field is NULL
// (SQL: such rows never collide).
func (t *table) key(u *unique, r *row, vals store.Values) string {
	parts := []any{r.company}
	for _, f := range u.fields {
		v := vals[f]
		if f == store.SeqField {
			v = r.ord
		}
		if v == nil || vals == nil {
			return ""
		}
		parts = append(parts, v)
	}
	return fmt.Sprintf("%#v", parts)
}

// allows refuses values that leave a NotNull column NULL or give r a key
// another row holds.
func (t *table) allows(r *row, vals store.Values) error {
	for _, c := range t.Columns {
		if c.NotNull && vals != nil && vals[c.Field] == nil {
			return fmt.Errorf("memstore: %s.%s must not be NULL", t.Name, c.Field)
		}
	}
	for _, u := range t.uniques {
		if k := t.key(u, r, vals); k != "" && u.rows[k] != nil && u.rows[k] != r {
			return fmt.Errorf("memstore: %w", &store.DuplicateError{Table: t.Name, Index: u.name})
		}
	}
	return nil
}

// uniqueOn is the unique index on exactly fields, in any order.
func (t *table) uniqueOn(fields []string) *unique {
	for _, u := range t.uniques {
		if len(u.fields) == len(fields) && !slices.ContainsFunc(fields, func(f string) bool { return !slices.Contains(u.fields, f) }) {
			return u
		}
	}
	return nil
}

// put gives r the values vals, nil taking it out of the table, with its
// place among its company's rows and its keys.
func (t *table) put(r *row, vals store.Values) {
	for _, u := range t.uniques {
		if k := t.key(u, r, r.vals); k != "" && u.rows[k] == r {
			delete(u.rows, k)
		}
	}
	rows := t.rows[r.company]
	i, in := slices.BinarySearchFunc(rows, r.ord, func(r *row, ord int64) int { return cmp.Compare(r.ord, ord) })
	if in && vals == nil {
		t.rows[r.company] = slices.Delete(rows, i, i+1)
	} else if !in && vals != nil {
		t.rows[r.company] = slices.Insert(rows, i, r)
	}
	r.vals = vals
	for _, u := range t.uniques {
		if k := t.key(u, r, vals); k != "" {
			u.rows[k] = r
		}
	}
}

// getter reads a field, or the Seq, of rows.
func (t *table) getter(field string) (func(*row) any, error) {
	if field == store.SeqField && t.Seq {
		return func(r *row) any { return r.ord }, nil
	}
	if t.cols[field] == nil {
		return nil, t.noColumn(field)
	}
	return func(r *row) any { return r.vals[field] }, nil
}

// find returns a company's rows that match conditions, in insert order.
func (t *table) find(company string, conds []store.Cond) ([]*row, error) {
	tests := make([]func(*row) bool, len(conds))
	for i, c := range conds {
		var err error
		if tests[i], err = t.cond(c); err != nil {
			return nil, err
		}
	}
	var found []*row
rows:
	for _, r := range t.rows[t.company(company)] {
		for _, test := range tests {
			if !test(r) {
				continue rows
			}
		}
		found = append(found, r)
	}
	return found, nil
}

// cond compiles one condition, with SQL's NULL semantics.
func (t *table) cond(c store.Cond) (func(*row) bool, error) {
	get, err := t.getter(c.Field)
	if err != nil {
		return nil, err
	}
	text, isText := c.Value.(string)
	lower, args := strings.ToLower(text), c.Values
	switch c.Op {
	case store.Eq, store.Lt, store.Le, store.Gt, store.Ge:
		args = []any{c.Value}
	case store.Contains, store.Prefix, store.IsNull, store.NotNull:
		if !isText && (c.Op == store.Contains || c.Op == store.Prefix) {
			return nil, fmt.Errorf("memstore: Contains or Prefix on %s.%s takes a string, not a %T", t.Name, c.Field, c.Value)
		}
		args = nil
	case store.In, store.NotIn:
	default:
		return nil, fmt.Errorf("memstore: unknown condition operator %d on %s.%s", c.Op, t.Name, c.Field)
	}
	list := make([]any, len(args))
	for i, a := range args {
		if list[i], err = t.value(c.Field, a); err != nil {
			return nil, err
		}
	}
	return func(r *row) bool {
		v := get(r)
		switch c.Op {
		case store.IsNull, store.NotNull:
			return (v == nil) == (c.Op == store.IsNull)
		case store.Contains:
			s, ok := v.(string)
			return ok && strings.Contains(strings.ToLower(s), lower)
		case store.Prefix:
			s, ok := v.(string)
			return ok && strings.HasPrefix(s, text)
		case store.In, store.NotIn:
			null := false // NOT IN (..., NULL) holds for no row with a value
			for _, w := range list {
				if v != nil && w != nil && compare(v, w) == 0 {
					return c.Op == store.In
				}
				null = null || w == nil
			}
			return c.Op == store.NotIn && (v == nil || !null)
		}
		if v == nil || list[0] == nil { // = nil is IS NULL; < NULL and the like never hold
			return v == nil && list[0] == nil && c.Op == store.Eq
		}
		n := compare(v, list[0])
		return [...]bool{store.Eq: n == 0, store.Lt: n < 0, store.Le: n <= 0, store.Gt: n > 0, store.Ge: n >= 0}[c.Op]
	}, nil
}

// compare orders two values of one column: NULL first, text by code
// point, numbers numerically, false before true, bytes bytewise, lists and
// objects by their JSON text (as the SQL store keeps them).
func compare(a, b any) int {
	if a == nil || b == nil {
		return cmp.Compare(btoi(a != nil), btoi(b != nil))
	}
	switch x := a.(type) {
	case string:
		return strings.Compare(x, b.(string))
	case float64:
		return cmp.Compare(x, b.(float64))
	case int64:
		return cmp.Compare(x, b.(int64))
	case bool:
		return cmp.Compare(btoi(x), btoi(b.(bool)))
	case []byte:
		return bytes.Compare(x, b.([]byte))
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Compare(ja, jb)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
