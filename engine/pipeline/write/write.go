// Package write is the engine's write side: creates with their lines,
// updates, upserts, lines added one by one, actions and the modules'
// writes, each in one store transaction with its receipt, change log and
// events (an atomic batch's share one: atomic.go). Every check the catalog
// asks of a write, and every refusal text, is here; the business rules run
// through rules.Tx.
package write

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"fieldapi/catalog"
	"fieldapi/engine"
	"fieldapi/engine/extrafields"
	"fieldapi/engine/pipeline/permissions"
	"fieldapi/engine/pipeline/read"
	"fieldapi/engine/pipeline/registers"
	"fieldapi/engine/pipeline/settings"
	"fieldapi/engine/platform"
	"fieldapi/engine/rules"
	"fieldapi/engine/store"
)

// Writes performs the engine's writes over one store and platform. It is
// safe for concurrent use.
type Writes struct {
	cat       *catalog.Catalog
	store     store.Store
	platform  platform.Platform
	rules     *rules.Set
	registers registers.Set
	reads     *read.Reads
	perms     *permissions.Checker
	extra     *extrafields.Definitions // by company and register
	settings  *settings.Cache
	zones     sync.Map // *time.Location by IANA name, loaded once (LoadLocation reads the zone's file)
	exact     exactMemo
	now       func() time.Time
	noEvents  bool
}

// Config is what the write side works with, shared with the engine's
// other parts.
type Config struct {
	Catalog     *catalog.Catalog
	Registers   registers.Set
	Rules       *rules.Set
	Store       store.Store
	Platform    platform.Platform // bound to the store: receipts and events commit with the write
	Reads       *read.Reads       // how a write reads whole records
	Permissions *permissions.Checker
	Extra       *extrafields.Definitions
	Settings    *settings.Cache
	Now         func() time.Time // the clock
	NoEvents    bool             // record no events (only to measure what recording costs)
}

// New makes the write side.
func New(c Config) *Writes {
	return &Writes{cat: c.Catalog, store: c.Store, platform: c.Platform, rules: c.Rules, registers: c.Registers,
		reads: c.Reads, perms: c.Permissions, extra: c.Extra, settings: c.Settings, now: c.Now, noEvents: c.NoEvents}
}

// Create writes a new record and its lines and stores the receipt rendered
// from them with the claim and the events, in one transaction.
func (e *Writes) Create(ctx context.Context, s engine.Session, register string, in engine.Input, rc engine.Receipt) (engine.Response, error) {
	r, err := e.registers.Get(register)
	if err != nil {
		return engine.Response{}, err
	}
	if !r.Reg.Has(catalog.Create) {
		return engine.Response{}, engine.Refuse("%s cannot be created through the API", register)
	}
	w := e.newWriter(s)
	w.likeRegister, w.likeCreates = register, engine.LikeWrites(ctx)
	w.numberAhead = numberWanted(r, in)
	return e.writeAs(ctx, w, register, rc, &plannedInput{r, in, true}, func(ctx context.Context, w *Writer) (engine.Record, error) {
		return w.create(ctx, r, in)
	})
}

// Update changes the fields present in the input, with its receipt in the
// same transaction. An unknown key is ErrNotFound.
func (e *Writes) Update(ctx context.Context, s engine.Session, register, key string, in engine.Input, rc engine.Receipt) (engine.Response, error) {
	r, err := e.registers.Get(register)
	if err != nil {
		return engine.Response{}, err
	}
	if !r.Reg.Has(catalog.Update) {
		return engine.Response{}, engine.Refuse("%s cannot be changed through the API", register)
	}
	return e.writeAs(ctx, e.newWriter(s), register, rc, &plannedInput{r, in, false},
		func(ctx context.Context, w *Writer) (engine.Record, error) { return w.update(ctx, r, key, in) })
}

// Write runs one API write on a register the signature may write: do runs
// in one store transaction and returns the record the receipt renders;
// the change log and events do noted are written last, with that record.
// Modules (locations, documents) write through it too.
func (e *Writes) Write(ctx context.Context, s engine.Session, register string, rc engine.Receipt,
	do func(ctx context.Context, w *Writer) (engine.Record, error)) (engine.Response, error) {
	return e.writeAs(ctx, e.newWriter(s), register, rc, nil, do)
}

