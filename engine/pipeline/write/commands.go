package write

import (
	"context"
	"maps"
	"slices"

	"fieldapi/catalog"
	"fieldapi/engine"
	"fieldapi/engine/pipeline/registers"
)

// AddLine creates one line of a line list on an existing record (POST
// /v1/tasks/{nr}/times): the owner's rules decide what it inherits, it is
// logged on the owner, and the receipt renders the line as written.
func (e *Writes) AddLine(ctx context.Context, s engine.Session, register, key, line string, in engine.Input, rc engine.Receipt) (engine.Response, error) {
	r, err := e.registers.Get(register)
	if err != nil {
		return engine.Response{}, err
	}
	l := r.Line(line)
	if l == nil || !l.Post {
		return engine.Response{}, engine.Refuse("lines cannot be added to %s one by one", register)
	}
	return e.writeAs(ctx, e.newWriter(s), register, rc, &plannedInput{e.registers[l.Register], in, true},
		func(ctx context.Context, w *Writer) (engine.Record, error) {
			owner, _, err := e.reads.Record(ctx, w.tx, r, s.Company, key, true)
			if err != nil {
				return nil, err
			}
			if err := in.CheckVersion(owner); err != nil {
				return nil, err
			}
			// A refusal names no line: the body is the one line.
			lines, _, err := w.createLines(ctx, &lineOwner{r, owner, l, key}, []engine.Input{in})
			if err != nil {
				return nil, err
			}
			w.Emit(register, l.LineEvent(), key, lines[0].sent)
			return w.createdRecord(ctx, lines[0], true)
		})
}

// Act runs a named action of the register's rules on one record; the
// receipt renders the record after it.
func (e *Writes) Act(ctx context.Context, s engine.Session, register, key, name string, in engine.Input, rc engine.Receipt) (engine.Response, error) {
	r, err := e.registers.Get(register)
	if err != nil {
		return engine.Response{}, err
	}
	act := e.rules.Action(register, name)
	if act == nil {
		return engine.Response{}, engine.Refuse("%s have no action %q", register, name)
	}
	return e.Write(ctx, s, register, rc, func(ctx context.Context, w *Writer) (engine.Record, error) {
		current, _, err := e.reads.Record(ctx, w.tx, r, s.Company, key, true)
		if err != nil {
			return nil, err
		}
		if err := in.CheckVersion(current); err != nil {
			return nil, err
		}
		if err := act(ctx, ruleTx{w}, key, in); err != nil {
			return nil, err
		}
		w.Emit(register, actionOf(r, name).Event, key, changedNames(slices.Sorted(maps.Keys(in.Values)), in.Extra))
		rec, _, err := e.reads.Record(ctx, w.tx, r, s.Company, key, false)
		return rec, err
	})
}

// actionOf returns the register's catalog action with the given name; the
// rules were bound only if every action they carry out is declared.
func actionOf(r *registers.Register, name string) *catalog.Action {
	for _, a := range r.Reg.Actions {
		if a.Name == name {
			return a
		}
	}
	return &catalog.Action{Name: name, Event: catalog.Column(name)}
}
