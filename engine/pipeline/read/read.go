// Package read is the engine's read side: lists (filters, sort orders,
// cursors, totals), records by key or lookup key, narrowed and expanded
// reads, change logs, field labels and extra-field definitions. Records
// are assembled with their extra fields and line lists, one query per page
// and list; the write side reads whole records through it too.
package read

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"

	"fieldapi/catalog"
	"fieldapi/engine"
	"fieldapi/engine/extrafields"
	"fieldapi/engine/pipeline/permissions"
	"fieldapi/engine/pipeline/registers"
	"fieldapi/engine/rules"
	"fieldapi/engine/store"
)

// Reads serves the engine's reads over one store. It is safe for
// concurrent use.
type Reads struct {
	store     store.Store
	registers registers.Set
	rules     *rules.Set
	perms     *permissions.Checker
	extra     *extrafields.Definitions // by company and register
}

// New makes the read side of the registers over a store.
func New(st store.Store, regs registers.Set, ruleSet *rules.Set, perms *permissions.Checker, extra *extrafields.Definitions) *Reads {
	return &Reads{store: st, registers: regs, rules: ruleSet, perms: perms, extra: extra}
}

// defaultLimit is the page size when a query gives none.
const defaultLimit = 50

// newestFirst orders rows most recently created first: cursors walk it.
var newestFirst = []store.Order{{Field: store.SeqField, Desc: true}}

// List returns one page of a register, newest first unless sorted. A
// cursor page is a range, so its cost does not grow with its depth.
func (e *Reads) List(ctx context.Context, s engine.Session, register string, q engine.Query) (page engine.Page, err error) {
	defer readOnly(&err)
	r, err := e.registers.Get(register)
	if err != nil {
		return engine.Page{}, err
	}
	if err := e.perms.Check(ctx, e.store, s, register, permissions.Read); err != nil {
		return engine.Page{}, err
	}
	where, err := e.conditions(r, q)
	if err != nil {
		return engine.Page{}, err
	}
	limit := q.Limit
	if limit <= 0 {
		limit = defaultLimit
	}
	sh, err := e.shapeOf(r, q.Shape)
	if err != nil {
		return engine.Page{}, err
	}
	sel := store.Select{Table: r.Reg.Name, Company: s.Company, Where: where, Limit: limit + 1, Columns: sh.columns}
	if err := order(r, &sel, q); err != nil {
		return engine.Page{}, err
	}
	if q.Page > 1 {
		sel.Offset = (q.Page - 1) * limit
	}
	// One row more than asked says whether another page exists.
	recs, seqs, err := e.fetchPage(ctx, r, sel, sh)
	if err != nil {
		return engine.Page{}, err
	}
	page = engine.Page{Records: recs}
	if len(recs) > limit {
		page.Records, seqs = recs[:limit], seqs[:limit]
		next := seqs[limit-1]
		page.Next, page.NextKeys = &next, sortValues(q.Sort, page.Records[limit-1])
	}
	if err := e.completeAs(ctx, e.store, r, s.Company, page.Records, seqs, sh); err != nil {
		return engine.Page{}, err
	}
	if err := e.expand(ctx, s, r, page.Records, q.Shape.Expand); err != nil {
		return engine.Page{}, err
	}
	if !r.Reg.Uncounted && !q.KnownTotal && q.Count != engine.CountNone {
		total, estimated, err := e.listTotal(ctx, r, s.Company, where, q.Count)
		if err != nil {
			return engine.Page{}, err
		}
		page.Total, page.TotalEstimated = &total, estimated
	}
	return page, nil
}

// Get returns one record of the caller's company by its key, with extra
// fields and the lines its read shape carries, or ErrNotFound.
func (e *Reads) Get(ctx context.Context, s engine.Session, register, key string) (engine.Record, error) {
	r, err := e.registers.Get(register)
	if err != nil {
		return nil, err
	}
	return e.GetBy(ctx, s, register, engine.KeyRef{Field: r.Key.Name, Value: key})
}

// GetBy returns one record of the caller's company by its key or a lookup
// key, as Get reads it, or ErrNotFound.
func (e *Reads) GetBy(ctx context.Context, s engine.Session, register string, by engine.KeyRef) (rec engine.Record, err error) {
	defer readOnly(&err)
	r, err := e.registers.Get(register)
	if err != nil {
		return nil, err
	}
	cond, ok, err := byCond(r, by)
	if err != nil {
		return nil, err
	}
	if err := e.perms.Check(ctx, e.store, s, register, permissions.Read); err != nil {
		return nil, err
	}
	if !ok {
		return nil, engine.ErrNotFound
	}
	rec, _, err = e.RecordWhere(ctx, e.store, r, s.Company, cond, false)
	return rec, err
}

