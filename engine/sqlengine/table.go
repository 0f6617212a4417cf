package sqlengine

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"fieldapi/catalog"
	"fieldapi/engine"
)

// Internal columns every register table carries besides its fields.
const (
	seqColumn      = "seq"      // global creation order: newest first, cursors, engine-assigned Ids
	companyColumn  = "company"  // every query filters on it
	modifiedColumn = "modified" // UTC, timestampLayout
)

// The users register doubles as the engine's signatures. Its table carries
// one column the catalog does not show: the signature's permissions.
const (
	usersRegister     = "users"
	permissionsColumn = "permissions"
)

// table is one register as stored.
type table struct {
	reg         *catalog.Register
	key         *catalog.Field
	engineKeyed bool             // the key is the decimal text of seq, not a column
	stored      []*catalog.Field // fields with a column, in catalog order
	selectCols  string           // selectList, built once
	owners      []ownerLink      // where this register is a line list of another
}

// ownerLink says that records of a register are lines of an owner register:
// a write to such a record is also logged on the owner.
type ownerLink struct {
	owner *catalog.Register
	line  *catalog.Line
}

// newTables derives the tables of a catalog and checks what the engine
// needs of it beyond the catalog's own validation.
func newTables(cat *catalog.Catalog) (map[string]*table, error) {
	tables := map[string]*table{}
	for _, r := range cat.Registers {
		for _, it := range internalTables {
			if it.name == r.Name {
				return nil, fmt.Errorf("%s: register name %q is taken by an engine table", r.File, r.Name)
			}
		}
		t := &table{reg: r, key: r.KeyField(), engineKeyed: r.EngineKeyed()}
		for _, f := range r.Fields {
			if t.engineKeyed && f == t.key {
				continue
			}
			reserved := []string{seqColumn, companyColumn, modifiedColumn}
			if r.Name == usersRegister {
				reserved = append(reserved, permissionsColumn)
			}
			if slices.Contains(reserved, f.Column) {
				return nil, fmt.Errorf("%s: field %s: column %q is used by the engine", r.File, f.Name, f.Column)
			}
			t.stored = append(t.stored, f)
		}
		t.selectCols = t.buildSelectList()
		tables[r.Name] = t
	}
	for _, r := range cat.Registers {
		for _, l := range r.Lines {
			lt := tables[l.Register]
			lt.owners = append(lt.owners, ownerLink{owner: r, line: l})
		}
	}
	users := cat.Register(usersRegister)
	if users == nil || users.Key != "Sign" || users.Field("Status") == nil {
		return nil, fmt.Errorf("catalog: the engine needs a users register keyed by Sign with a Status field (its signatures)")
	}
	return tables, nil
}

// name is the quoted table name.
func (t *table) name() string { return quote(t.reg.Name) }

// selectList is the column list every record read selects: seq, modified,
// then the stored fields in order (see scan).
func (t *table) selectList() string { return t.selectCols }

func (t *table) buildSelectList() string {
	cols := []string{quote(seqColumn), quote(modifiedColumn)}
	for _, f := range t.stored {
		cols = append(cols, quote(f.Column))
	}
	return strings.Join(cols, ", ")
}

// column is the SQL expression of a field.
func (t *table) column(f *catalog.Field) string {
	if t.engineKeyed && f == t.key {
		return "CAST(" + quote(seqColumn) + " AS TEXT)"
	}
	return quote(f.Column)
}

// keyMatch is the condition that finds a record by its key. ok is false for
// a key that cannot exist (an engine-assigned Id that is not a number).
func (t *table) keyMatch(key string) (cond string, arg any, ok bool) {
	if t.engineKeyed {
		seq, err := strconv.ParseInt(key, 10, 64)
		if err != nil || seq <= 0 {
			return "", nil, false
		}
		return quote(seqColumn) + " = ?", seq, true
	}
	return quote(t.key.Column) + " = ?", key, true
}

// formatSeq is an engine-assigned key: the decimal text of seq.
func formatSeq(seq int64) string { return strconv.FormatInt(seq, 10) }

// field returns a field of the register by PascalCase name.
func (t *table) field(name string) (*catalog.Field, error) {
	f := t.reg.Field(name)
	if f == nil {
		return nil, fmt.Errorf("%s has no field %q", t.reg.Name, name)
	}
	return f, nil
}

// scan builds a record from a row selected with selectList.
func (t *table) scan(row []any) (engine.Record, int64, error) {
	seq, ok := asInt64(row[0])
	if !ok {
		return nil, 0, fmt.Errorf("%s: unexpected seq %T", t.reg.Name, row[0])
	}
	// Sized for every field, ExtraFields and the line lists up front:
	// growing the map field by field was most of a list's scanning (pprof).
	rec := make(engine.Record, len(t.stored)+3+len(t.reg.Lines))
	rec["Modified"] = asText(row[1])
	if t.engineKeyed {
		rec[t.key.Name] = formatSeq(seq)
	}
	for i, f := range t.stored {
		v, err := fromDB(f, row[i+2])
		if err != nil {
			return nil, 0, fmt.Errorf("%s.%s: %w", t.reg.Name, f.Name, err)
		}
		rec[f.Name] = v
	}
	return rec, seq, nil
}

