package read

import (
	"fmt"
	"time"

	"fieldapi/catalog"
	"fieldapi/engine"
	"fieldapi/engine/store"
)

// rangeCondition is the store's condition of a range or prefix filter
// (catalog filter ops). Dates are kept as sent, ISO 8601, so they compare
// as text in time order; a bare date bounds whole days: lte 2026-11-01
// keeps 2026-11-01T17:00 (it is < 2026-11-02) and gt 2026-11-01 does not.
func rangeCondition(field string, f *catalog.Field, op engine.Op, values []any) (store.Cond, error) {
	if len(values) != 1 || values[0] == nil {
		return store.Cond{}, fmt.Errorf("filter on %s: %s takes one value", f.Name, op)
	}
	v := values[0]
	if f.Type == catalog.Date && (op == engine.OpLte || op == engine.OpGt) {
		if day, ok := v.(string); ok && len(day) == len(time.DateOnly) {
			if t, err := time.Parse(time.DateOnly, day); err == nil {
				v = t.AddDate(0, 0, 1).Format(time.DateOnly)
				op = map[engine.Op]engine.Op{engine.OpLte: engine.OpLt, engine.OpGt: engine.OpGte}[op]
			}
		}
	}
	storeOp := map[engine.Op]store.Op{engine.OpGt: store.Gt, engine.OpGte: store.Ge, engine.OpLt: store.Lt,
		engine.OpLte: store.Le, engine.OpPrefix: store.Prefix}[op]
	if op == engine.OpPrefix && f.Type != catalog.Text && f.Type != catalog.Date {
		return store.Cond{}, fmt.Errorf("filter on %s: prefix takes a text or date field", f.Name)
	}
	return store.Cond{Field: field, Op: storeOp, Value: v}, nil
}

// nullCondition is isnull: true keeps records without a value, false
// those with one.
func nullCondition(f *catalog.Field, c engine.Condition) (store.Cond, error) {
	if len(c.Values) != 1 {
		return store.Cond{}, fmt.Errorf("filter on %s: isnull takes true or false", f.Name)
	}
	isNull, ok := c.Values[0].(bool)
	if !ok {
		return store.Cond{}, fmt.Errorf("filter on %s: isnull takes true or false, not %T", f.Name, c.Values[0])
	}
	if isNull {
		return store.Cond{Field: f.Name, Op: store.IsNull}, nil
	}
	return store.Cond{Field: f.Name, Op: store.NotNull}, nil
}