// byCond is the condition finding a record by its key or a lookup key;
// ok is false for a key value no record can have (an engine key that is
// no number). A field that is neither is refused.
func byCond(r *registers.Register, by engine.KeyRef) (cond store.Cond, ok bool, err error) {
	if by.Field == r.Key.Name {
		cond, ok = r.KeyCond(by.Value)
		return cond, ok, nil
	}
	f := r.Reg.Field(by.Field)
	if f == nil || !f.LookupKey {
		return store.Cond{}, false, engine.Refuse("%s cannot be read by %s", r.Reg.Name, by.Field)
	}
	return store.Equal(f.Name, by.Value), true, nil
}

// readOnly marks the fault of a read: it wrote nothing, so a timeout is
// busy (503 with Retry-After, safe to retry), never "may have written".
func readOnly(err *error) { *err = NothingWritten(*err) }

// NothingWritten is the fault of a call that wrote nothing: a read, or a
// write before its transaction began. A timeout there is busy (503, safe
// to retry), never "may have written" (504).
func NothingWritten(err error) error {
	if errors.Is(err, engine.ErrTimeout) {
		// The cause stays as text only: errors.Is must not find
		// ErrTimeout, which says the engine may have written.
		return fmt.Errorf("%w: before the write began: %v", engine.ErrBusy, err)
	}
	return err
}

// Record reads one record by key as the API shows it, and its Seq;
// forUpdate holds its row for the rest of the transaction q.
func (e *Reads) Record(ctx context.Context, q store.Reader, r *registers.Register, company, key string, forUpdate bool) (engine.Record, int64, error) {
	cond, ok := r.KeyCond(key)
	if !ok {
		return nil, 0, engine.ErrNotFound
	}
	return e.RecordWhere(ctx, q, r, company, cond, forUpdate)
}

// RecordWhere is Record by a condition on a unique field. The record and
// what completes it are read together, one round trip on PostgreSQL: the
// completing reads name the record by the condition (store.InRowsOf). A
// register keyed by its Seq reads the record first.
func (e *Reads) RecordWhere(ctx context.Context, q store.Reader, r *registers.Register, company string, cond store.Cond, forUpdate bool) (engine.Record, int64, error) {
	sel, err := e.selectAs(ctx, q, r, store.Select{Table: r.Reg.Name, Company: company, Where: []store.Cond{cond}, ForUpdate: forUpdate}, every)
	if err != nil {
		return nil, 0, err
	}
	var recs []engine.Record
	var seqs []int64
	var reads readsTogether
	reads.add(sel, func(rows []store.Row) error { recs, seqs = recordsOf(r, rows); return nil })
	if !r.EngineKeyed {
		named := store.Select{Table: r.Reg.Name, Company: company, Where: []store.Cond{cond}}
		ahead := completed{
			seqs:   store.InRowsOf(extrafields.RecordSeq, named, store.SeqField),
			owners: owners{by: &named},
			read:   func() ([]engine.Record, []int64) { return recs, seqs },
		}
		if key, ok := cond.Value.(string); ok && cond.Field == r.Key.Name && cond.Op == store.Eq {
			ahead.owners = owners{keys: []string{key}} // the lines name their owner by this key
		}
		if err := e.completing(ctx, q, r, company, every, ahead, &reads); err != nil {
			return nil, 0, err
		}
	}
	if err := reads.run(ctx, q); err != nil {
		return nil, 0, err
	}
	if len(recs) == 0 {
		return nil, 0, engine.ErrNotFound
	}
	if r.EngineKeyed {
		if err := e.completeAs(ctx, q, r, company, recs, seqs, every); err != nil {
			return nil, 0, err
		}
	}
	return recs[0], seqs[0], nil
}

// Row reads one record's stored fields by key, without extra fields or
// lines, and its Seq (the row's id for what modules keep beside it), or
// ErrNotFound: for the modules beside the pipeline.
func (e *Reads) Row(ctx context.Context, q store.Reader, company, register, key string) (engine.Record, int64, error) {
	r, err := e.registers.Get(register)
	if err != nil {
		return nil, 0, err
	}
	cond, ok := r.KeyCond(key)
	if !ok {
		return nil, 0, engine.ErrNotFound
	}
	rows, err := q.Select(ctx, store.Select{Table: r.Reg.Name, Company: company, Where: []store.Cond{cond}})
	if err != nil {
		return nil, 0, err
	}
	if len(rows) == 0 {
		return nil, 0, engine.ErrNotFound
	}
	return r.AsRecord(rows[0]), rows[0].Seq, nil
}