// writeAs is Write with a writer of the caller's, which reads what the
// write of ahead (when set) will read before the transaction (readAhead):
// then it takes no time under the store's write lock.
func (e *Writes) writeAs(ctx context.Context, w *Writer, register string, rc engine.Receipt,
	ahead *plannedInput, do func(ctx context.Context, w *Writer) (engine.Record, error)) (engine.Response, error) {
	joined, err := e.joinedTx(ctx, w.s)
	if err != nil {
		return engine.Response{}, err
	}
	if joined != nil {
		// Inside Atomically every read of the write is in the shared
		// transaction: it sees what the batch's earlier writes wrote (and
		// memstore's write lock is held by that transaction).
		w.tx = joined.tx
		joined.lend(w)
	}
	if err := e.perms.Check(ctx, w.reader(), w.s, register, permissions.Write); err != nil {
		return engine.Response{}, read.NothingWritten(err)
	}
	if ahead != nil {
		if err := w.readAhead(ctx, *ahead); err != nil {
			return engine.Response{}, read.NothingWritten(err)
		}
	}
	return e.write(ctx, w, rc, do)
}

// Transact runs do as a write of the engine's own, which needs no write
// permission and answers no Idempotency-Key (a position the engine located
// on a read), with the change-log rows and events do notes.
func (e *Writes) Transact(ctx context.Context, s engine.Session, do func(ctx context.Context, w *Writer) (engine.Record, error)) error {
	_, err := e.write(ctx, e.newWriter(s), engine.Receipt{}, do)
	return err
}

func (e *Writes) write(ctx context.Context, w *Writer, rc engine.Receipt,
	do func(ctx context.Context, w *Writer) (engine.Record, error)) (engine.Response, error) {
	var resp engine.Response
	joined, err := e.joinedTx(ctx, w.s)
	if err != nil {
		return resp, err
	}
	run := func(ctx context.Context, tx store.Tx) error {
		w.tx = tx
		rec, err := do(ctx, w)
		if err != nil {
			return err
		}
		if resp, err = w.settle(ctx, rc, rec); err != nil {
			return err
		}
		if joined != nil {
			// Its events are recorded with the batch's.
			return joined.keep(ctx, w, rec)
		}
		return w.finish(ctx, rec)
	}
	if joined != nil {
		// Atomically commits or rolls back this write with the others.
		return resp, run(ctx, joined.tx)
	}
	return resp, e.store.Write(ctx, run)
}

// Writer performs the writes of one call inside its transaction. It caches
// what the write reads more than once (mostly read ahead of the
// transaction), keeps the values of the records it writes, which its answer
// is built from, and holds its change-log rows and events until its end.
type Writer struct {
	e      *Writes
	tx     store.Tx // nil until the transaction begins
	s      engine.Session
	now    string    // Modified of every record this call writes
	moment time.Time // the same instant

	refs     map[string]map[string]engine.Record // referenced records by register and key; nil: none there
	settings *settings.Company                   // the company's settings, read once
	live     map[liveKey]map[string]any          // values of the records written
	touched  map[string]bool                     // registers whose records the write created or changed
	logs     []logEntry
	events   []pendingEvent
	// ruleUpdates counts the rules' updates (ruleTx.UpdateIf): a create's
	// computed extra fields read with its inserts hold until the next.
	ruleUpdates int

	numbers     *numberPool  // inside Atomically: the batch's numbers taken ahead
	seqs        *seqPool     // inside Atomically: the batch's Seqs taken ahead
	numberAhead *numberAhead // a single create's number, taken with its reads ahead
	// likeCreates are the creates of likeRegister the batch holds, this
	// one included (engine.LikeWrites).
	likeRegister string
	likeCreates  int
}

func (e *Writes) newWriter(s engine.Session) *Writer {
	moment := e.now()
	return &Writer{e: e, s: s, now: registers.FormatTime(moment), moment: moment.UTC().Truncate(time.Microsecond)}
}

// reader is the writer's transaction once begun, the store before.
func (w *Writer) reader() store.Reader {
	if w.tx == nil {
		return w.e.store
	}
	return w.tx
}

