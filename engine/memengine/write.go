package memengine

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
)

// write is one write call. It changes the engine's rows as it goes and
// keeps how to undo each change, so a refused write, a receipt that fails
// or a lost claim leaves everything as it was (the engine's mutex is held
// throughout).
type write struct {
	e        *Engine
	s        engine.Session
	modified time.Time
	undo     []func() // run last first to roll back
}

func (e *Engine) newWrite(s engine.Session) *write {
	return &write{e: e, s: s, modified: e.nextModified()}
}

// add stores a new row.
func (w *write) add(register string, rw *row) {
	n := len(w.e.rows[register])
	w.e.rows[register] = append(w.e.rows[register], rw)
	w.undo = append(w.undo, func() { w.e.rows[register] = w.e.rows[register][:n] })
}

// replace stores a new version of a row.
func (w *write) replace(rw *row, updated row) {
	old := *rw
	*rw = updated
	w.undo = append(w.undo, func() { *rw = old })
}

// setNumber moves a number series on.
func (w *write) setNumber(series string, n int64) {
	old := w.e.numbers[series]
	w.e.numbers[series] = n
	w.undo = append(w.undo, func() { w.e.numbers[series] = old })
}

// finish renders the receipt from the record written and marks the claim
// done with it; on any error, before or here, the write is rolled back.
func (w *write) finish(r engine.Receipt, rec engine.Record, err error) (engine.Response, error) {
	var resp engine.Response
	if err == nil && r.Render != nil {
		resp, err = r.Render(rec)
	}
	if err == nil && r.Claim.Key != "" {
		c := w.e.claims[claimID(r.Claim)]
		if c == nil || c.token != r.Claim.Token || c.done {
			err = errClaimLost
		} else {
			c.done, c.response = true, resp
		}
	}
	if err != nil {
		for i := len(w.undo) - 1; i >= 0; i-- {
			w.undo[i]()
		}
		return engine.Response{}, err
	}
	return resp, nil
}

// Create writes a new record with its lines, all or nothing, and stores
// the receipt with the idempotency claim.
func (e *Engine) Create(_ context.Context, s engine.Session, register string, in engine.Input, r engine.Receipt) (engine.Response, error) {
	if err := e.begin(); err != nil {
		return engine.Response{}, err
	}
	defer e.mu.Unlock()
	reg, err := e.writable(s, register, catalog.Create)
	if err != nil {
		return engine.Response{}, err
	}
	w := e.newWrite(s)
	rw, lines, err := w.create(reg, in, nil)
	if err != nil {
		return w.finish(r, nil, err)
	}
	rec := e.read(reg, rw)
	rec[engine.VersionField] = rec.Version() // as a Get reads it, before the lines only a create answers with
	for _, l := range reg.Lines {
		if !l.Read && len(lines[l.Name]) > 0 {
			lr := e.cat.Register(l.Register)
			recs := make([]engine.Record, len(lines[l.Name]))
			for i, line := range lines[l.Name] {
				recs[i] = e.read(lr, line)
			}
			rec[l.ReadName] = recs
		}
	}
	return w.finish(r, rec, nil)
}

// Update changes the fields present in the input.
func (e *Engine) Update(_ context.Context, s engine.Session, register, key string, in engine.Input, r engine.Receipt) (engine.Response, error) {
	if err := e.begin(); err != nil {
		return engine.Response{}, err
	}
	defer e.mu.Unlock()
	reg, err := e.writable(s, register, catalog.Update)
	if err != nil {
		return engine.Response{}, err
	}
	current := e.find(reg, s.Company, key)
	if current == nil {
		return engine.Response{}, fmt.Errorf("%s %q: %w", reg.Record, key, engine.ErrNotFound)
	}
	if err := in.CheckVersion(e.read(reg, current)); err != nil {
		return engine.Response{}, err
	}
	if len(in.Lines) > 0 {
		return engine.Response{}, engine.Refuse("lines can only be sent when creating %s", reg.Name)
	}
	w := e.newWrite(s)
	values, err := w.accept(reg, in, func(f *catalog.Field) bool { return f.Writable && !f.CreateOnly })
	if err != nil {
		return engine.Response{}, err
	}
	if v, sent := values[reg.Key]; sent && v != key {
		return engine.Response{}, engine.Refuse("%s cannot be changed", reg.Key)
	}
	for name, v := range values {
		if reg.Field(name).Required && engine.Empty(v) {
			return engine.Response{}, engine.Refuse("%s is required", name)
		}
	}
	if err := w.resolveReferences(reg, values); err != nil {
		return engine.Response{}, err
	}
	if len(values) > 0 {
		updated := row{seq: current.seq, company: current.company, modified: w.modified, values: engine.Record{}}
		for name, v := range current.values {
			updated.values[name] = v
		}
		for name, v := range values {
			updated.values[name] = v
		}
		w.replace(current, updated)
	}
	return w.finish(r, e.read(reg, current), nil)
}