// fetchAs reads the rows of records of one register, with the computed
// extra fields the shape carries (completeAs adds the rest).
func (e *Reads) fetchAs(ctx context.Context, q store.Reader, r *registers.Register, sel store.Select, sh readShape) ([]engine.Record, []int64, error) {
	sel, err := e.selectAs(ctx, q, r, sel, sh)
	if err != nil {
		return nil, nil, err
	}
	rows, err := q.Select(ctx, sel)
	if err != nil {
		return nil, nil, err
	}
	recs, seqs := recordsOf(r, rows)
	return recs, seqs, nil
}

// selectAs is sel with the expressions of the company's computed extra
// fields of r, when the shape carries them.
func (e *Reads) selectAs(ctx context.Context, q store.Reader, r *registers.Register, sel store.Select, sh readShape) (store.Select, error) {
	if r.Reg.ExtraFields && sh.extra {
		defs, err := e.extra.Of(ctx, q, sel.Company, r.Reg.Name)
		if err != nil {
			return sel, err
		}
		sel.Exprs = extrafields.Exprs(defs)
	}
	return sel, nil
}

// recordsOf are rows of r as records, and their Seqs.
func recordsOf(r *registers.Register, rows []store.Row) ([]engine.Record, []int64) {
	recs := make([]engine.Record, len(rows))
	seqs := make([]int64, len(rows))
	for i, row := range rows {
		recs[i], seqs[i] = r.AsRecord(row), row.Seq
	}
	return recs, seqs
}

// completeAs adds to records read from r what the shape carries beyond
// their row: extra fields and line lists, read together (one round trip on
// PostgreSQL); then the lines' own.
func (e *Reads) completeAs(ctx context.Context, q store.Reader, r *registers.Register, company string, recs []engine.Record, seqs []int64, sh readShape) error {
	if len(recs) == 0 {
		return nil
	}
	var reads readsTogether
	read := completed{
		seqs:   store.OneOf(extrafields.RecordSeq, seqs),
		owners: ownersOf(r, recs),
		read:   func() ([]engine.Record, []int64) { return recs, seqs },
	}
	if err := e.completing(ctx, q, r, company, sh, read, &reads); err != nil {
		return err
	}
	return reads.run(ctx, q)
}

// completed names the records a completion is for: by their Seqs and
// keys, or by the select that finds them (store.InRowsOf) when read with it.
type completed struct {
	seqs   store.Cond                        // on extrafields.RecordSeq
	owners owners                            // for their line lists
	read   func() ([]engine.Record, []int64) // the records and their Seqs, once read
}

// completing adds to reads what completes the records c names (see
// completeAs), each read placing what it finds on c's records.
func (e *Reads) completing(ctx context.Context, q store.Reader, r *registers.Register, company string, sh readShape, c completed, reads *readsTogether) error {
	if r.Reg.ExtraFields && sh.extra {
		defs, err := e.extra.Of(ctx, q, company, r.Reg.Name)
		if err != nil {
			return err
		}
		sel, _ := extrafields.StoredSelect(company, r.Reg.Name, defs, c.seqs)
		reads.add(sel, func(rows []store.Row) error {
			recs, seqs := c.read()
			extrafields.Place(defs, rows, recs, seqs)
			return nil
		})
	}
	for _, l := range r.Reg.Lines {
		if lsh, ok := sh.line(l); ok && l.Read {
			sel, err := e.linesSelect(ctx, q, r, company, c.owners, l, lsh, 0)
			if err != nil {
				return err
			}
			reads.add(sel, func(rows []store.Row) error {
				recs, _ := c.read()
				return e.placeLines(ctx, q, r, company, recs, l, lsh, 0, rows)
			})
		}
	}
	return nil
}

// readsTogether are independent selects, each with what to do with its
// rows, run with store.SelectEach.
type readsTogether struct {
	queries []store.Select
	use     []func(rows []store.Row) error
	after   []func() error // once every query's rows are used
}

// add reads sel with the others and gives use its rows; a zero sel reads
// nothing, and use gets no rows once every read's rows are used.
func (rt *readsTogether) add(sel store.Select, use func(rows []store.Row) error) {
	if sel.Table == "" {
		rt.after = append(rt.after, func() error { return use(nil) })
		return
	}
	rt.queries = append(rt.queries, sel)
	rt.use = append(rt.use, use)
}

