package write

import (
	"context"
	"maps"
	"time"

	"fieldapi/engine"
	"fieldapi/engine/pipeline/registers"
	"fieldapi/engine/rules"
	"fieldapi/engine/store"
)

// ruleTx is what the rules (engine/rules) may do inside a write: the
// pipeline's side of rules.Tx, over the writer's transaction.
type ruleTx struct{ w *Writer }

var _ rules.Tx = ruleTx{}

func (x ruleTx) Session() engine.Session { return x.w.s }
func (x ruleTx) Now() time.Time          { return x.w.moment }

func (x ruleTx) Location(ctx context.Context) (*time.Location, error) { return x.w.location(ctx) }

func (x ruleTx) Setting(ctx context.Context, name string) (string, bool, error) {
	return x.w.setting(ctx, name)
}

func (x ruleTx) DecodedSetting(ctx context.Context, name string, decode func(string) (any, error)) (any, bool, error) {
	company, err := x.w.companySettings(ctx)
	if err != nil {
		return nil, false, err
	}
	return company.Decoded(name, decode)
}

func (x ruleTx) Referenced(ctx context.Context, register, key string) (engine.Record, error) {
	r, err := x.w.e.registers.Get(register)
	if err != nil {
		return nil, err
	}
	return x.w.referenced(ctx, refTarget{rt: r}, key)
}

func (x ruleTx) Record(ctx context.Context, register, key string) (engine.Record, error) {
	r, err := x.w.e.registers.Get(register)
	if err != nil {
		return nil, err
	}
	rec, _, err := x.w.e.reads.Record(ctx, x.w.tx, r, x.w.s.Company, key, false)
	return rec, err
}

func (x ruleTx) Records(ctx context.Context, register string) ([]engine.Record, error) {
	r, err := x.w.e.registers.Get(register)
	if err != nil {
		return nil, err
	}
	recs, _, err := x.w.e.reads.Fetch(ctx, x.w.tx, r, store.Select{Table: r.Reg.Name, Company: x.w.s.Company,
		OrderBy: []store.Order{{Field: store.SeqField}}})
	return recs, err
}

// UpdateIf is one update of the record's row, conditioned on the expected
// values, so a rule's read-check-write holds against parallel calls.
func (x ruleTx) UpdateIf(ctx context.Context, register, key string, expect, set map[string]any) (bool, error) {
	r, err := x.w.e.registers.Get(register)
	if err != nil {
		return false, err
	}
	cond, ok := r.KeyCond(key)
	if !ok {
		return false, nil
	}
	where := []store.Cond{cond}
	for name, v := range expect {
		where = append(where, store.Equal(name, v))
	}
	row := make(store.Values, len(set)+1)
	values := x.w.live[liveKey{register, key}]
	if values == nil {
		// A record the write created or changed has Modified now already:
		// leaving it out spares SQLite the rewrite of its index entry (a
		// task create's Id, once per create).
		row[registers.ModifiedField] = x.w.now
	}
	maps.Copy(row, set)
	x.w.touch(register)
	x.w.ruleUpdates++
	n, err := x.w.tx.Update(ctx, r.Reg.Name, x.w.s.Company, where, row)
	if n > 0 && values != nil {
		maps.Copy(values, row) // the write's answer shows the change
	}
	return n > 0, err
}

func (x ruleTx) Log(ctx context.Context, register, key, action, detail string, record engine.Record) error {
	return x.w.Log(register, key, action, detail, record)
}