// readAhead reads, before the transaction, what a write will read: the
// records its references name (with the signature's user, which $sign
// defaults name, when the write may create) and the company's settings.
// Records are never deleted, so what it finds still stands at the commit;
// a lookup copies the referenced record as it was just before the write.
func (w *Writer) readAhead(ctx context.Context, p plannedInput) error {
	if err := w.prefetch(ctx, p); err != nil {
		return err
	}
	_, _, err := w.setting(ctx, settingTimeZone)
	return err
}

// liveKey names a record the write created or changed.
type liveKey struct{ register, key string }

// like is how many creates like this one on register the batch holds.
func (w *Writer) like(register string) int {
	if register == w.likeRegister {
		return w.likeCreates
	}
	return 1
}

// keepLive notes the values of a record the write created or changed: the
// rules' later updates (UpdateIf) change them too, and the answer shows them.
func (w *Writer) keepLive(register, key string, values map[string]any) {
	if w.live == nil {
		w.live = map[liveKey]map[string]any{}
	}
	w.live[liveKey{register, key}] = values
	w.touch(register)
}

// touch notes that the write created or changed records of register.
func (w *Writer) touch(register string) {
	if w.touched == nil {
		w.touched = map[string]bool{}
	}
	w.touched[register] = true
}

// Tx is the write's transaction.
func (w *Writer) Tx() store.Tx { return w.tx }

// Now is the Modified of what the write changes, as stored text.
func (w *Writer) Now() string { return w.now }

// settle renders the response from the record as written and settles the
// claim with it in the write's transaction: they commit together or not at all.
func (w *Writer) settle(ctx context.Context, rc engine.Receipt, rec engine.Record) (engine.Response, error) {
	if rc.Render == nil {
		return engine.Response{}, nil
	}
	resp, err := rc.Render(rec)
	if err != nil || rc.Claim.Key == "" {
		return resp, err
	}
	writes, err := w.e.platform.Bind(w.tx)
	if err != nil {
		return engine.Response{}, err
	}
	return resp, writes.Settle(ctx, rc.Claim, resp)
}

// created is a record a create wrote, with the lines written with it.
type created struct {
	*pendingRecord
	seq   int64
	lines map[string][]*created // by line list name
	// computed are its computed extra fields as read with its inserts,
	// good while no rule has updated a record since (computedAt, of
	// Writer.ruleUpdates); nil when not read so.
	computed   store.Values
	computedAt int
}

// pendingRecord is a record of a create checked and complete, about to be
// inserted.
type pendingRecord struct {
	reg    *registers.Register
	in     engine.Input
	values map[string]any // as stored, kept current once created (keepLive)
	sent   []string       // the fields the create sent, in catalog order
	key    string
}

// create writes one record and its lines, notes its event and answers
// with the record (createdRecord). The record and each line are checked
// first (a refusal names the line, "materials[1]: ..."), then inserted
// together, one statement per table (store.InsertEach: one round trip on
// PostgreSQL). A record keyed by its Seq is inserted before its lines are
// checked: they hold its key.
func (w *Writer) create(ctx context.Context, r *registers.Register, in engine.Input) (engine.Record, error) {
	p, err := w.prepare(ctx, r, in, nil)
	if err != nil {
		return nil, err
	}
	var lists []*lineList // checked with the record, inserted with it
	if !r.EngineKeyed {
		w.noteCreating(r, p.key, p.values)
		for _, l := range r.Reg.Lines {
			if len(in.Lines[l.Name]) == 0 {
				continue
			}
			list, at, err := w.prepareLines(ctx, &lineOwner{r, p.values, l, p.key}, in.Lines[l.Name])
			if err != nil {
				return nil, refuseInLine(err, l.Name, at)
			}
			lists = append(lists, list)
		}
	}
	inserts := []store.Insertion{{Table: r.Reg.Name, Company: w.s.Company, Rows: []store.Values{w.row(r, p.values)}}}
	for _, list := range lists {
		inserts = append(inserts, store.Insertion{Table: list.reg.Reg.Name, Company: w.s.Company, Rows: list.rows})
	}
	// Its computed extra fields are read with the inserts, sparing the
	// answer a round trip; not when the create writes what an expression
	// might read beyond its rows (extra fields, lines of lines).
	var reads []store.Select
	if cond, ok := r.KeyCond(p.key); ok && !r.EngineKeyed && !writesBeyondRows(in, 0) {
		if reads, err = w.computedSelect(ctx, r, cond); err != nil {
			return nil, err
		}
	}
	refused := func(i int, err error) error { // the failure of the record's insert (0) or a line list's
		if i == 0 {
			return w.duplicateKey(r, p.key, p.values, err)
		}
		list := lists[i-1]
		return refuseInLine(w.duplicateKey(list.reg, "", nil, err), list.line.Name, 0)
	}
	seqs, read, err := w.insert(ctx, r.Reg.Name, inserts, reads, refused)
	if err != nil {
		return nil, err
	}
	computedAt := w.ruleUpdates
	c, err := w.inserted(ctx, p, seqs[0][0], lists, seqs[1:])
	if err != nil {
		return nil, err
	}
	c.computed, c.computedAt = oneRow(read), computedAt
	changed := append([]string{}, c.sent...)
	for _, l := range r.Reg.Lines {
		if len(c.lines[l.Name]) > 0 {
			changed = append(changed, l.ReadName)
		}
	}
	w.Emit(r.Reg.Name, catalog.EventCreated, c.key, changed)
	return w.createdRecord(ctx, c, true)
}