func (rt *readsTogether) run(ctx context.Context, q store.Reader) error {
	found, err := store.SelectEach(ctx, q, rt.queries)
	if err != nil {
		return err
	}
	for i, use := range rt.use {
		if err := use(found[i]); err != nil {
			return err
		}
	}
	for _, fn := range rt.after {
		if err := fn(); err != nil {
			return err
		}
	}
	return nil
}

// ExtraFieldDefs describes the company's extra fields of a register.
// A register without extra fields answers ErrNotFound.
func (e *Reads) ExtraFieldDefs(ctx context.Context, s engine.Session, register string) (_ []engine.ExtraFieldDef, err error) {
	defer readOnly(&err)
	r, err := e.registers.Get(register)
	if err != nil {
		return nil, err
	}
	if !r.Reg.ExtraFields {
		return nil, engine.ErrNotFound
	}
	if err := e.perms.Check(ctx, e.store, s, register, permissions.Read); err != nil {
		return nil, err
	}
	defs, err := extrafields.Load(ctx, e.store, s.Company, register)
	return extrafields.Describe(defs), err
}

// attachLines sets the line list l on the records under its ReadName,
// oldest first, each line shaped by sh, in one query for the page. With
// most above 0 a record may carry at most that many lines: the query reads
// one line more than the page may carry, and a page where a record carries
// too many is refused (engine.TooManyLinesError).
func (e *Reads) attachLines(ctx context.Context, q store.Reader, r *registers.Register, company string, recs []engine.Record, l *catalog.Line, sh readShape, most int) error {
	if len(recs) == 0 {
		return nil
	}
	sel, err := e.linesSelect(ctx, q, r, company, ownersOf(r, recs), l, sh, most)
	if err != nil {
		return err
	}
	var rows []store.Row
	if sel.Table != "" {
		if rows, err = q.Select(ctx, sel); err != nil {
			return err
		}
	}
	return e.placeLines(ctx, q, r, company, recs, l, sh, most, rows)
}

// owners names the records whose lines a read asks for: by their keys,
// or, read with them, by the select that finds them.
type owners struct {
	keys []string
	by   *store.Select
}

// ownersOf names records read of r by their keys.
func ownersOf(r *registers.Register, recs []engine.Record) owners {
	var o owners
	for _, rec := range recs {
		if key, ok := rec[r.Key.Name].(string); ok {
			o.keys = append(o.keys, key)
		}
	}
	return o
}

// linesSelect reads the lines of list l of the owners' records (see
// attachLines); a zero Select when they name none.
func (e *Reads) linesSelect(ctx context.Context, q store.Reader, r *registers.Register, company string, of owners, l *catalog.Line, sh readShape, most int) (store.Select, error) {
	lr := e.registers[l.Register]
	parents := store.OneOf(l.Parent, of.keys)
	if of.by != nil {
		parents = store.InRowsOf(l.Parent, *of.by, r.Key.Name)
	} else if len(of.keys) == 0 {
		return store.Select{}, nil
	}
	// No order asked of the store: SQLite's planner may then walk an index
	// on the fixed value alone (every task line) rather than sort a page's.
	where := append([]store.Cond{parents}, lineSetConds(lr, l)...)
	sel := store.Select{Table: lr.Reg.Name, Company: company, Where: where, Columns: withColumn(sh.columns, l.Parent)}
	if most > 0 {
		sel.Limit = len(of.keys)*most + 1
	}
	return e.selectAs(ctx, q, lr, sel, sh)
}

// placeLines sets the lines linesSelect read on their records, completed
// as the shape asks.
func (e *Reads) placeLines(ctx context.Context, q store.Reader, r *registers.Register, company string, recs []engine.Record, l *catalog.Line, sh readShape, most int, rows []store.Row) error {
	for _, rec := range recs {
		rec[l.ReadName] = []engine.Record{} // a record without lines
	}
	lr := e.registers[l.Register]
	lines, seqs := recordsOf(lr, rows)
	sort.Stable(bySeq{lines, seqs})
	byOwner := map[string][]engine.Record{}
	for _, line := range lines {
		owner, _ := line[l.Parent].(string)
		byOwner[owner] = append(byOwner[owner], line)
		if most > 0 && len(byOwner[owner]) > most {
			return &engine.TooManyLinesError{Expansion: l.ReadName, Most: most}
		}
	}
	if err := e.completeAs(ctx, q, lr, company, lines, seqs, sh); err != nil {
		return err
	}
	for _, rec := range recs {
		key, _ := rec[r.Key.Name].(string)
		if lines := byOwner[key]; lines != nil {
			rec[l.ReadName] = lines
		}
	}
	return nil
}

