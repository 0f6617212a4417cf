package read

import (
	"context"
	"fmt"
	"slices"

	"fieldapi/catalog"
	"fieldapi/engine"
	"fieldapi/engine/pipeline/permissions"
	"fieldapi/engine/pipeline/registers"
	"fieldapi/engine/store"
)

// readShape is what a read takes of a register's records: the columns,
// whether extra fields are attached, and which line lists are, each with
// its lines' shape. every is the whole record.
type readShape struct {
	columns []string // nil: every column
	extra   bool
	lines   map[string]readShape // by ReadName: the read shape's line lists to attach
	all     bool
}

var every = readShape{all: true, extra: true}

// line is the shape of the lines of l when the shape carries the list.
func (sh readShape) line(l *catalog.Line) (readShape, bool) {
	if sh.all {
		return every, true
	}
	lsh, ok := sh.lines[l.ReadName]
	return lsh, ok
}

// shapeOf resolves the fields a shape asks of r into what the store reads:
// the columns asked, the key (line lists find their owners by it), the
// reference fields expansions follow, and the line lists asked. An unknown
// name is a plain error: the HTTP layer sends only the catalog's names.
func (e *Reads) shapeOf(r *registers.Register, shape engine.Shape) (readShape, error) {
	if shape.Fields == nil {
		return every, nil
	}
	var sh readShape
	need := func(name string) {
		if !slices.Contains(sh.columns, name) {
			sh.columns = append(sh.columns, name)
		}
	}
	if !r.EngineKeyed {
		need(r.Key.Name)
	}
	for _, name := range shape.Fields {
		switch f := r.Reg.Field(name); {
		case name == registers.ModifiedField:
			need(registers.ModifiedField)
		case name == extraFieldsField && r.Reg.ExtraFields:
			sh.extra = true
		case f != nil && f == r.Key:
		case f != nil && slices.Contains(r.Stored, f):
			need(f.Name)
		default:
			i := slices.IndexFunc(r.Reg.Lines, func(l *catalog.Line) bool { return l.Read && l.ReadName == name })
			if i < 0 {
				return readShape{}, fmt.Errorf("%s reads no field %q", r.Reg.Name, name)
			}
			lsh, err := e.shapeOf(e.registers[r.Reg.Lines[i].Register], engine.Shape{Fields: shape.Lines[name]})
			if err != nil {
				return readShape{}, err
			}
			if sh.lines == nil {
				sh.lines = map[string]readShape{}
			}
			sh.lines[name] = lsh
		}
	}
	for name := range shape.Lines {
		if _, ok := sh.lines[name]; !ok {
			return readShape{}, fmt.Errorf("%s: the lines of %q are narrowed, but fields does not name the list", r.Reg.Name, name)
		}
	}
	for _, x := range shape.Expand {
		if ex := r.Reg.Expansion(x.Name); ex != nil && ex.Field != nil {
			need(ex.Field.Name)
		}
	}
	return sh, nil
}

// GetShaped is Get with a shape.
func (e *Reads) GetShaped(ctx context.Context, s engine.Session, register, key string, shape engine.Shape) (engine.Record, error) {
	r, err := e.registers.Get(register)
	if err != nil {
		return nil, err
	}
	return e.GetByShaped(ctx, s, register, engine.KeyRef{Field: r.Key.Name, Value: key}, shape)
}

// GetByShaped is GetBy with a shape.
func (e *Reads) GetByShaped(ctx context.Context, s engine.Session, register string, by engine.KeyRef, shape engine.Shape) (rec engine.Record, err error) {
	defer readOnly(&err)
	r, err := e.registers.Get(register)
	if err != nil {
		return nil, err
	}
	cond, ok, err := byCond(r, by)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, engine.ErrNotFound
	}
	if err := e.perms.Check(ctx, e.store, s, register, permissions.Read); err != nil {
		return nil, err
	}
	sh, err := e.shapeOf(r, shape)
	if err != nil {
		return nil, err
	}
	recs, seqs, err := e.fetchAs(ctx, e.store, r, store.Select{Table: r.Reg.Name, Company: s.Company, Where: []store.Cond{cond}, Columns: sh.columns}, sh)
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, engine.ErrNotFound
	}
	if err := e.completeAs(ctx, e.store, r, s.Company, recs, seqs, sh); err != nil {
		return nil, err
	}
	if err := e.expand(ctx, s, r, recs, shape.Expand); err != nil {
		return nil, err
	}
	return recs[0], nil
}

// Fetch is fetchAs of the whole record.
func (e *Reads) Fetch(ctx context.Context, q store.Reader, r *registers.Register, sel store.Select) ([]engine.Record, []int64, error) {
	return e.fetchAs(ctx, q, r, sel, every)
}

// extraFieldsField is the member extra fields are read under.
const extraFieldsField = "ExtraFields"

// withColumn is a read's columns with one more it needs itself; nil
// (every column) stays nil.
func withColumn(columns []string, name string) []string {
	if columns == nil || slices.Contains(columns, name) {
		return columns
	}
	return append(slices.Clip(columns), name)
}
