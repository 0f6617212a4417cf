package write

import (
	"context"
	"maps"
	"slices"
	"strings"

	"fieldapi/catalog"
	"fieldapi/engine"
	"fieldapi/engine/pipeline/registers"
	"fieldapi/engine/store"
)

// References: a reference field holds the key (or a lookup key:
// ReferencesBy) of an existing record of the company; lookup fields copy a
// field of it, a defaultFrom field takes one when the create leaves it
// empty. prefetch reads every key a write's input names, one query per
// register, and the rules' lookups find them in the writer's cache.

// plannedInput is a write's input on its register, for prefetch: create
// when the write may create (defaults apply to creates only).
type plannedInput struct {
	r      *registers.Register
	in     engine.Input
	create bool
}

// prefetch reads the records the inputs of writes and their lines name in
// their reference fields into the writer's cache, one query per register;
// with the signature's user where $sign is the default of a create. A key
// it misses (one a rule or a default computes) is read when asked for.
func (w *Writer) prefetch(ctx context.Context, writes ...plannedInput) error {
	wanted := map[string][]string{} // refCache name → keys
	targets := map[string]refTarget{}
	add := func(t refTarget, key string) {
		name := t.cacheName()
		targets[name] = t
		if key != "" && !slices.Contains(wanted[name], key) && !w.cached(name, key) {
			wanted[name] = append(wanted[name], key)
		}
	}
	var collect func(r *registers.Register, in engine.Input, mayCreate bool)
	collect = func(r *registers.Register, in engine.Input, mayCreate bool) {
		for _, f := range r.Reg.Fields {
			if f.References == "" {
				continue
			}
			t := w.e.refTargetOf(f)
			switch v := in.Values[f.Name].(type) {
			case string:
				add(t, v)
			case []string:
				for _, key := range v {
					add(t, key)
				}
			case []any:
				for _, item := range v {
					key, _ := item.(string)
					add(t, key)
				}
			}
			if mayCreate && r.Reg.Defaults[f.Name] == "$sign" {
				add(t, w.s.Sign)
			}
		}
		for name, lines := range in.Lines {
			if l := r.Line(name); l != nil {
				for _, line := range lines {
					collect(w.e.registers[l.Register], line, mayCreate)
				}
			}
		}
	}
	for _, p := range writes {
		collect(p.r, p.in, p.create)
	}
	names := slices.Sorted(maps.Keys(wanted))
	queries := make([]store.Select, len(names))
	for i, name := range names {
		queries[i] = w.referencedSelect(targets[name], wanted[name])
	}
	found, err := w.selectAhead(ctx, queries)
	if err != nil {
		return err
	}
	for i, name := range names {
		w.noteReferenced(targets[name], wanted[name], found[i])
	}
	return nil
}

// selectAhead runs prefetch's selects, taking the number a create wants
// (numberAhead) in the same round trip where the store can: before the
// transaction, with selects to ride along.
func (w *Writer) selectAhead(ctx context.Context, queries []store.Select) ([][]store.Row, error) {
	a := w.numberAhead
	taker, ok := w.e.store.(store.NumberTaker)
	if a == nil || !ok || w.tx != nil || len(queries) == 0 {
		return store.SelectEach(ctx, w.reader(), queries)
	}
	name := a.r.Reg.Name
	found, taken, err := taker.SelectEachTakingNumber(ctx, queries,
		store.NumberOf{Company: w.s.Company, Series: name, Table: name, Field: a.r.Key.Name})
	a.taken = taken
	return found, err
}

// refTarget is where a reference names its record: the register, and the
// lookup key it names it by (catalog Field.ReferencesBy; nil: the key).
type refTarget struct {
	rt *registers.Register
	by *catalog.Field
}

// refTargetOf is the target of a reference field.
func (e *Writes) refTargetOf(f *catalog.Field) refTarget {
	rt := e.registers[f.References]
	if f.ReferencesBy == "" {
		return refTarget{rt: rt}
	}
	return refTarget{rt: rt, by: rt.Reg.Field(f.ReferencesBy)}
}

// cacheName is the writer's cache of the records a target finds: the
// register's name, by key; the register and the lookup key, else.
func (t refTarget) cacheName() string {
	if t.by == nil {
		return t.rt.Reg.Name
	}
	return t.rt.Reg.Name + "/by-" + t.by.Name
}