// lineSetConds select the lines of one list among the line register's
// records: those carrying the list's fixed values (OwnerType task, not quote).
func lineSetConds(lr *registers.Register, l *catalog.Line) []store.Cond {
	names := slices.Sorted(maps.Keys(l.Set))
	conds := make([]store.Cond, len(names))
	for i, name := range names {
		conds[i] = store.Equal(name, registers.SetValue(lr.Reg.Field(name), l.Set[name]))
	}
	return conds
}

// bySeq sorts records read together into Seq order, oldest first.
type bySeq struct {
	recs []engine.Record
	seqs []int64
}

func (b bySeq) Len() int           { return len(b.seqs) }
func (b bySeq) Less(i, j int) bool { return b.seqs[i] < b.seqs[j] }
func (b bySeq) Swap(i, j int) {
	b.recs[i], b.recs[j] = b.recs[j], b.recs[i]
	b.seqs[i], b.seqs[j] = b.seqs[j], b.seqs[i]
}

// conditions turns a query's conditions and modified range into the
// store's. The HTTP layer only sends declared filters, so an unknown field
// is a plain error (500), not a refusal.
func (e *Reads) conditions(r *registers.Register, q engine.Query) ([]store.Cond, error) {
	var where []store.Cond
	for _, c := range q.Where {
		c, err := e.rules.ListCondition(r.Reg.Name, c)
		if err != nil {
			return nil, err
		}
		f := r.Reg.Field(c.Field)
		if f == nil {
			return nil, fmt.Errorf("%s has no field %q", r.Reg.Name, c.Field)
		}
		cond, err := condition(r, f, c)
		if err != nil {
			return nil, err
		}
		where = append(where, cond)
	}
	if q.ModifiedSince != nil {
		where = append(where, store.Cond{Field: registers.ModifiedField, Op: store.Ge, Value: registers.FormatTime(*q.ModifiedSince)})
	}
	if q.ModifiedBefore != nil {
		where = append(where, store.Cond{Field: registers.ModifiedField, Op: store.Lt, Value: registers.FormatTime(*q.ModifiedBefore)})
	}
	return where, nil
}

// condition is the store's condition of one filter on a field, its
// values typed as the field is.
func condition(r *registers.Register, f *catalog.Field, c engine.Condition) (store.Cond, error) {
	if c.Op == engine.OpIsNull {
		return nullCondition(f, c)
	}
	values := make([]any, len(c.Values))
	for i, v := range c.Values {
		n, err := f.Normalize(v)
		if err != nil {
			return store.Cond{}, fmt.Errorf("filter on %s: %w", f.Name, err)
		}
		values[i] = n
	}
	field := f.Name
	if r.EngineKeyed && f == r.Key {
		// The key is the row's Seq: a value that is no Seq matches nothing.
		field = store.SeqField
		for i, v := range values {
			seq, err := strconv.ParseInt(fmt.Sprint(v), 10, 64)
			if err != nil {
				seq = -1
			}
			values[i] = seq
		}
	}
	switch c.Op {
	case engine.OpEquals:
		if len(values) != 1 {
			return store.Cond{}, fmt.Errorf("filter on %s: equals takes one value", f.Name)
		}
		return store.Equal(field, values[0]), nil
	case engine.OpContains:
		if len(values) != 1 || f.Type != catalog.Text {
			return store.Cond{}, fmt.Errorf("filter on %s: contains takes one text value", f.Name)
		}
		return store.Cond{Field: field, Op: store.Contains, Value: values[0]}, nil
	case engine.OpIn:
		return store.Cond{Field: field, Op: store.In, Values: values}, nil
	case engine.OpNotIn:
		return store.Cond{Field: field, Op: store.NotIn, Values: values}, nil
	case engine.OpGt, engine.OpGte, engine.OpLt, engine.OpLte, engine.OpPrefix:
		return rangeCondition(field, f, c.Op, values)
	}
	return store.Cond{}, fmt.Errorf("filter on %s: unknown operator %q", f.Name, c.Op)
}

// RecordBySeq reads one record as the API shows it by its Seq.
func (e *Reads) RecordBySeq(ctx context.Context, q store.Reader, company, register string, seq int64) (engine.Record, error) {
	r, err := e.registers.Get(register)
	if err != nil {
		return nil, err
	}
	recs, seqs, err := e.Fetch(ctx, q, r, store.Select{Table: r.Reg.Name, Company: company, Where: []store.Cond{store.Equal(store.SeqField, seq)}})
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, engine.ErrNotFound
	}
	return recs[0], e.completeAs(ctx, q, r, company, recs, seqs, every)
}
