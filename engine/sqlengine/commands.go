package sqlengine

import (
	"context"
	"maps"
	"slices"

	"fieldapi/catalog"
	"fieldapi/engine"
)

var _ engine.Commands = (*Engine)(nil)

// AddLine creates one line of a line list on an existing record (POST
// /v1/tasks/{nr}/times): the owner's rules decide what it inherits, it is
// logged on the owner, and the receipt renders the line as written.
func (e *Engine) AddLine(ctx context.Context, s engine.Session, register, key, line string, in engine.Input, r engine.Receipt) (engine.Response, error) {
	return call(e, ctx, func(ctx context.Context) (engine.Response, error) {
		t, err := e.table(register)
		if err != nil {
			return engine.Response{}, err
		}
		l := lineOf(t, line)
		if l == nil || !l.Post {
			return engine.Response{}, engine.Refuse("lines cannot be added to %s one by one", register)
		}
		return e.writeCall(ctx, s, t, r, func(ctx context.Context, w *writer) (engine.Record, error) {
			owner, err := w.lockedRecord(ctx, t, key)
			if err != nil {
				return nil, err
			}
			if err := in.CheckVersion(owner); err != nil {
				return nil, err
			}
			c, err := w.createLine(ctx, t, owner, l, key, in)
			if err != nil {
				return nil, err
			}
			w.emit(t, l.LineEvent(), key, c.sent)
			return e.readCreated(ctx, w.tx, s.Company, c)
		})
	})
}

// Act runs a named action of the register's rules on one record; the
// receipt renders the record after it.
func (e *Engine) Act(ctx context.Context, s engine.Session, register, key, name string, in engine.Input, r engine.Receipt) (engine.Response, error) {
	return call(e, ctx, func(ctx context.Context) (engine.Response, error) {
		t, err := e.table(register)
		if err != nil {
			return engine.Response{}, err
		}
		act := e.rules.Action(register, name)
		if act == nil {
			return engine.Response{}, engine.Refuse("%s have no action %q", register, name)
		}
		return e.writeCall(ctx, s, t, r, func(ctx context.Context, w *writer) (engine.Record, error) {
			current, err := w.lockedRecord(ctx, t, key)
			if err != nil {
				return nil, err
			}
			if err := in.CheckVersion(current); err != nil {
				return nil, err
			}
			if err := act(ctx, w.ruleTx(), key, in); err != nil {
				return nil, err
			}
			w.emit(t, actionOf(t, name).Event, key, changedNames(slices.Sorted(maps.Keys(in.Values)), in.Extra))
			rec, _, err := e.getRecord(ctx, w.tx, t, s.Company, key)
			return rec, err
		})
	})
}

// actionOf returns the register's catalog action with the given name; the
// engine checks at open that every action it carries out is declared.
func actionOf(t *table, name string) *catalog.Action {
	for _, a := range t.reg.Actions {
		if a.Name == name {
			return a
		}
	}
	return &catalog.Action{Name: name, Event: catalog.Column(name)}
}