// writable returns a register the signature may write with method m.
func (e *Engine) writable(s engine.Session, register string, m catalog.Method) (*catalog.Register, error) {
	reg, err := e.register(register)
	if err != nil {
		return nil, err
	}
	if !reg.Has(m) {
		return nil, engine.Refuse("%s cannot be written with %s through the API", register, m)
	}
	return reg, e.authorize(s, register, "write")
}

// create prepares one record and its lines. fixed holds what an owner
// sets on its lines (the parent key, the list's set values).
func (w *write) create(reg *catalog.Register, in engine.Input, fixed map[string]any) (*row, map[string][]*row, error) {
	values, err := w.accept(reg, in, func(f *catalog.Field) bool { return f.Writable || f.CreateOnly })
	if err != nil {
		return nil, nil, err
	}
	for name, v := range fixed {
		values[name] = v
	}
	for _, f := range reg.Fields {
		text, ok := reg.Defaults[f.Name]
		if _, given := values[f.Name]; ok && !given {
			switch text {
			case "$sign":
				text = w.s.Sign
			case "$today":
				text = w.modified.Format("2006-01-02")
			}
			if values[f.Name], err = f.ParseValue(text); err != nil {
				return nil, nil, fmt.Errorf("%s: default of %s: %w", reg.File, f.Name, err)
			}
		}
	}
	if err := checkRequired(reg, values); err != nil {
		return nil, nil, err
	}
	w.e.seq++
	rw := &row{seq: w.e.seq, company: w.s.Company, modified: w.modified, values: values}
	if err := w.assignKey(reg, rw); err != nil {
		return nil, nil, err
	}
	if err := w.resolveReferences(reg, values); err != nil {
		return nil, nil, err
	}
	for name := range in.Lines {
		if !slices.ContainsFunc(reg.Lines, func(l *catalog.Line) bool { return l.Name == name }) {
			return nil, nil, engine.Refuse("%s have no line list %q", reg.Name, name)
		}
	}
	w.add(reg.Name, rw)

	lines := map[string][]*row{}
	for _, l := range reg.Lines {
		lr := w.e.cat.Register(l.Register)
		for i, lineIn := range in.Lines[l.Name] {
			set := map[string]any{l.Parent: keyOf(reg, rw)}
			for name, text := range l.Set {
				set[name], _ = lr.Field(name).ParseValue(text)
			}
			line, _, err := w.create(lr, lineIn, set)
			if refusal, ok := err.(*engine.CommandError); ok {
				return nil, nil, refusal.InLine(l.Name, i)
			}
			if err != nil {
				return nil, nil, err
			}
			lines[l.Name] = append(lines[l.Name], line)
		}
	}
	return rw, lines, nil
}

// accept checks the fields sent against the catalog and returns them
// normalized. writable says which fields this call may send.
func (w *write) accept(reg *catalog.Register, in engine.Input, writable func(*catalog.Field) bool) (map[string]any, error) {
	if len(in.Extra) > 0 {
		return nil, engine.Refuse("%s have no extra fields in this engine", reg.Name)
	}
	values := map[string]any{}
	for name, v := range in.Values {
		f := reg.Field(name)
		switch {
		case f == nil:
			return nil, engine.Refuse("%s have no field %q", reg.Name, name)
		case reg.EngineKeyed() && name == reg.Key:
			return nil, engine.Refuse("%s is assigned by the engine", name)
		case !writable(f):
			return nil, engine.Refuse("%s is read only", name)
		}
		n, err := normalize(f, v)
		if err != nil {
			return nil, err
		}
		values[name] = n
	}
	return values, nil
}

