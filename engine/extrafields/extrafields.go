// Package extrafields keeps the fields a company defines on records of
// the registers that carry them (spec 2.4): their definitions per register,
// their values per record, the checks a write passes, and the computed
// ones, which the store evaluates with each row it reads. The pipeline
// uses it on every read and write of such a register.
package extrafields

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"fieldapi/engine"
	"fieldapi/engine/dataset"
	"fieldapi/engine/internal/ttlcache"
	"fieldapi/engine/store"
)

// The tables the definitions and values are kept in.
const (
	DefsTable   = "extra_field_defs"   // a company's extra fields of a register
	ValuesTable = "extra_field_values" // their values, by record seq
)

// Tables are the tables to add to the store's schema.
func Tables() []*store.Table {
	text := func(field string) store.Column {
		return store.Column{Field: field, Name: field, Type: store.Text, NotNull: true}
	}
	flag := func(field string) store.Column {
		return store.Column{Field: field, Name: field, Type: store.Bool, NotNull: true}
	}
	return []*store.Table{
		{
			Name: DefsTable, Company: true, Key: []string{"register", "key"},
			Columns: []store.Column{text("register"), text("key"), text("name"), text("category"), text("type"),
				flag("writable"), flag("read_only"), flag("computed"), text("options"), text("sql_expr")},
		},
		{
			Name: ValuesTable, Company: true, Key: []string{"register", "record_seq", "key"},
			Columns: []store.Column{text("register"), {Field: "record_seq", Name: "record_seq", Type: store.Int, NotNull: true},
				text("key"), text("value")},
		},
	}
}

// Extra-field types with rules of their own; any other type takes any text.
const (
	extraCombo  = "Combo"  // one of Options
	extraDate   = "Date"   // ISO 8601 date or date-time
	extraNumber = "Number" // a decimal number
)

// Def is one row of extra_field_defs: a field the company defined on a
// register. A computed field's SQL expression, evaluated against the
// record's row, is written by the engine's administration, never the API.
type Def struct {
	Key      string
	Name     string
	Category string
	Type     string
	Writable bool
	ReadOnly bool
	Computed bool
	Options  string // JSON list
	SQLExpr  string
}

// acceptsWrites reports whether the API may write the field.
func (d Def) acceptsWrites() bool { return d.Writable && !d.ReadOnly && !d.Computed }

// isComputed reports whether the store evaluates the field with the row.
func (d Def) isComputed() bool { return d.Computed && d.SQLExpr != "" }

func (d Def) options() []string {
	var opts []string
	_ = json.Unmarshal([]byte(d.Options), &opts) // written by the engine; empty on error
	return opts
}

// Definitions reads the definitions of the company's extra fields, for
// reads: each is kept for the TTL given to New, so a change made in the
// engine's administration shows within that time.
type Definitions struct{ cache *ttlcache.Cache[[]Def] }

// New keeps definitions for ttl by the clock now.
func New(ttl time.Duration, now func() time.Time) *Definitions {
	return &Definitions{cache: ttlcache.New[[]Def](ttl, now)}
}

// Of are the company's definitions of a register's extra fields, from the
// cache. Inside a transaction q must be the transaction.
func (d *Definitions) Of(ctx context.Context, q store.Reader, company, register string) ([]Def, error) {
	_, inTx := q.(store.Tx)
	return d.cache.Get(company+"\x00"+register, !inTx, func() ([]Def, error) { return Load(ctx, q, company, register) })
}

// Load reads the company's definitions of a register's extra fields
// afresh, in key order.
func Load(ctx context.Context, q store.Reader, company, register string) ([]Def, error) {
	rows, err := q.Select(ctx, store.Select{Table: DefsTable, Company: company,
		Where: []store.Cond{store.Equal("register", register)}, OrderBy: []store.Order{{Field: "key"}}})
	if err != nil {
		return nil, err
	}
	defs := make([]Def, len(rows))
	for i, row := range rows {
		v := row.Values
		text := func(name string) string { s, _ := v[name].(string); return s }
		flag := func(name string) bool { b, _ := v[name].(bool); return b }
		defs[i] = Def{Key: text("key"), Name: text("name"), Category: text("category"), Type: text("type"),
			Writable: flag("writable"), ReadOnly: flag("read_only"), Computed: flag("computed"),
			Options: text("options"), SQLExpr: text("sql_expr")}
	}
	return defs, nil
}

// Describe is the definitions as GET /v1/<register>/extra-fields lists them.
func Describe(defs []Def) []engine.ExtraFieldDef {
	out := make([]engine.ExtraFieldDef, len(defs))
	for i, d := range defs {
		out[i] = engine.ExtraFieldDef{
			Key: d.Key, Name: d.Name, Category: d.Category, Type: d.Type,
			Writable: d.acceptsWrites(), ReadOnly: d.ReadOnly, Computed: d.Computed,
			Options: d.options(),
		}
	}
	return out
}

// computedPrefix names a computed extra field among a row's values, until
// Attach moves it under ExtraFields; no field name starts so.
const computedPrefix = "@extra:"

// Exprs are the computed (Sql) extra fields, for the store to evaluate
// with each row it reads.
func Exprs(defs []Def) []store.Expr {
	var exprs []store.Expr
	for _, d := range defs {
		if d.isComputed() {
			exprs = append(exprs, store.Expr{Name: computedPrefix + d.Key, Text: d.SQLExpr})
		}
	}
	return exprs
}

// RecordSeq is the field of a stored value naming its record by Seq.
const RecordSeq = "record_seq"

