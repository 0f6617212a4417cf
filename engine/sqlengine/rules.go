package sqlengine

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"fieldapi/catalog"
	"fieldapi/engine"
)

// The business rules a write passes, each driven by the catalog. They run
// inside the write's transaction (w.tx). The rules beyond the catalog are
// engine/rules, run by write.go.

// acceptValues normalizes the fields sent and refuses a field the call may
// not write. writable says which fields this kind of call may send.
func (w *writer) acceptValues(t *table, sent map[string]any, writable func(*catalog.Field) bool) (map[string]any, error) {
	values := make(map[string]any, len(sent))
	for name, v := range sent {
		f := t.reg.Field(name)
		if f == nil {
			return nil, engine.Refuse("%s have no field %q", t.reg.Name, name).WithValid(writableNames(t, writable)...)
		}
		if !writable(f) {
			reason := "is read only"
			if f.CreateOnly {
				reason = "cannot be changed"
			}
			return nil, engine.Refuse("%s %s", name, reason).WithValid(writableNames(t, writable)...)
		}
		if t.engineKeyed && f == t.key {
			return nil, engine.Refuse("%s is assigned by the engine", name)
		}
		n, err := normalize(f, v)
		if err != nil {
			return nil, err
		}
		values[name] = n
	}
	return values, nil
}

func writableOnCreate(f *catalog.Field) bool { return f.Writable || f.CreateOnly }
func writableOnUpdate(f *catalog.Field) bool { return f.Writable && !f.CreateOnly }

func writableNames(t *table, writable func(*catalog.Field) bool) []string {
	var names []string
	for _, f := range t.reg.Fields {
		if writable(f) {
			names = append(names, f.Name)
		}
	}
	return names
}

// applyDefaults fills the register's defaults into fields the create
// omitted. "$today" is the date in the company's time zone (calendar.go).
func (w *writer) applyDefaults(ctx context.Context, t *table, values map[string]any) error {
	var now time.Time // the write's moment in the company's zone, read when needed
	for _, f := range t.reg.Fields {
		text, ok := t.reg.Defaults[f.Name]
		if !ok {
			continue
		}
		if _, given := values[f.Name]; given {
			continue
		}
		if text == "$today" && now.IsZero() {
			loc, err := w.location(ctx)
			if err != nil {
				return err
			}
			now = w.moment().In(loc)
		}
		v, err := parseDefault(f, text, w.s.Sign, now)
		if err != nil {
			return fmt.Errorf("%s: default of %s: %w", t.reg.File, f.Name, err)
		}
		values[f.Name] = v
	}
	return nil
}

// checkRequired refuses a create that lacks a required field, or that gives
// none of the register's requireOneOf fields.
func checkRequired(t *table, values map[string]any) error {
	for _, f := range t.reg.Fields {
		if f.Required && isEmpty(values[f.Name]) {
			return engine.Refuse("%s is required", f.Name)
		}
	}
	if len(t.reg.RequireOneOf) == 0 {
		return nil
	}
	for _, name := range t.reg.RequireOneOf {
		if !isEmpty(values[name]) {
			return nil
		}
	}
	return engine.Refuse("one of %s is required", strings.Join(t.reg.RequireOneOf, ", ")).WithValid(t.reg.RequireOneOf...)
}

// resolveReferences checks that every reference field in values names an
// existing record of its register in the same company, then fills the
// lookup fields that copy from the records referenced. A cleared reference
// clears its lookups.
func (w *writer) resolveReferences(ctx context.Context, t *table, values map[string]any) error {
	for _, f := range t.reg.Fields {
		v, present := values[f.Name]
		if f.References == "" || !present {
			continue
		}
		rt := w.e.tables[f.References]
		var referenced engine.Record
		switch x := v.(type) {
		case string:
			if x == "" {
				break
			}
			rec, err := w.referenced(ctx, rt, x)
			if err != nil {
				return err
			}
			referenced = rec
		case []string:
			for _, item := range x {
				if _, err := w.referenced(ctx, rt, item); err != nil {
					return err
				}
			}
		}
		for _, l := range t.reg.Fields {
			ref, source, ok := strings.Cut(l.Lookup, ".")
			if !ok || ref != f.Name {
				continue
			}
			values[l.Name] = nil
			if referenced != nil {
				values[l.Name] = referenced[source]
			}
		}
	}
	return nil
}

