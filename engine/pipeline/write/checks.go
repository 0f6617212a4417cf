package write

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"fieldapi/catalog"
	"fieldapi/engine"
	"fieldapi/engine/extrafields"
	"fieldapi/engine/pipeline/registers"
	"fieldapi/engine/store"
)

// What a write must pass, each check driven by the catalog. Every refusal
// text of a write is here, once for every store.

// acceptValues normalizes the fields sent into the record's types (string,
// float64, bool, []string, map[string]string or nil) and refuses a field
// the call may not write. writable says which fields this kind of call
// may send.
func acceptValues(r *registers.Register, sent map[string]any, writable func(*catalog.Field) bool) (map[string]any, error) {
	values := make(map[string]any, len(sent)+len(r.Reg.Defaults)+4)
	for name, v := range sent {
		f := r.Reg.Field(name)
		if f == nil {
			return nil, engine.Refuse("%s have no field %q", r.Reg.Name, name).WithValid(writableNames(r, writable)...)
		}
		if !writable(f) {
			refusal := engine.Refuse("%s is read only", name)
			if f.CreateOnly {
				refusal = refuseChange(name)
			}
			return nil, refusal.WithValid(writableNames(r, writable)...)
		}
		if r.EngineKeyed && f == r.Key {
			return nil, registers.RefuseEngineAssigned(name)
		}
		n, err := registers.Normalize(f, v)
		if err != nil {
			return nil, err
		}
		values[name] = n
	}
	return values, nil
}

func writableOnCreate(f *catalog.Field) bool { return f.Writable || f.CreateOnly }
func writableOnUpdate(f *catalog.Field) bool { return f.Writable && !f.CreateOnly }

func writableNames(r *registers.Register, writable func(*catalog.Field) bool) []string {
	var names []string
	for _, f := range r.Reg.Fields {
		if writable(f) {
			names = append(names, f.Name)
		}
	}
	return names
}

// applyDefaults fills the register's defaults into fields the create
// omitted. "$today" is the date in the company's time zone.
func (w *Writer) applyDefaults(ctx context.Context, r *registers.Register, values map[string]any) error {
	var now time.Time // the write's moment in the company's zone, read when needed
	for _, f := range r.Reg.Fields {
		text, ok := r.Reg.Defaults[f.Name]
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
			now = w.moment.In(loc)
		}
		v, err := registers.ParseDefault(f, text, w.s.Sign, now)
		if err != nil {
			return fmt.Errorf("%s: default of %s: %w", r.Reg.File, f.Name, err)
		}
		values[f.Name] = v
	}
	return nil
}

// The refusals more than one check answers with, worded once.

// refuseMissing refuses a write without a field it needs.
func refuseMissing(name string) *engine.CommandError {
	return engine.Refuse("%s is required", name)
}

// refuseChange refuses an update of a field that is set once.
func refuseChange(name string) *engine.CommandError {
	return engine.Refuse("%s cannot be changed", name)
}

// checkRequired refuses a create that lacks a required field, or that gives
// none of the register's requireOneOf fields.
func checkRequired(r *registers.Register, values map[string]any) error {
	for _, f := range r.Reg.Fields {
		if f.Required && engine.Empty(values[f.Name]) {
			return refuseMissing(f.Name)
		}
	}
	given := func(name string) bool { return !engine.Empty(values[name]) }
	if len(r.Reg.RequireOneOf) == 0 || slices.ContainsFunc(r.Reg.RequireOneOf, given) {
		return nil
	}
	return engine.Refuse("one of %s is required", strings.Join(r.Reg.RequireOneOf, ", ")).WithValid(r.Reg.RequireOneOf...)
}

// assignKey returns the key of a new record: the one given, which must be
// free, or the next number of the register's series. Engine-keyed records
// get theirs from the insert.
func (w *Writer) assignKey(ctx context.Context, r *registers.Register, values map[string]any) (string, error) {
	if r.EngineKeyed {
		return "", nil
	}
	key, _ := values[r.Key.Name].(string)
	if key != "" {
		cond, _ := r.KeyCond(key) // never false: r is not engine-keyed
		n, err := w.tx.Count(ctx, store.Select{Table: r.Reg.Name, Company: w.s.Company, Where: []store.Cond{cond}})
		if err != nil {
			return "", err
		}
		if n > 0 {
			return "", alreadyExists(r, key)
		}
		if w.numbers != nil {
			w.numbers.drop(r.Reg.Name, key)
		}
		return key, nil
	}
	if !r.Reg.NumberSeries {
		return "", refuseMissing(r.Key.Name)
	}
	key, err := w.nextNumber(ctx, r)
	if err != nil {
		return "", err
	}
	values[r.Key.Name] = key
	return key, nil
}

// nextNumber takes the next number of the register's series in the
// company, skipping numbers already used as keys given by hand.
func (w *Writer) nextNumber(ctx context.Context, r *registers.Register) (string, error) {
	if w.numbers != nil {
		return w.numbers.take(ctx, w, r, w.like(r.Reg.Name))
	}
	if key, free := w.useAhead(r); free {
		return key, nil
	}
	for {
		n, free, err := store.NextFreeNumber(ctx, w.tx, w.s.Company, r.Reg.Name, r.Reg.Name, r.Key.Name)
		if err != nil || free {
			return strconv.FormatInt(n, 10), err
		}
	}
}

// alreadyExists is the refusal of a key that is taken.
func alreadyExists(r *registers.Register, key string) error {
	return &engine.KeyTakenError{Record: r.Reg.Record, Field: r.Key.Name, Value: key}
}

// checkExtra validates extra-field values sent against the company's
// definitions.
func (w *Writer) checkExtra(ctx context.Context, r *registers.Register, extra map[string]string) error {
	if len(extra) == 0 {
		return nil
	}
	// Read afresh, not from the cache: a write is checked against the
	// definitions as they are now.
	defs, err := extrafields.Load(ctx, w.tx, w.s.Company, r.Reg.Name)
	if err != nil {
		return err
	}
	return extrafields.Check(r.Reg.Name, r.Reg.ExtraFields, defs, extra)
}

// checkFinite refuses a number about to be stored that is not finite. The
// HTTP layer only passes finite numbers, but what the engine computes from
// them (an order line's TotalPrice from a price near the float64 maximum)
// can overflow; neither database nor JSON can carry the result, so the
// write is refused (422) naming the field rather than failing later.
func checkFinite(r *registers.Register, values map[string]any) error {
	for _, f := range r.Stored {
		if x, isNumber := values[f.Name].(float64); isNumber && (math.IsInf(x, 0) || math.IsNaN(x)) {
			return engine.Refuse("%s: the value is out of range; the amounts sent are too large", f.Name)
		}
	}
	return nil
}