// StoredSelect reads the stored values of the extra fields of the records
// of register that records names (a condition on RecordSeq): one query
// for the page, none (false) when the company defines no stored field.
func StoredSelect(company, register string, defs []Def, records store.Cond) (store.Select, bool) {
	if !slices.ContainsFunc(defs, func(d Def) bool { return !d.isComputed() }) {
		return store.Select{}, false
	}
	return store.Select{Table: ValuesTable, Company: company,
		Where: []store.Cond{store.Equal("register", register), records}}, true
}

// Place sets ExtraFields on each record (seqs[i] is recs[i]'s Seq), as
// Fields makes them from the values StoredSelect read and the computed
// ones the store evaluated with the row (read with Exprs(defs)).
func Place(defs []Def, storedRows []store.Row, recs []engine.Record, seqs []int64) {
	stored := make(map[int64]map[string]string, len(recs))
	for _, row := range storedRows {
		seq, _ := row.Values[RecordSeq].(int64)
		key, _ := row.Values["key"].(string)
		if stored[seq] == nil {
			stored[seq] = map[string]string{}
		}
		stored[seq][key], _ = row.Values["value"].(string)
	}
	for i, rec := range recs {
		rec["ExtraFields"] = Fields(defs, stored[seqs[i]], store.Values(rec))
		for _, d := range defs {
			delete(rec, computedPrefix+d.Key)
		}
	}
}

// Fields is a record's ExtraFields: every field the company defines, ""
// when empty; a stored field's value from stored, a computed one's from
// the values the store evaluated with the record's row (read with
// Exprs(defs)). A stored value of a field no longer defined is left out.
func Fields(defs []Def, stored map[string]string, row store.Values) map[string]string {
	fields := make(map[string]string, len(defs))
	for _, d := range defs {
		if d.isComputed() {
			fields[d.Key], _ = row[computedPrefix+d.Key].(string)
		} else {
			fields[d.Key] = stored[d.Key]
		}
	}
	return fields
}

// Import writes definitions as they are given (package dataset): a
// computed field is one with an SQL expression.
func Import(ctx context.Context, tx store.Tx, company string, defs []dataset.ExtraFieldDef) error {
	if len(defs) == 0 {
		return nil
	}
	rows := make([]store.Values, len(defs))
	for i, d := range defs {
		computed := d.SQLExpr != ""
		options := d.Options
		if options == nil {
			options = []string{}
		}
		encoded, err := json.Marshal(options)
		if err != nil {
			return err
		}
		rows[i] = store.Values{"register": d.Register, "key": d.Key, "name": d.Name, "category": d.Category, "type": d.Type,
			"writable": !d.ReadOnly && !computed, "read_only": d.ReadOnly, "computed": computed,
			"options": string(encoded), "sql_expr": d.SQLExpr}
	}
	_, err := tx.Insert(ctx, DefsTable, company, rows)
	return err
}

// Check validates extra-field values sent for a record of register
// (declared: whether the catalog gives its records extra fields) against
// the definitions, before anything is written.
func Check(register string, declared bool, defs []Def, values map[string]string) error {
	if len(values) == 0 {
		return nil
	}
	if !declared {
		return engine.Refuse("%s have no extra fields", register)
	}
	byKey := map[string]Def{}
	var writable []string
	for _, d := range defs {
		byKey[d.Key] = d
		if d.acceptsWrites() {
			writable = append(writable, d.Key)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(values)) {
		v := values[k]
		d, ok := byKey[k]
		switch {
		case !ok:
			return engine.Refuse("unknown extra field %q", k).WithValid(writable...)
		case d.Computed:
			return engine.Refuse("extra field %q is computed by the engine and cannot be written", k)
		case !d.acceptsWrites():
			return engine.Refuse("extra field %q is read only", k)
		case strings.ContainsRune(v, 0):
			return engine.Refuse("extra field %q: text may not contain NUL characters", k)
		case v == "":
			continue // clearing is always allowed
		case d.Type == extraDate && !engine.IsDate(v):
			return engine.Refuse("extra field %q: %q is not a date (want YYYY-MM-DD or an ISO 8601 date-time)", k, v)
		case d.Type == extraCombo && !slices.Contains(d.options(), v):
			return engine.Refuse("extra field %q: %q is not one of its options", k, v).WithValid(d.options()...)
		case d.Type == extraNumber:
			if _, err := strconv.ParseFloat(v, 64); err != nil {
				return engine.Refuse("extra field %q: %q is not a number", k, v)
			}
		}
	}
	return nil
}

// Write stores extra-field values of the record with the given Seq, then
// reads them back so that a value the store did not keep is refused, not
// lost silently.
func Write(ctx context.Context, tx store.Tx, company, register string, seq int64, values map[string]string) error {
	if len(values) == 0 {
		return nil
	}
	keys := slices.Sorted(maps.Keys(values))
	for _, k := range keys {
		row := store.Values{"register": register, "record_seq": seq, "key": k, "value": values[k]}
		if err := tx.Upsert(ctx, ValuesTable, company, row, []string{"register", "record_seq", "key"}, []string{"value"}); err != nil {
			return err
		}
	}
	rows, err := tx.Select(ctx, store.Select{Table: ValuesTable, Company: company, Where: []store.Cond{
		store.Equal("register", register), store.Equal("record_seq", seq), store.OneOf("key", keys)}})
	if err != nil {
		return err
	}
	stored := map[string]string{}
	for _, row := range rows {
		k, _ := row.Values["key"].(string)
		stored[k], _ = row.Values["value"].(string)
	}
	for _, k := range keys {
		if got, ok := stored[k]; !ok || got != values[k] {
			return engine.Refuse("extra field %q: the value was not stored as sent", k)
		}
	}
	return nil
}
