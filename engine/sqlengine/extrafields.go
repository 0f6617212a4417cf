package sqlengine

import (
	"context"
	"encoding/json"
	"slices"
	"sort"
	"strconv"
	"strings"

	"fieldapi/engine"
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
	Key      string `db:"key"`
	Name     string `db:"name"`
	Category string `db:"category"`
	Type     string `db:"type"`
	Writable bool   `db:"writable"`
	ReadOnly bool   `db:"read_only"`
	Computed bool   `db:"computed"`
	Options  string `db:"options"` // JSON list
	SQLExpr  string `db:"sql_expr"`
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
func (e *Engine) ExtraFieldDefs(ctx context.Context, s engine.Session, register string) ([]engine.ExtraFieldDef, error) {
	return call(e, ctx, func(ctx context.Context) ([]engine.ExtraFieldDef, error) {
		t, err := e.table(register)
		if err != nil {
			return nil, err
		}
		if !t.reg.ExtraFields {
			return nil, engine.ErrNotFound
		}
		if err := e.authorize(ctx, e.db, s, register, readAccess); err != nil {
			return nil, err
		}
		defs, err := loadExtraDefs(ctx, e.db, s.Company, register)
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
	})
}

func loadExtraDefs(ctx context.Context, q db, company, register string) ([]extraDef, error) {
	var defs []extraDef
	err := sel(ctx, q, &defs, `SELECT "key", "name", "category", "type", "writable", "read_only", "computed", "options", "sql_expr"
		FROM "extra_field_defs" WHERE "company" = ? AND "register" = ? ORDER BY "key"`, company, register)
	return defs, err
}

// attachExtraFields sets ExtraFields on each record (seqs[i] is recs[i]'s
// seq): every defined key, "" when empty, computed fields evaluated. It
// costs at most three queries for the whole page.
func (e *Engine) attachExtraFields(ctx context.Context, q db, t *table, company string, recs []engine.Record, seqs []int64) error {
	if !t.reg.ExtraFields || len(recs) == 0 {
		return nil
	}
	defs, err := e.extraDefs.get(q, company+"\x00"+t.reg.Name, func(q db) ([]extraDef, error) {
		return loadExtraDefs(ctx, q, company, t.reg.Name)
	})
	if err != nil {
		return err
	}
	bySeq := make(map[int64]map[string]string, len(recs))
	for i, rec := range recs {
		fields := make(map[string]string, len(defs))
		for _, d := range defs {
			fields[d.Key] = ""
		}
		rec["ExtraFields"] = fields
		bySeq[seqs[i]] = fields
	}
	if len(defs) == 0 {
		return nil
	}

	stored, err := loadExtraValues(ctx, q, t, company, defs, seqs)
	if err != nil {
		return err
	}
	for _, v := range stored {
		if fields, ok := bySeq[v.RecordSeq]; ok {
			if _, defined := fields[v.Key]; defined {
				fields[v.Key] = v.Value
			}
		}
	}
	return nil
}

// extraValue is one extra-field value of one record.
type extraValue struct {
	RecordSeq int64  `db:"record_seq"`
	Key       string `db:"key"`
	Value     string `db:"value"`
}

// loadExtraValues reads the stored values of the records and evaluates the
// computed (Sql) fields against their rows, in one query: each computed
// field is one more UNION ALL branch over the register's table. The
// expressions are the operator's, kept as defined (they must not hold "?").
func loadExtraValues(ctx context.Context, q db, t *table, company string, defs []extraDef, seqs []int64) ([]extraValue, error) {
	in := "(" + placeholders(len(seqs)) + ")"
	query := `SELECT "record_seq", "key", "value" FROM "extra_field_values"
		WHERE "company" = ? AND "register" = ? AND "record_seq" IN ` + in
	args := []any{company, t.reg.Name}
	for _, seq := range seqs {
		args = append(args, seq)
	}
	for _, d := range defs {
		if !d.Computed || d.SQLExpr == "" {
			continue
		}
		query += ` UNION ALL SELECT ` + quote(seqColumn) + `, CAST(? AS TEXT), CAST((` + d.SQLExpr + `) AS TEXT)
			FROM ` + t.name() + ` WHERE "company" = ? AND ` + quote(seqColumn) + ` IN ` + in
		args = append(args, d.Key, company)
		for _, seq := range seqs {
			args = append(args, seq)
		}
	}
	var values []extraValue
	rows, err := q.QueryxContext(ctx, q.Rebind(query), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var v extraValue
		var value any
		if err := rows.Scan(&v.RecordSeq, &v.Key, &value); err != nil {
			return nil, err
		}
		v.Value = asText(value)
		values = append(values, v)
	}
	return values, rows.Err()
}

// checkExtra validates extra-field values sent against the definitions,
// before anything is written.
func checkExtra(t *table, defs []extraDef, values map[string]string) error {
	if len(values) == 0 {
		return nil
	}
	if !t.reg.ExtraFields {
		return engine.Refuse("%s have no extra fields", t.reg.Name)
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
// so that a value the database did not keep is refused, not lost silently.
func writeExtra(ctx context.Context, q db, t *table, company string, seq int64, values map[string]string) error {
	if len(values) == 0 {
		return nil
	}
	keys := make([]string, 0, len(values))
	for k, v := range values {
		keys = append(keys, k)
		_, err := exec(ctx, q, `INSERT INTO "extra_field_values" ("company", "register", "record_seq", "key", "value")
			VALUES (?, ?, ?, ?, ?)
			ON CONFLICT ("company", "register", "record_seq", "key") DO UPDATE SET "value" = excluded."value"`,
			company, t.reg.Name, seq, k, v)
		if err != nil {
			return err
		}
	}
	var back []struct {
		Key   string `db:"key"`
		Value string `db:"value"`
	}
	args := []any{company, t.reg.Name, seq}
	for _, k := range keys {
		args = append(args, k)
	}
	err := sel(ctx, q, &back, `SELECT "key", "value" FROM "extra_field_values"
		WHERE "company" = ? AND "register" = ? AND "record_seq" = ? AND "key" IN (`+placeholders(len(keys))+`)`, args...)
	if err != nil {
		return err
	}
	stored := map[string]string{}
	for _, b := range back {
		stored[b.Key] = b.Value
	}
	sort.Strings(keys)
	for _, k := range keys {
		if got, ok := stored[k]; !ok || got != values[k] {
			return engine.Refuse("extra field %q: the value was not stored as sent", k)
		}
	}
	return nil
}