// checkRequired refuses a create without a required field, or without
// any of the register's requireOneOf fields.
func checkRequired(reg *catalog.Register, values map[string]any) error {
	for _, f := range reg.Fields {
		if f.Required && engine.Empty(values[f.Name]) {
			return engine.Refuse("%s is required", f.Name)
		}
	}
	for _, name := range reg.RequireOneOf {
		if !engine.Empty(values[name]) {
			return nil
		}
	}
	if len(reg.RequireOneOf) > 0 {
		return engine.Refuse("one of %s is required", strings.Join(reg.RequireOneOf, ", ")).WithValid(reg.RequireOneOf...)
	}
	return nil
}

// assignKey gives a new row its key: the one sent, which must be free, or
// the next number of the company's series.
func (w *write) assignKey(reg *catalog.Register, rw *row) error {
	if reg.EngineKeyed() {
		return nil
	}
	key, _ := rw.values[reg.Key].(string)
	if key != "" {
		if w.e.find(reg, w.s.Company, key) != nil {
			return engine.Refuse("%s %s %s already exists", reg.Record, reg.Key, key)
		}
		return nil
	}
	if !reg.NumberSeries {
		return engine.Refuse("%s is required", reg.Key)
	}
	series := w.s.Company + "\x00" + reg.Name
	n := w.e.numbers[series]
	for taken := true; taken; taken = w.e.find(reg, w.s.Company, key) != nil {
		n++
		key = strconv.FormatInt(n, 10)
	}
	w.setNumber(series, n)
	rw.values[reg.Key] = key
	return nil
}

// resolveReferences checks every reference sent names a record of the
// caller's company, and copies the lookups from it.
func (w *write) resolveReferences(reg *catalog.Register, values map[string]any) error {
	for _, f := range reg.Fields {
		v, sent := values[f.Name]
		if f.References == "" || !sent {
			continue
		}
		target := w.e.cat.Register(f.References)
		keys, _ := v.([]string)
		if text, ok := v.(string); ok && text != "" {
			keys = []string{text}
		}
		var referenced *row
		for _, key := range keys {
			if referenced = w.e.find(target, w.s.Company, key); referenced == nil {
				return engine.Refuse("%s %q does not exist", target.Record, key)
			}
		}
		for _, l := range reg.Fields {
			ref, source, ok := strings.Cut(l.Lookup, ".")
			if !ok || ref != f.Name {
				continue
			}
			values[l.Name] = nil
			if referenced != nil && f.Type != catalog.List {
				values[l.Name] = w.e.read(target, referenced)[source]
			}
		}
	}
	return nil
}

// normalize checks a value sent for a field and returns it typed as the
// record reads it.
func normalize(f *catalog.Field, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	wrong := engine.Refuse("%s: expected %s, got %T", f.Name, f.Type, v)
	switch f.Type {
	case catalog.Number:
		n, ok := v.(float64)
		if !ok || math.IsNaN(n) || math.IsInf(n, 0) {
			return nil, wrong
		}
		return n, nil
	case catalog.Bool:
		if _, ok := v.(bool); !ok {
			return nil, wrong
		}
		return v, nil
	case catalog.List:
		list, ok := v.([]string)
		if !ok {
			return nil, wrong
		}
		return append([]string{}, list...), nil
	case catalog.Object:
		obj, ok := v.(map[string]string)
		if !ok {
			return nil, wrong
		}
		return obj, nil
	case catalog.Date:
		text, ok := v.(string)
		if !ok {
			return nil, wrong
		}
		if text == "" {
			return nil, nil
		}
		if !engine.IsDate(text) {
			return nil, engine.Refuse("%s: %q is not an ISO 8601 date or date-time", f.Name, text)
		}
		return text, nil
	}
	if _, ok := v.(string); !ok {
		return nil, wrong
	}
	return v, nil
}
