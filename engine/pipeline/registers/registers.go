// Package registers is the catalog's registers as the pipeline stores
// them: for each register its key (a column, or the row's Seq when the
// engine assigns it), the fields that have a column, its lookup keys and
// the registers it is a line list of; the tables and indexes a store keeps
// for them beside the pipeline's own (Schema); and how a row is read back
// as a record. The read and write sides, the importer and the permissions
// all work with these registers.
package registers

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"fieldapi/catalog"
	"fieldapi/engine"
	"fieldapi/engine/store"
)

// Register is one register as the pipeline works with it.
type Register struct {
	Reg         *catalog.Register
	Key         *catalog.Field
	EngineKeyed bool             // the key is the decimal text of the row's Seq, not a column
	Stored      []*catalog.Field // fields with a column, in catalog order
	RowNumber   *catalog.Field   // the field the store fills with the row's Seq as text (catalog rowNumber), or nil
	Lookups     []*catalog.Field // lookup keys: unique per company
	Owners      []OwnerLink      // where this register is a line list of another
}

// Normalize is a value as stored, in the field's type: what a call sends
// and what a data set gives alike. An empty lookup key is none (NULL), so
// records without one never collide in its unique index.
func Normalize(f *catalog.Field, v any) (any, error) {
	n, err := f.Normalize(v)
	if f.LookupKey && n == "" {
		return nil, err
	}
	return n, err
}

// RefuseEngineAssigned refuses a value sent for the key of an engine-keyed
// register, by a call or in a data set.
func RefuseEngineAssigned(name string) *engine.CommandError {
	return engine.Refuse("%s is assigned by the engine", name)
}

// OwnerLink says that records of a register are lines of an owner
// register: a write to such a record is also logged on the owner.
type OwnerLink struct {
	Owner *catalog.Register
	Line  *catalog.Line
}

// Set is the registers of a catalog by name.
type Set map[string]*Register

// Of derives the registers of a catalog and checks what the pipeline
// needs of it beyond the catalog's own validation.
func Of(cat *catalog.Catalog) (Set, error) {
	regs := Set{}
	reserved := []string{"seq", "company", modifiedColumn}
	for _, r := range cat.Registers {
		reg := &Register{Reg: r, Key: r.KeyField(), EngineKeyed: r.EngineKeyed(), Lookups: r.LookupKeys()}
		for _, f := range r.Fields {
			if reg.EngineKeyed && f == reg.Key {
				continue
			}
			if slices.Contains(reserved, f.Column) || (r.Name == Users && f.Column == PermissionsColumn) {
				return nil, fmt.Errorf("%s: field %s: column %q is used by the engine", r.File, f.Name, f.Column)
			}
			reg.Stored = append(reg.Stored, f)
			if f.RowNumber {
				reg.RowNumber = f
			}
		}
		regs[r.Name] = reg
	}
	for _, r := range cat.Registers {
		for _, l := range r.Lines {
			lr := regs[l.Register]
			lr.Owners = append(lr.Owners, OwnerLink{Owner: r, Line: l})
		}
	}
	users := cat.Register(Users)
	if users == nil || users.Key != "Sign" || users.Field("Status") == nil {
		return nil, fmt.Errorf("catalog: the engine needs a users register keyed by Sign with a Status field (its signatures)")
	}
	return regs, nil
}

// Get returns a register, or an error naming the unknown one.
func (s Set) Get(name string) (*Register, error) {
	r := s[name]
	if r == nil {
		return nil, fmt.Errorf("unknown register %q", name)
	}
	return r, nil
}

// KeyCond is the condition that finds a record by its key; ok is false
// for a key that cannot exist (an engine-assigned Id that is no number).
func (r *Register) KeyCond(key string) (store.Cond, bool) {
	if r.EngineKeyed {
		seq, err := strconv.ParseInt(key, 10, 64)
		if err != nil || seq <= 0 {
			return store.Cond{}, false
		}
		return store.Equal(store.SeqField, seq), true
	}
	return store.Equal(r.Key.Name, key), true
}

// KeyOf is a record's key as read from its row.
func (r *Register) KeyOf(row store.Row) string {
	if r.EngineKeyed {
		return strconv.FormatInt(row.Seq, 10)
	}
	key, _ := row.Values[r.Key.Name].(string)
	return key
}

// Inserted completes the values of a record just inserted as row seq with
// what the store filled in: its row number (the Seq as text, a SeqText
// column) unless the values gave one.
func (r *Register) Inserted(values map[string]any, seq int64) {
	if f := r.RowNumber; f != nil && values[f.Name] == nil {
		values[f.Name] = store.SeqText(seq)
	}
}

// AsRecord is a row as a record: its values, and the key of an
// engine-keyed register.
func (r *Register) AsRecord(row store.Row) engine.Record {
	rec := engine.Record(row.Values)
	if r.EngineKeyed {
		rec[r.Key.Name] = strconv.FormatInt(row.Seq, 10)
	}
	if r.Reg.Name == Users {
		delete(rec, PermissionsColumn) // the engine's, not a field
	}
	return rec
}

// columnField is the field stored in a column of the register's table,
// nil for Modified's and for a name that is no column.
func (r *Register) columnField(name string) (f *catalog.Field, ok bool) {
	if name == modifiedColumn {
		return nil, true
	}
	for _, f := range r.Stored {
		if f.Column == name {
			return f, true
		}
	}
	return nil, false
}

// TextColumn reports whether a column of the register's table holds text
// (store.ExactInGo).
func (r *Register) TextColumn(name string) bool {
	f, ok := r.columnField(name)
	return ok && (f == nil || columnType(f.Type) == store.Text)
}

// ColumnOf reads a record's values by the columns of its row, as an
// expression over the row names them (store.EvalExpr), with its Seq and
// Modified: the row number is the Seq as text where the values leave it
// empty, as the store fills it.
func (r *Register) ColumnOf(values map[string]any, seq int64, modified string) func(column string) (any, bool) {
	return func(column string) (any, bool) {
		f, ok := r.columnField(column)
		switch {
		case !ok:
			return nil, false
		case f == nil:
			return modified, true
		case f.RowNumber && values[f.Name] == nil:
			return store.SeqText(seq), true
		}
		return values[f.Name], true
	}
}

// Line returns the register's line list with the given name, or nil.
func (r *Register) Line(name string) *catalog.Line {
	for _, l := range r.Reg.Lines {
		if l.Name == name {
			return l
		}
	}
	return nil
}

// timestampLayout is how Modified and every time the pipeline stores
// reads: UTC and fixed width, so text order is time order.
const timestampLayout = "2006-01-02T15:04:05.000000Z"

// FormatTime is a time as the pipeline stores it (Modified).
func FormatTime(t time.Time) string { return t.UTC().Format(timestampLayout) }

// ParseDefault turns a catalog default (always text in YAML) into a value
// of the field's type. "$sign" is the caller's signature and "$today" the
// date of now, as the caller gives it (the company's local time).
func ParseDefault(f *catalog.Field, text, sign string, now time.Time) (any, error) {
	switch text {
	case "$sign":
		text = sign
	case "$today":
		text = now.Format("2006-01-02")
	}
	return f.ParseValue(text)
}

// SetValue is a line list's fixed value in its field's type.
func SetValue(f *catalog.Field, text string) any {
	v, err := ParseDefault(f, text, "", time.Time{})
	if err != nil {
		return text // the catalog validated the field; keep the text as is
	}
	return v
}