// inserted completes a created record once inserted as row seq: extra
// fields, lines, after-create rules and change log. lists are the line
// lists inserted with it, with their seqs; without them its lines are
// created now.
func (w *Writer) inserted(ctx context.Context, p *pendingRecord, seq int64, lists []*lineList, seqs [][]int64) (*created, error) {
	r := p.reg
	c := &created{pendingRecord: p, seq: seq, lines: map[string][]*created{}}
	r.Inserted(p.values, seq)
	if r.EngineKeyed {
		c.key = strconv.FormatInt(seq, 10)
	}
	w.keepLive(r.Reg.Name, c.key, p.values)
	if err := extrafields.Write(ctx, w.tx, w.s.Company, r.Reg.Name, seq, p.in.Extra); err != nil {
		return nil, err
	}
	if lists == nil {
		for _, l := range r.Reg.Lines {
			if len(p.in.Lines[l.Name]) == 0 {
				continue
			}
			lines, at, err := w.createLines(ctx, &lineOwner{r, p.values, l, c.key}, p.in.Lines[l.Name])
			if err != nil {
				return nil, refuseInLine(err, l.Name, at)
			}
			c.lines[l.Name] = lines
		}
	}
	for k, list := range lists {
		lines, at, err := w.linesInserted(ctx, list, seqs[k])
		if err != nil {
			return nil, refuseInLine(err, list.line.Name, at)
		}
		c.lines[list.line.Name] = lines
	}
	if err := w.e.rules.AfterCreate(ctx, ruleTx{w}, r.Reg.Name, rules.Created{Key: c.key, Row: seq}, p.values); err != nil {
		return nil, err
	}
	w.log(r, c.key, "create", strings.Join(changedNames(p.sent, p.in.Extra), ", "), p.values)
	return c, nil
}

// oneRow is the row of a read of one record; nil when there is none.
func oneRow(read [][]store.Row) store.Values {
	if len(read) == 1 && len(read[0]) == 1 {
		return read[0][0].Values
	}
	return nil
}

// computedSelect is the read of the company's computed extra fields of
// r's record that cond names; none when r computes none.
func (w *Writer) computedSelect(ctx context.Context, r *registers.Register, cond store.Cond) ([]store.Select, error) {
	if !r.Reg.ExtraFields {
		return nil, nil
	}
	defs, err := w.e.extra.Of(ctx, w.tx, w.s.Company, r.Reg.Name)
	if err != nil {
		return nil, err
	}
	exprs := extrafields.Exprs(defs)
	if len(exprs) == 0 || w.e.exactInGo(r, exprs) {
		return nil, nil
	}
	return []store.Select{{Table: r.Reg.Name, Company: w.s.Company, Where: []store.Cond{cond}, Columns: []string{}, Exprs: exprs}}, nil
}