// fromDB converts a value as the driver returns it into the record's type.
func fromDB(f *catalog.Field, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch f.Type {
	case catalog.Number:
		switch n := v.(type) {
		case float64:
			return n, nil
		case int64:
			return float64(n), nil
		}
		return strconv.ParseFloat(asText(v), 64)
	case catalog.Bool:
		switch b := v.(type) {
		case bool:
			return b, nil
		case int64:
			return b != 0, nil
		}
		return nil, fmt.Errorf("unexpected bool %T", v)
	case catalog.List:
		var list []string
		if err := json.Unmarshal([]byte(asText(v)), &list); err != nil {
			return nil, err
		}
		if list == nil {
			list = []string{}
		}
		return list, nil
	case catalog.Object:
		var obj map[string]string
		if err := json.Unmarshal([]byte(asText(v)), &obj); err != nil {
			return nil, err
		}
		if obj == nil {
			obj = map[string]string{}
		}
		return obj, nil
	default:
		return asText(v), nil
	}
}

// toDB converts a normalized value (see normalize) into a statement argument.
func toDB(f *catalog.Field, v any) any {
	if v == nil {
		return nil
	}
	switch f.Type {
	case catalog.List, catalog.Object:
		b, _ := json.Marshal(v) // []string and map[string]string always marshal
		return string(b)
	}
	return v
}

// normalize checks a value sent for a field and returns it in the record's
// type: string, float64, bool, []string, map[string]string, or nil.
func normalize(f *catalog.Field, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	wrongType := func() error {
		return engine.Refuse("%s: expected %s, got %T", f.Name, f.Type, v)
	}
	switch f.Type {
	case catalog.Number:
		var n float64
		switch x := v.(type) {
		case float64:
			n = x
		case float32:
			n = float64(x)
		case int:
			n = float64(x)
		case int64:
			n = float64(x)
		case json.Number:
			var err error
			if n, err = x.Float64(); err != nil {
				return nil, wrongType()
			}
		default:
			return nil, wrongType()
		}
		if math.IsNaN(n) || math.IsInf(n, 0) {
			return nil, engine.Refuse("%s: %v is not a number", f.Name, n)
		}
		return n, nil
	case catalog.Bool:
		if b, ok := v.(bool); ok {
			return b, nil
		}
		return nil, wrongType()
	case catalog.List:
		switch x := v.(type) {
		case []string:
			return slices.Clone(x), refuseNUL(f.Name, x...)
		case []any:
			list := make([]string, len(x))
			for i, item := range x {
				s, ok := item.(string)
				if !ok {
					return nil, wrongType()
				}
				list[i] = s
			}
			return list, refuseNUL(f.Name, list...)
		}
		return nil, wrongType()
	case catalog.Object:
		switch x := v.(type) {
		case map[string]string:
			for k, item := range x {
				if err := refuseNUL(f.Name, k, item); err != nil {
					return nil, err
				}
			}
			return x, nil
		case map[string]any:
			obj := make(map[string]string, len(x))
			for k, item := range x {
				s, ok := item.(string)
				if !ok {
					return nil, wrongType()
				}
				if err := refuseNUL(f.Name, k, s); err != nil {
					return nil, err
				}
				obj[k] = s
			}
			return obj, nil
		}
		return nil, wrongType()
	case catalog.Date:
		s, ok := v.(string)
		if !ok {
			return nil, wrongType()
		}
		if s == "" {
			return nil, nil // a date cannot be empty text: clearing it stores NULL
		}
		if !engine.IsDate(s) {
			return nil, engine.Refuse("%s: %q is not an ISO 8601 date or date-time", f.Name, s)
		}
		return s, nil // stored verbatim as sent
	default:
		s, ok := v.(string)
		if !ok {
			return nil, wrongType()
		}
		return s, refuseNUL(f.Name, s)
	}
}

// refuseNUL refuses text with NUL characters, which PostgreSQL cannot store.
func refuseNUL(name string, texts ...string) error {
	for _, s := range texts {
		if strings.ContainsRune(s, 0) {
			return engine.Refuse("%s: text may not contain NUL characters", name)
		}
	}
	return nil
}

// parseDefault turns a catalog default (always text in YAML) into a value
// of the field's type. "$sign" is the caller's signature and "$today" the
// date of now, as the caller gives it (the company's local time).
func parseDefault(f *catalog.Field, text, sign string, now time.Time) (any, error) {
	switch text {
	case "$sign":
		text = sign
	case "$today":
		text = now.Format("2006-01-02")
	}
	return f.ParseValue(text)
}

// isEmpty reports whether a normalized value counts as not given.
func isEmpty(v any) bool { return engine.Empty(v) }
