package pipeline

import (
	"context"
	"encoding/json"
	"slices"
	"sort"
	"strconv"
	"strings"

	"fieldapi/engine"
	"fieldapi/engine/store"
)

// Extra-field types with rules of their own; any other type takes any text.
const (
	extraCombo  = "Combo"  // one of Options
	extraDate   = "Date"   // ISO 8601 date or date-time
	extraNumber = "Number" // a decimal number
	extraSQL    = "Sql"    // computed from SqlExpr on read
)

// extraDef is one row of extra_field_defs: a field the company defined on a
// register. Computed fields carry an SQL expression evaluated against the
// record's row; it is written by the engine's administration (or the demo
// data), never by the API.
type extraDef struct {
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
func (d extraDef) acceptsWrites() bool { return d.Writable && !d.ReadOnly && !d.Computed }

func (d extraDef) options() []string {
	var opts []string
	_ = json.Unmarshal([]byte(d.Options), &opts) // written by the engine; empty on error
	return opts
}

// ExtraFieldDefs describes the company's extra fields of a register.
// A register without extra fields answers ErrNotFound.
func (e *Engine) ExtraFieldDefs(ctx context.Context, s engine.Session, register string) (_ []engine.ExtraFieldDef, err error) {
	defer readOnly(&err)
	r, err := e.register(register)
	if err != nil {
		return nil, err
	}
	if !r.reg.ExtraFields {
		return nil, engine.ErrNotFound
	}
	if err := e.authorize(ctx, e.store, s, register, readAccess); err != nil {
		return nil, err
	}
	defs, err := loadExtraDefs(ctx, e.store, s.Company, register)
	if err != nil {
		return nil, err
	}
	out := make([]engine.ExtraFieldDef, len(defs))
	for i, d := range defs {
		out[i] = engine.ExtraFieldDef{
			Key: d.Key, Name: d.Name, Category: d.Category, Type: d.Type,
			Writable: d.acceptsWrites(), ReadOnly: d.ReadOnly, Computed: d.Computed,
			Options: d.options(),
		}
	}
	return out, nil
}

// extraDefsOf are the company's definitions of a register's extra fields,
// cached for cacheTTL.
func (e *Engine) extraDefsOf(ctx context.Context, q store.Reader, company, register string) ([]extraDef, error) {
	return e.extraDefs.get(q, company+"\x00"+register, func(q store.Reader) ([]extraDef, error) {
		return loadExtraDefs(ctx, q, company, register)
	})
}

func loadExtraDefs(ctx context.Context, q store.Reader, company, register string) ([]extraDef, error) {
	rows, err := q.Select(ctx, store.Select{Table: extraDefsTable, Company: company,
		Where: []store.Cond{store.Equal("register", register)}, OrderBy: []store.Order{{Field: "key"}}})
	if err != nil {
		return nil, err
	}
	defs := make([]extraDef, len(rows))
	for i, row := range rows {
		v := row.Values
		text := func(name string) string { s, _ := v[name].(string); return s }
		flag := func(name string) bool { b, _ := v[name].(bool); return b }
		defs[i] = extraDef{Key: text("key"), Name: text("name"), Category: text("category"), Type: text("type"),
			Writable: flag("writable"), ReadOnly: flag("read_only"), Computed: flag("computed"),
			Options: text("options"), SQLExpr: text("sql_expr")}
	}
	return defs, nil
}

// computedPrefix names a computed extra field among a row's values, until
// attachExtraFields moves it under ExtraFields; no field name starts so.
const computedPrefix = "@extra:"

// computedExprs are the computed (Sql) extra fields, for the store to
// evaluate with each row it reads.
func computedExprs(defs []extraDef) []store.Expr {
	var exprs []store.Expr
	for _, d := range defs {
		if d.Computed && d.SQLExpr != "" {
			exprs = append(exprs, store.Expr{Name: computedPrefix + d.Key, Text: d.SQLExpr})
		}
	}
	return exprs
}

// attachExtraFields sets ExtraFields on each record (seqs[i] is recs[i]'s
// Seq): every defined key, "" when empty, the computed ones as the store
// evaluated them with the row. Stored values cost one query for the page.
func (e *Engine) attachExtraFields(ctx context.Context, q store.Reader, r *register, company string, recs []engine.Record, seqs []int64) error {
	if !r.reg.ExtraFields || len(recs) == 0 {
		return nil
	}
	defs, err := e.extraDefsOf(ctx, q, company, r.reg.Name)
	if err != nil {
		return err
	}
	bySeq := make(map[int64]map[string]string, len(recs))
	stored := false
	for i, rec := range recs {
		fields := make(map[string]string, len(defs))
		for _, d := range defs {
			fields[d.Key] = ""
			if d.Computed && d.SQLExpr != "" {
				fields[d.Key], _ = rec[computedPrefix+d.Key].(string)
				delete(rec, computedPrefix+d.Key)
			} else {
				stored = true
			}
		}
		rec["ExtraFields"] = fields
		bySeq[seqs[i]] = fields
	}
	if !stored {
		return nil
	}
	rows, err := q.Select(ctx, store.Select{Table: extraValuesTable, Company: company,
		Where: []store.Cond{store.Equal("register", r.reg.Name), store.OneOf("record_seq", seqs)}})
	if err != nil {
		return err
	}
	for _, row := range rows {
		seq, _ := row.Values["record_seq"].(int64)
		key, _ := row.Values["key"].(string)
		if fields, ok := bySeq[seq]; ok {
			if _, defined := fields[key]; defined {
				fields[key], _ = row.Values["value"].(string)
			}
		}
	}
	return nil
}

// checkExtra validates extra-field values sent against the definitions,
// before anything is written.
func checkExtra(r *register, defs []extraDef, values map[string]string) error {
	if len(values) == 0 {
		return nil
	}
	if !r.reg.ExtraFields {
		return engine.Refuse("%s have no extra fields", r.reg.Name)
	}
	byKey := map[string]extraDef{}
	var writable []string
	for _, d := range defs {
		byKey[d.Key] = d
		if d.acceptsWrites() {
			writable = append(writable, d.Key)
		}
	}
	keys := make([]string, 0, len(values))
	for k := range values {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
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

// writeExtra stores extra-field values of one record, then reads them back
// so that a value the store did not keep is refused, not lost silently.
func writeExtra(ctx context.Context, tx store.Tx, r *register, company string, seq int64, values map[string]string) error {
	if len(values) == 0 {
		return nil
	}
	keys := make([]string, 0, len(values))
	for k, v := range values {
		keys = append(keys, k)
		row := store.Values{"register": r.reg.Name, "record_seq": seq, "key": k, "value": v}
		if err := tx.Upsert(ctx, extraValuesTable, company, row, []string{"register", "record_seq", "key"}, []string{"value"}); err != nil {
			return err
		}
	}
	sort.Strings(keys)
	rows, err := tx.Select(ctx, store.Select{Table: extraValuesTable, Company: company, Where: []store.Cond{
		store.Equal("register", r.reg.Name), store.Equal("record_seq", seq), store.OneOf("key", keys)}})
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