// exactInGo reports whether the pipeline evaluates r's computed extra
// fields from the values written exactly as the store would
// (store.ExactInGo): then no write reads them back.
func (e *Writes) exactInGo(r *registers.Register, exprs []store.Expr) bool {
	for _, x := range exprs {
		if !e.exact.of(r, x.Text) {
			return false
		}
	}
	return true
}

// exactMemo keeps store.ExactInGo's answer by register and expression
// text: every create and update asks it. Companies define expressions over
// the API, so it forgets all at maxExact.
type exactMemo struct {
	mu     sync.RWMutex
	answer map[exactKey]bool
}

type exactKey struct{ register, text string }

// maxExact bounds the answers an exactMemo keeps: far more than the
// computed fields of every company of a server, a few hundred kilobytes.
const maxExact = 4096

func (m *exactMemo) of(r *registers.Register, text string) bool {
	k := exactKey{r.Reg.Name, text}
	m.mu.RLock()
	exact, ok := m.answer[k]
	m.mu.RUnlock()
	if ok {
		return exact
	}
	exact = store.ExactInGo(text, r.TextColumn)
	m.mu.Lock()
	if m.answer == nil || len(m.answer) >= maxExact {
		m.answer = map[exactKey]bool{}
	}
	m.answer[k] = exact
	m.mu.Unlock()
	return exact
}

// writesBeyondRows reports whether a create writes more than its record's
// row and its lines' rows: extra field values, or lines of its lines.
func writesBeyondRows(in engine.Input, depth int) bool {
	if len(in.Extra) > 0 {
		return true
	}
	for _, lines := range in.Lines {
		for _, line := range lines {
			if depth > 0 || writesBeyondRows(line, depth+1) {
				return true
			}
		}
	}
	return false
}

// createLines creates lines of one list of an owner: each checked in
// order, then all inserted in one statement, then completed (inserted). On
// an error it says which line failed.
func (w *Writer) createLines(ctx context.Context, o *lineOwner, ins []engine.Input) ([]*created, int, error) {
	list, at, err := w.prepareLines(ctx, o, ins)
	if err != nil {
		return nil, at, err
	}
	seqs, err := w.tx.Insert(ctx, list.reg.Reg.Name, w.s.Company, list.rows)
	if err != nil {
		return nil, 0, w.duplicateKey(list.reg, "", nil, err)
	}
	return w.linesInserted(ctx, list, seqs)
}

// lineList is one line list of a create, checked and not yet stored.
type lineList struct {
	line    *catalog.Line
	reg     *registers.Register
	pending []*pendingRecord
	rows    []store.Values
}

// lineOwner is the record whose lines a create writes: its register, its
// values by field name, the line list and its key.
type lineOwner struct {
	r      *registers.Register
	values map[string]any
	line   *catalog.Line
	key    string
}

// prepareLines checks the lines of one list of an owner, in order; on an
// error it says which line failed.
func (w *Writer) prepareLines(ctx context.Context, o *lineOwner, ins []engine.Input) (*lineList, int, error) {
	list := &lineList{line: o.line, reg: w.e.registers[o.line.Register], pending: make([]*pendingRecord, len(ins)), rows: make([]store.Values, len(ins))}
	for i, in := range ins {
		p, err := w.prepare(ctx, list.reg, in, o)
		if err != nil {
			return nil, i, err
		}
		list.pending[i], list.rows[i] = p, w.row(list.reg, p.values)
	}
	return list, 0, nil
}

// linesInserted completes the lines of a list once stored with the given
// seqs (inserted). On an error it says which line failed.
func (w *Writer) linesInserted(ctx context.Context, list *lineList, seqs []int64) ([]*created, int, error) {
	out := make([]*created, len(list.pending))
	for i, p := range list.pending {
		c, err := w.inserted(ctx, p, seqs[i], nil, nil)
		if err != nil {
			return nil, i, err
		}
		out[i] = c
	}
	return out, 0, nil
}

// refuseInLine names the line a refusal is about.
func refuseInLine(err error, list string, i int) error {
	var refusal *engine.CommandError
	if errors.As(err, &refusal) {
		return refusal.InLine(list, i)
	}
	return err
}

