package sqlengine

import (
	"context"

	"fieldapi/catalog"
	"fieldapi/engine"
)

// registerRules are one register's business rules beyond what the catalog
// declares. A register that has any keeps them in a file of its own
// (tasks.go, orders.go, ...) and lists them in builtinRules. Every hook
// runs inside the write's transaction; a hook that refuses returns an
// *engine.CommandError. A nil hook does nothing.
type registerRules struct {
	// prepareCreate runs on a new record once defaults are applied and
	// references resolved (lookups filled), just before it is stored: it
	// may fill values (prices, plan dates) or refuse.
	prepareCreate func(ctx context.Context, w *writer, t *table, values map[string]any) error
	// prepareUpdate runs before an update is stored, with the record as it
	// is and the values about to change (references resolved).
	prepareUpdate func(ctx context.Context, w *writer, t *table, current engine.Record, values map[string]any) error
	// prepareLine runs on the owner's side before one of its lines is
	// created, with the owner's values: what a line inherits from its owner.
	prepareLine func(ctx context.Context, w *writer, owner map[string]any, l *catalog.Line, values map[string]any) error
	// afterCreate runs once the record and all its lines are stored (a
	// task's status is applied last).
	afterCreate func(ctx context.Context, w *writer, c *created, values map[string]any) error
	// afterUpdate runs once an update is stored, with the record before
	// and after it.
	afterUpdate func(ctx context.Context, w *writer, t *table, before, after engine.Record) error
	// actions are the register's named commands (catalog actions), by name.
	actions map[string]action
	// locateFrom lists the reference fields a record without an address of
	// its own is located from, in order; nil: every reference field, in
	// catalog order.
	locateFrom []string
	// validKeys lists the keys a refusal of an unknown reference to this
	// register names in validValues (time type names, spec 7 rule 1).
	// Unset for registers too large or too private to list.
	validKeys func(ctx context.Context, w *writer) ([]string, error)
	// listCondition rewrites one condition of a list of this register
	// before it becomes SQL: it may give a value a meaning of its own
	// (ownerType=none) or refuse it with an *engine.CommandError.
	listCondition func(c engine.Condition) (engine.Condition, error)
}

// action carries out a named command on the record with the given key.
type action func(ctx context.Context, w *writer, t *table, key string, in engine.Input) error

// builtinRules are the registers with rules of their own.
func builtinRules() map[string]*registerRules {
	return map[string]*registerRules{
		"addresses":  addressRules(),
		"tasks":      taskRules(),
		"orders":     orderRules(),
		"orderlines": orderLineRules(),
		"quotes":     quoteRules(),
		"times":      timeRules(),
		"timetypes":  timeTypeRules(),
		"materials":  ownerLines(materialRules()),
	}
}

// rules returns the register's rules; never nil.
func (e *Engine) rules(register string) *registerRules {
	if r := e.registerRules[register]; r != nil {
		return r
	}
	return &registerRules{}
}

// valuesAfter is what the named fields of a record will hold once an
// update's values are written: the value sent, else the current one.
func valuesAfter(current engine.Record, values map[string]any, names []string) map[string]any {
	after := make(map[string]any, len(names))
	for _, name := range names {
		after[name] = current[name]
		if v, changed := values[name]; changed {
			after[name] = v
		}
	}
	return after
}