// fillReferencedDefaults gives a new record's empty defaultFrom fields
// (catalog Field.DefaultFrom, Ref.Field) the value of Field in the record
// the reference field Ref names: an order line's Unit from its product.
func (w *writer) fillReferencedDefaults(ctx context.Context, t *table, values map[string]any) error {
	for _, f := range t.reg.Fields {
		ref, source, ok := strings.Cut(f.DefaultFrom, ".")
		if !ok || !isEmpty(values[f.Name]) {
			continue
		}
		key, _ := values[ref].(string)
		if key == "" {
			continue
		}
		referenced, err := w.referenced(ctx, w.e.tables[t.reg.Field(ref).References], key)
		if err != nil {
			return err
		}
		values[f.Name] = referenced[source]
	}
	return nil
}

// referenced reads the record a reference names, or refuses the write with
// the engine's text, such as `Customer "X" does not exist`.
func (w *writer) referenced(ctx context.Context, rt *table, key string) (engine.Record, error) {
	cond, arg, ok := rt.keyMatch(key)
	if !ok {
		return nil, w.unknownReference(ctx, rt, key)
	}
	recs, _, err := w.e.fetch(ctx, w.tx, rt, w.s.Company, " AND "+cond, arg)
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, w.unknownReference(ctx, rt, key)
	}
	return recs[0], nil
}

// unknownReference is the refusal of a key that names no record of rt,
// listing the valid keys when rt's rules offer them (validKeys).
func (w *writer) unknownReference(ctx context.Context, rt *table, key string) error {
	missing := engine.Refuse("%s %q does not exist", rt.reg.Record, key)
	keys, listed, err := w.e.rules.ValidKeys(ctx, w.ruleTx(), rt.reg.Name)
	if err != nil {
		return err
	}
	if !listed {
		return missing
	}
	return missing.WithValid(keys...)
}

// keyExists reports whether the company has a record with this key.
func (w *writer) keyExists(ctx context.Context, t *table, key string) (bool, error) {
	cond, arg, ok := t.keyMatch(key)
	if !ok {
		return false, nil
	}
	var n int
	err := get(ctx, w.tx, &n, `SELECT COUNT(*) FROM `+t.name()+` WHERE "company" = ? AND `+cond, w.s.Company, arg)
	return n > 0, err
}

// alreadyExists is the refusal of a key that is taken.
func alreadyExists(t *table, key string) error {
	return engine.Refuse("%s %s %s already exists", t.reg.Record, t.key.Name, key)
}

// nextNumber takes the next number of the register's series in the
// company, skipping numbers already used as keys given by hand.
//
// The UPDATE ... RETURNING both reads and advances the counter, and holds
// the row lock until the transaction ends (PostgreSQL; SQLite's write lock
// covers the whole transaction), so parallel creates never get the same
// number, and a rolled-back create gives its number back.
func (w *writer) nextNumber(ctx context.Context, t *table) (string, error) {
	for {
		// One statement takes the number: the series' first use starts it
		// at 1 (stored next: 2), every other use advances it.
		var n int64
		err := get(ctx, w.tx, &n, `INSERT INTO "number_series" ("company", "register", "next") VALUES (?, ?, 2)
			ON CONFLICT ("company", "register") DO UPDATE SET "next" = "number_series"."next" + 1
			RETURNING "next" - 1`, w.s.Company, t.reg.Name)
		if err != nil {
			return "", err
		}
		key := strconv.FormatInt(n, 10)
		taken, err := w.keyExists(ctx, t, key)
		if err != nil {
			return "", err
		}
		if !taken {
			return key, nil
		}
	}
}