// prepare runs every check of a new record (or of a line of o) and
// completes its values.
func (w *Writer) prepare(ctx context.Context, r *registers.Register, in engine.Input, o *lineOwner) (*pendingRecord, error) {
	values, err := acceptValues(r, in.Values, writableOnCreate)
	if err != nil {
		return nil, err
	}
	p := &pendingRecord{reg: r, in: in, values: values, sent: fieldNames(r, values)}
	if o != nil {
		// The owner's key and the list's fixed values override what the
		// line sent; the line takes what the list inherits (catalog
		// Line.Inherit) from the owner unless it gives its own, and the
		// owner's rules fill the rest.
		values[o.line.Parent] = o.key
		for name, text := range o.line.Set {
			values[name] = registers.SetValue(r.Reg.Field(name), text)
		}
		for _, name := range o.line.Inherit {
			if engine.Empty(values[name]) && !engine.Empty(o.values[name]) {
				values[name] = o.values[name]
			}
		}
		if err := w.e.rules.PrepareLine(ctx, ruleTx{w}, o.r.Reg.Name, o.values, o.line.Name, values); err != nil {
			return nil, err
		}
	}
	if err := w.applyDefaults(ctx, r, values); err != nil {
		return nil, err
	}
	if err := checkRequired(r, values); err != nil {
		return nil, err
	}
	if p.key, err = w.assignKey(ctx, r, values); err != nil {
		return nil, err
	}
	if err := w.checkLookupsFree(ctx, r, values, 0); err != nil {
		return nil, err
	}
	if err := w.resolveReferences(ctx, r, values); err != nil {
		return nil, err
	}
	if err := w.fillReferencedDefaults(ctx, r, values); err != nil {
		return nil, err
	}
	if err := w.e.rules.PrepareCreate(ctx, ruleTx{w}, r.Reg.Name, values); err != nil {
		return nil, err
	}
	if err := w.checkExtra(ctx, r, in.Extra); err != nil {
		return nil, err
	}
	for name := range in.Lines {
		if r.Line(name) == nil {
			return nil, engine.Refuse("%s have no line list %q", r.Reg.Name, name)
		}
	}
	if err := checkFinite(r, values); err != nil {
		return nil, err
	}
	return p, nil
}

// row is the stored row of a record's values: Modified, and each stored
// field present (values may hold more, such as a rule's notes).
func (w *Writer) row(r *registers.Register, values map[string]any) store.Values {
	row := make(store.Values, len(values)+1)
	row[registers.ModifiedField] = w.now
	for _, f := range r.Stored {
		if v, ok := values[f.Name]; ok {
			row[f.Name] = v
		}
	}
	return row
}

// duplicateKey is the refusal of a write whose key (or lookup key) a
// parallel write took between the check and the insert; values are what
// it wrote. It keeps the store's error, so an upsert can tell the race
// from a refusal.
func (w *Writer) duplicateKey(r *registers.Register, key string, values map[string]any, err error) error {
	var dup *store.DuplicateError
	if !errors.As(err, &dup) {
		return err
	}
	switch f := r.UniqueField(dup.Index); {
	case f != nil && f != r.Key:
		value, _ := values[f.Name].(string)
		return errors.Join(&engine.KeyTakenError{Record: r.Reg.Record, Field: f.Name, Value: value, Lookup: true}, err)
	case !r.EngineKeyed && (len(r.Lookups) == 0 || f == r.Key):
		return errors.Join(alreadyExists(r, key), err)
	case len(r.Lookups) > 0:
		// The store did not say which unique index it was: name them all.
		fields := r.Key.Name
		for _, f := range r.Lookups {
			fields += " or " + f.Name
		}
		return errors.Join(&engine.KeyTakenError{Record: r.Reg.Record, Field: fields, Lookup: true}, err)
	}
	return err
}