// referencedSelect reads the records of a target by key (or lookup key).
func (w *Writer) referencedSelect(t refTarget, keys []string) store.Select {
	rt := t.rt
	var cond store.Cond
	if t.by != nil {
		cond = store.OneOf(t.by.Name, keys)
	} else if rt.EngineKeyed {
		var seqs []int64
		for _, key := range keys {
			if c, ok := rt.KeyCond(key); ok {
				seqs = append(seqs, c.Value.(int64))
			}
		}
		cond = store.OneOf(store.SeqField, seqs)
	} else {
		cond = store.OneOf(rt.Key.Name, keys)
	}
	return store.Select{Table: rt.Reg.Name, Company: w.s.Company, Where: []store.Cond{cond}}
}

// noteReferenced keeps the records of a target read by keys in the
// cache, noting the keys that name none.
func (w *Writer) noteReferenced(t refTarget, keys []string, rows []store.Row) {
	rt := t.rt
	found := w.refCache(t)
	for _, key := range keys {
		found[key] = nil
	}
	for _, row := range rows {
		key := rt.KeyOf(row)
		if t.by != nil {
			key, _ = row.Values[t.by.Name].(string)
		}
		found[key] = rt.AsRecord(row)
	}
}

// noteCreating caches a record about to be stored: its lines, checked
// before, find it through their parent field and copy their lookups.
func (w *Writer) noteCreating(r *registers.Register, key string, values map[string]any) {
	w.refCache(refTarget{rt: r})[key] = maps.Clone(values)
}

// refCache is the cache of a target's records by key, made on first use.
func (w *Writer) refCache(t refTarget) map[string]engine.Record {
	if w.refs == nil {
		w.refs = map[string]map[string]engine.Record{}
	}
	found := w.refs[t.cacheName()]
	if found == nil {
		found = map[string]engine.Record{}
		w.refs[t.cacheName()] = found
	}
	return found
}

// cached reports whether the writer knows whether the key names a record.
func (w *Writer) cached(register, key string) bool {
	_, ok := w.refs[register][key]
	return ok
}

// referenced reads the record a reference names by the target's key or
// lookup key, or refuses the write with the engine's text, such as
// `Customer "X" does not exist`.
func (w *Writer) referenced(ctx context.Context, t refTarget, key string) (engine.Record, error) {
	if !w.cached(t.cacheName(), key) {
		keys := []string{key}
		rows, err := w.reader().Select(ctx, w.referencedSelect(t, keys))
		if err != nil {
			return nil, err
		}
		w.noteReferenced(t, keys, rows)
	}
	if rec := w.refs[t.cacheName()][key]; rec != nil {
		return rec, nil
	}
	if t.by != nil {
		return nil, engine.Refuse("%s with %s %q does not exist", t.rt.Reg.Record, t.by.Name, key)
	}
	return nil, w.unknownReference(ctx, t.rt, key)
}

// unknownReference is the refusal of a key that names no record of rt,
// listing the valid keys when rt's rules offer them (time type names).
func (w *Writer) unknownReference(ctx context.Context, rt *registers.Register, key string) error {
	missing := engine.Refuse("%s %q does not exist", rt.Reg.Record, key)
	keys, listed, err := w.e.rules.ValidKeys(ctx, ruleTx{w}, rt.Reg.Name)
	if err != nil {
		return err
	}
	if !listed {
		return missing
	}
	return missing.WithValid(keys...)
}

// resolveReferences checks that every reference field in values names a
// record, and fills the lookup fields that copy from it. A cleared
// reference clears its lookups.
func (w *Writer) resolveReferences(ctx context.Context, r *registers.Register, values map[string]any) error {
	for _, f := range r.Reg.Fields {
		v, present := values[f.Name]
		if f.References == "" || !present {
			continue
		}
		t := w.e.refTargetOf(f)
		var referenced engine.Record
		switch x := v.(type) {
		case string:
			if x == "" {
				break
			}
			rec, err := w.referenced(ctx, t, x)
			if err != nil {
				return err
			}
			referenced = rec
		case []string:
			for _, item := range x {
				if _, err := w.referenced(ctx, t, item); err != nil {
					return err
				}
			}
		}
		for _, l := range r.Reg.Fields {
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
func (w *Writer) fillReferencedDefaults(ctx context.Context, r *registers.Register, values map[string]any) error {
	for _, f := range r.Reg.Fields {
		ref, source, ok := strings.Cut(f.DefaultFrom, ".")
		if !ok || !engine.Empty(values[f.Name]) {
			continue
		}
		key, _ := values[ref].(string)
		if key == "" {
			continue
		}
		referenced, err := w.referenced(ctx, refTarget{rt: w.e.registers[r.Reg.Field(ref).References]}, key)
		if err != nil {
			return err
		}
		values[f.Name] = referenced[source]
	}
	return nil
}
