package sqlengine

import (
	"context"
	"maps"
	"slices"
	"strings"
	"time"

	"fieldapi/engine"
	"fieldapi/engine/rules"
)

// ruleTx is what the rules (engine/rules) may do inside a write: the
// engine's side of rules.Tx, over the writer's transaction.
type ruleTx struct{ w *writer }

var _ rules.Tx = ruleTx{}

func (w *writer) ruleTx() ruleTx { return ruleTx{w} }

func (x ruleTx) Session() engine.Session { return x.w.s }
func (x ruleTx) Now() time.Time          { return x.w.moment() }

func (x ruleTx) Location(ctx context.Context) (*time.Location, error) { return x.w.location(ctx) }

func (x ruleTx) Setting(ctx context.Context, name string) (string, bool, error) {
	return x.w.setting(ctx, name)
}

func (x ruleTx) Referenced(ctx context.Context, register, key string) (engine.Record, error) {
	t, err := x.w.e.table(register)
	if err != nil {
		return nil, err
	}
	return x.w.referenced(ctx, t, key)
}

func (x ruleTx) Record(ctx context.Context, register, key string) (engine.Record, error) {
	t, err := x.w.e.table(register)
	if err != nil {
		return nil, err
	}
	rec, _, err := x.w.e.getRecord(ctx, x.w.tx, t, x.w.s.Company, key)
	return rec, err
}

func (x ruleTx) Records(ctx context.Context, register string) ([]engine.Record, error) {
	t, err := x.w.e.table(register)
	if err != nil {
		return nil, err
	}
	recs, _, err := x.w.e.fetch(ctx, x.w.tx, t, x.w.s.Company, ` ORDER BY "seq"`)
	return recs, err
}

// UpdateIf is one UPDATE of the record's row, conditioned on the expected
// values, so a rule's read-check-write holds against parallel calls.
func (x ruleTx) UpdateIf(ctx context.Context, register, key string, expect, set map[string]any) (bool, error) {
	t, err := x.w.e.table(register)
	if err != nil {
		return false, err
	}
	keyCond, keyArg, ok := t.keyMatch(key)
	if !ok {
		return false, nil
	}
	sets := []string{quote(modifiedColumn) + " = ?"}
	args := []any{x.w.now}
	for _, name := range slices.Sorted(maps.Keys(set)) {
		f, err := t.field(name)
		if err != nil {
			return false, err
		}
		sets = append(sets, t.column(f)+" = ?")
		args = append(args, toDB(f, set[name]))
	}
	where := []string{`"company" = ?`, keyCond}
	args = append(args, x.w.s.Company, keyArg)
	for _, name := range slices.Sorted(maps.Keys(expect)) {
		f, err := t.field(name)
		if err != nil {
			return false, err
		}
		if expect[name] == nil {
			where = append(where, t.column(f)+" IS NULL")
			continue
		}
		where = append(where, t.column(f)+" = ?")
		args = append(args, toDB(f, expect[name]))
	}
	n, err := execAffected(ctx, x.w.tx, `UPDATE `+t.name()+` SET `+strings.Join(sets, ", ")+` WHERE `+strings.Join(where, " AND "), args...)
	return n > 0, err
}

func (x ruleTx) Log(ctx context.Context, register, key, action, detail string, record engine.Record) error {
	t, err := x.w.e.table(register)
	if err != nil {
		return err
	}
	return x.w.log(ctx, t, key, action, detail, record)
}