// update changes the fields sent on the record with the given key, notes
// its event and returns the record after the change as a Get reads it (an
// input that changes nothing writes, logs and emits nothing, and keeps
// Modified). The record is read under the row's lock before the change;
// the answer is that record with the change applied.
func (w *Writer) update(ctx context.Context, r *registers.Register, key string, in engine.Input) (engine.Record, error) {
	current, seq, err := w.e.reads.Record(ctx, w.tx, r, w.s.Company, key, true)
	if err != nil {
		return nil, err
	}
	if err := in.CheckVersion(current); err != nil {
		return nil, err
	}
	if len(in.Lines) > 0 {
		return nil, engine.Refuse("lines can only be sent when creating %s", r.Reg.Name)
	}
	values, err := acceptValues(r, in.Values, writableOnUpdate)
	if err != nil {
		return nil, err
	}
	if v, ok := values[r.Key.Name]; ok {
		if sentKey, _ := v.(string); sentKey != key {
			return nil, refuseChange(r.Key.Name)
		}
		delete(values, r.Key.Name)
	}
	for name, v := range values {
		if r.Reg.Field(name).Required && engine.Empty(v) {
			return nil, refuseMissing(name)
		}
	}
	if len(values) == 0 && len(in.Extra) == 0 {
		return current, nil
	}
	sent := fieldNames(r, values)
	if err := w.checkLookupsFree(ctx, r, values, seq); err != nil {
		return nil, err
	}
	if err := w.resolveReferences(ctx, r, values); err != nil {
		return nil, err
	}
	if err := w.e.rules.PrepareUpdate(ctx, ruleTx{w}, r.Reg.Name, current, values); err != nil {
		return nil, err
	}
	if err := w.checkExtra(ctx, r, in.Extra); err != nil {
		return nil, err
	}
	set := w.row(r, values)
	if err := checkFinite(r, set); err != nil {
		return nil, err
	}
	bySeq := []store.Cond{store.Equal(store.SeqField, seq)}
	// The company's computed extra fields of the record are read with its
	// UPDATE (store.UpdateThenSelect), so its answer needs no round trip of
	// its own; not when it writes extra field values, which an expression
	// might read: the answer reads them after.
	var reads []store.Select
	if len(in.Extra) == 0 {
		if reads, err = w.computedSelect(ctx, r, bySeq[0]); err != nil {
			return nil, err
		}
	}
	var read [][]store.Row
	if len(reads) == 0 && !setsUnique(r, set) {
		// Nothing reads it back and it cannot collide: PostgreSQL is sent
		// it with the write's closing statements.
		err = store.UpdateLater(ctx, w.tx, r.Reg.Name, w.s.Company, bySeq, set)
	} else {
		_, read, err = store.UpdateThenSelect(ctx, w.tx, r.Reg.Name, w.s.Company, bySeq, set, reads)
	}
	if err != nil {
		return nil, w.duplicateKey(r, key, values, err)
	}
	computed, computedAt := oneRow(read), w.ruleUpdates
	if err := extrafields.Write(ctx, w.tx, w.s.Company, r.Reg.Name, seq, in.Extra); err != nil {
		return nil, err
	}
	after := maps.Clone(current)
	maps.Copy(after, set)
	w.keepLive(r.Reg.Name, key, after)
	if err := w.e.rules.AfterUpdate(ctx, ruleTx{w}, r.Reg.Name, current, after); err != nil {
		return nil, err
	}
	changed := changedNames(sent, in.Extra)
	w.log(r, key, "update", strings.Join(changed, ", "), after)
	if r.Reg.ExtraFields {
		before, _ := current["ExtraFields"].(map[string]string)
		stored := make(map[string]string, len(before)+len(in.Extra))
		maps.Copy(stored, before)
		maps.Copy(stored, in.Extra)
		if after["ExtraFields"], err = w.extraFieldsOf(ctx, r, seq, after, stored, computed, computedAt); err != nil {
			return nil, err
		}
	}
	w.Emit(r.Reg.Name, catalog.EventUpdated, key, changed)
	return after, nil
}

// setsUnique reports whether an update sets a field a unique index holds
// (the key, a lookup key), whose collision with another record is the
// update's refusal.
func setsUnique(r *registers.Register, set store.Values) bool {
	if _, ok := set[r.Key.Name]; ok {
		return true
	}
	return slices.ContainsFunc(r.Lookups, func(f *catalog.Field) bool { _, ok := set[f.Name]; return ok })
}

