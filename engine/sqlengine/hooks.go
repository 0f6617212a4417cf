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
}

// action carries out a named command on the record with the given key.
type action func(ctx context.Context, w *writer, t *table, key string, in engine.Input) error

// builtinRules are the registers with rules of their own.
func builtinRules() map[string]*registerRules {
	return map[string]*registerRules{
		"tasks":      taskRules(),
		"orders":     orderRules(),
		"orderlines": orderLineRules(),
		"quotes":     quoteRules(),
		"contracts":  contractRules(),
		"times":      timeRules(),
		"materials":  materialRules(),
	}
}

// rules returns the register's rules; never nil.
func (e *Engine) rules(register string) *registerRules {
	if r := e.registerRules[register]; r != nil {
		return r
	}
	return &registerRules{}
}