// createdRecord is a created record as a Get reads it, or as its create
// answers with it (answer): with its version, and the lines created with
// it in the lists a Get does not read. It is built from what the write
// wrote, not read back: no other write can see it before the commit.
func (w *Writer) createdRecord(ctx context.Context, c *created, answer bool) (engine.Record, error) {
	r := c.reg
	rec := make(engine.Record, len(r.Stored)+3+len(r.Reg.Lines))
	for _, f := range r.Stored {
		rec[f.Name] = c.values[f.Name]
	}
	rec[registers.ModifiedField] = w.now
	if r.EngineKeyed {
		rec[r.Key.Name] = c.key
	}
	var err error
	if r.Reg.ExtraFields {
		if rec["ExtraFields"], err = w.extraFieldsOf(ctx, r, c.seq, c.values, c.in.Extra, c.computed, c.computedAt); err != nil {
			return nil, err
		}
	}
	for _, l := range r.Reg.Lines {
		if l.Read {
			if rec[l.ReadName], err = w.createdRecords(ctx, c.lines[l.Name], false); err != nil {
				return nil, err
			}
		}
	}
	if !answer {
		return rec, nil
	}
	rec[engine.VersionField] = rec.Version()
	for _, l := range r.Reg.Lines {
		if !l.Read && len(c.lines[l.Name]) > 0 {
			if rec[l.ReadName], err = w.createdRecords(ctx, c.lines[l.Name], true); err != nil {
				return nil, err
			}
		}
	}
	return rec, nil
}

// createdRecords are created lines as createdRecord makes them, oldest first.
func (w *Writer) createdRecords(ctx context.Context, lines []*created, answer bool) ([]engine.Record, error) {
	recs := make([]engine.Record, len(lines))
	for i, lc := range lines {
		var err error
		if recs[i], err = w.createdRecord(ctx, lc, answer); err != nil {
			return nil, err
		}
	}
	return recs, nil
}

// extraFieldsOf is the ExtraFields of a record of r the write has written,
// from its values (as now stored, live) and stored extra values: the
// computed ones evaluated from values where that is exact (exactInGo),
// else as computed holds them, read with the write's statements while no
// rule has updated a record since (computedAt), else read now.
func (w *Writer) extraFieldsOf(ctx context.Context, r *registers.Register, seq int64, values map[string]any, stored map[string]string, computed store.Values, computedAt int) (map[string]string, error) {
	if computedAt != w.ruleUpdates {
		computed = nil
	}
	defs, err := w.e.extra.Of(ctx, w.tx, w.s.Company, r.Reg.Name)
	if err != nil {
		return nil, err
	}
	if exprs := extrafields.Exprs(defs); computed == nil && w.e.exactInGo(r, exprs) {
		computed = make(store.Values, len(exprs))
		column := r.ColumnOf(values, seq, w.now) // Modified: now, for what the write wrote
		for _, x := range exprs {
			computed[x.Name] = store.EvalExpr(x.Text, column)
		}
	}
	if computed == nil {
		reads, err := w.computedSelect(ctx, r, store.Equal(store.SeqField, seq))
		if err != nil {
			return nil, err
		}
		rows, err := store.SelectEach(ctx, w.tx, reads)
		if err != nil {
			return nil, err
		}
		computed = oneRow(rows)
	}
	return extrafields.Fields(defs, stored, computed), nil
}

// fieldNames lists the fields present in values, in catalog order.
func fieldNames(r *registers.Register, values map[string]any) []string {
	var names []string
	for _, f := range r.Reg.Fields {
		if _, ok := values[f.Name]; ok {
			names = append(names, f.Name)
		}
	}
	return names
}

// changedNames lists the fields a write sent, then its extra fields
// (ExtraFields.<key>, sorted).
func changedNames(fields []string, extra map[string]string) []string {
	parts := append([]string{}, fields...)
	keys := slices.AppendSeq(make([]string, 0, len(extra)), maps.Keys(extra))
	slices.Sort(keys)
	for _, k := range keys {
		parts = append(parts, "ExtraFields."+k)
	}
	return parts
}

// finish writes what the write noted for its end: the change-log rows,
// then its events, each in one statement, with rec as the record of the
// events that carry none.
func (w *Writer) finish(ctx context.Context, rec engine.Record) error {
	if err := w.flushLog(ctx); err != nil {
		return err
	}
	return w.recordEvents(ctx, rec)
}
