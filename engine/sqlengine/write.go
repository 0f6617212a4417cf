package sqlengine

import (
	"context"
	"errors"
	"math"
	"sort"
	"strings"

	"fieldapi/catalog"
	"fieldapi/engine"
	"fieldapi/engine/rules"
)

// errClaimLost: the idempotency claim was taken over while the write ran
// (its lease expired), so this execution must not commit.
var errClaimLost = errors.New("idempotency claim lost: another execution took over this Idempotency-Key; nothing was written")

// Create writes a new record and its lines in one transaction, renders the
// receipt from the record as read back, and stores it with the idempotency
// claim in the same transaction.
func (e *Engine) Create(ctx context.Context, s engine.Session, register string, in engine.Input, r engine.Receipt) (engine.Response, error) {
	return call(e, ctx, func(ctx context.Context) (engine.Response, error) {
		t, err := e.table(register)
		if err != nil {
			return engine.Response{}, err
		}
		if !t.reg.Has(catalog.Create) {
			return engine.Response{}, engine.Refuse("%s cannot be created through the API", register)
		}
		return e.writeCall(ctx, s, t, r, func(ctx context.Context, w *writer) (engine.Record, error) {
			c, err := w.create(ctx, t, in, nil, nil)
			if err != nil {
				return nil, err
			}
			w.emit(t, catalog.EventCreated, c.key, c.changed())
			return e.readCreated(ctx, w.tx, s.Company, c)
		})
	})
}

// Update changes the fields present in the input, then renders and stores
// the receipt in the same transaction. An unknown key is ErrNotFound.
func (e *Engine) Update(ctx context.Context, s engine.Session, register, key string, in engine.Input, r engine.Receipt) (engine.Response, error) {
	return call(e, ctx, func(ctx context.Context) (engine.Response, error) {
		t, err := e.table(register)
		if err != nil {
			return engine.Response{}, err
		}
		if !t.reg.Has(catalog.Update) {
			return engine.Response{}, engine.Refuse("%s cannot be changed through the API", register)
		}
		return e.writeCall(ctx, s, t, r, func(ctx context.Context, w *writer) (engine.Record, error) {
			seq, changed, err := w.update(ctx, t, key, in)
			if err != nil {
				return nil, err
			}
			if changed != nil {
				w.emit(t, catalog.EventUpdated, key, changed)
			}
			return e.getRecordBySeq(ctx, w.tx, t, s.Company, seq)
		})
	})
}

// writeCall runs one API write on a register: the signature must be
// allowed to write it; do runs in one transaction and returns the record
// the receipt renders, which is stored with the write, and the events do
// emitted are recorded last, with that record.
func (e *Engine) writeCall(ctx context.Context, s engine.Session, t *table, r engine.Receipt, do func(ctx context.Context, w *writer) (engine.Record, error)) (engine.Response, error) {
	if err := e.authorizeWrite(ctx, s, t.reg.Name); err != nil {
		return engine.Response{}, err
	}
	var resp engine.Response
	err := e.inTx(ctx, func(tx *txn) error {
		w := e.apiWriter(tx, s)
		rec, err := do(ctx, w)
		if err != nil {
			return err
		}
		if resp, err = storeReceipt(ctx, tx, r, rec); err != nil {
			return err
		}
		return w.recordEvents(ctx, rec)
	})
	return resp, err
}

// authorizeWrite checks that the signature may write the register, before
// a write's transaction: a fault there (say a timeout) is one of a write
// that never began, so it is not committed (503, safe to retry), never a
// "may have written" 504.
func (e *Engine) authorizeWrite(ctx context.Context, s engine.Session, register string) error {
	return notCommitted(e.authorize(ctx, e.db, s, register, writeAccess))
}

// storeReceipt renders the response from the record as written and marks
// the idempotency claim done with it, inside the write's transaction: the
// write and its stored response commit together or not at all.
func storeReceipt(ctx context.Context, tx *txn, r engine.Receipt, rec engine.Record) (engine.Response, error) {
	if r.Render == nil {
		return engine.Response{}, nil
	}
	resp, err := r.Render(rec)
	if err != nil {
		return engine.Response{}, err
	}
	if r.Claim.Key == "" {
		return resp, nil
	}
	n, err := execAffected(ctx, tx, `UPDATE "idempotency" SET "state" = 'done', "status" = ?, "body" = ?
		WHERE "scope" = ? AND "key" = ? AND "token" = ? AND "state" = 'pending'`,
		resp.Status, resp.Body, storable(r.Claim.Scope), storable(r.Claim.Key), r.Claim.Token)
	if err != nil {
		return engine.Response{}, err
	}
	if n == 0 {
		return engine.Response{}, errClaimLost
	}
	return resp, nil
}

// writer performs the writes of one call inside its transaction.
type writer struct {
	e   *Engine
	tx  *txn
	s   engine.Session
	now string // Modified of every record this call writes

	events []*pendingEvent // emitted by this call, recorded just before commit
}

func (e *Engine) apiWriter(tx *txn, s engine.Session) *writer {
	return &writer{e: e, tx: tx, s: s, now: e.now()}
}

// created is a record a create wrote, with the lines written with it.
type created struct {
	table *table
	seq   int64
	key   string
	sent  []string              // the fields the create sent, in catalog order
	lines map[string][]*created // by line list name
}

// counts are the rows a create wrote, by register: the record's first, then
// its line registers' in catalog order (the order counter rows are locked
// in, the same for every create).
func (c *created) counts() []registerCount {
	counts := []registerCount{{table: c.table, n: 1}}
	for _, l := range c.table.reg.Lines {
		for _, lc := range c.lines[l.Name] {
			counts = addTo(counts, lc.counts())
		}
	}
	return counts
}

// addTo merges more into counts, keeping the order registers first appear in.
func addTo(counts, more []registerCount) []registerCount {
next:
	for _, m := range more {
		for i := range counts {
			if counts[i].table == m.table {
				counts[i].n += m.n
				continue next
			}
		}
		counts = append(counts, m)
	}
	return counts
}

// changed lists what a create sent: its fields, then the line lists that
// carried lines (by their read names).
func (c *created) changed() []string {
	names := append([]string{}, c.sent...)
	for _, l := range c.table.reg.Lines {
		if len(c.lines[l.Name]) > 0 {
			names = append(names, l.ReadName)
		}
	}
	return names
}

// create writes one record and its lines and counts them (see counts.go).
// fixed holds values the owner of a line sets (its key in the parent field,
// the line's Set values); they override what the line sent and bypass the
// writable check. inherit, when set, fills what a line takes from its
// owner unless it gives its own.
func (w *writer) create(ctx context.Context, t *table, in engine.Input, fixed map[string]any, inherit func(values map[string]any) error) (*created, error) {
	c, err := w.build(ctx, t, in, fixed, inherit)
	if err != nil {
		return nil, err
	}
	return c, addCounts(ctx, w.tx, w.s.Company, c.counts())
}

// build is create without the counting: the record and its lines are
// counted together, in one statement, once all are written.
func (w *writer) build(ctx context.Context, t *table, in engine.Input, fixed map[string]any, inherit func(values map[string]any) error) (*created, error) {
	values, err := w.acceptValues(t, in.Values, writableOnCreate)
	if err != nil {
		return nil, err
	}
	sent := fieldNames(t, values)
	for name, v := range fixed {
		values[name] = v
	}
	if inherit != nil {
		if err := inherit(values); err != nil {
			return nil, err
		}
	}
	if err := w.applyDefaults(ctx, t, values); err != nil {
		return nil, err
	}
	if err := checkRequired(t, values); err != nil {
		return nil, err
	}
	key, err := w.assignKey(ctx, t, values)
	if err != nil {
		return nil, err
	}
	if err := w.resolveReferences(ctx, t, values); err != nil {
		return nil, err
	}
	if err := w.fillReferencedDefaults(ctx, t, values); err != nil {
		return nil, err
	}
	if err := w.e.rules.PrepareCreate(ctx, w.ruleTx(), t.reg.Name, values); err != nil {
		return nil, err
	}
	if err := w.checkExtra(ctx, t, in.Extra); err != nil {
		return nil, err
	}
	for name := range in.Lines {
		if lineOf(t, name) == nil {
			return nil, engine.Refuse("%s have no line list %q", t.reg.Name, name)
		}
	}

	seq, err := w.insertRow(ctx, t, values)
	if err != nil {
		return nil, err
	}
	if t.engineKeyed {
		key = formatSeq(seq)
	}
	if err := writeExtra(ctx, w.tx, t, w.s.Company, seq, in.Extra); err != nil {
		return nil, err
	}
	c := &created{table: t, seq: seq, key: key, sent: sent, lines: map[string][]*created{}}
	for _, l := range t.reg.Lines {
		for i, lineIn := range in.Lines[l.Name] {
			lc, err := w.buildLine(ctx, t, values, l, key, lineIn)
			var refusal *engine.CommandError
			if errors.As(err, &refusal) {
				return nil, refusal.InLine(l.Name, i)
			}
			if err != nil {
				return nil, err
			}
			c.lines[l.Name] = append(c.lines[l.Name], lc)
		}
	}
	if err := w.e.rules.AfterCreate(ctx, w.ruleTx(), t.reg.Name, rules.Created{Key: key, Row: seq}, values); err != nil {
		return nil, err
	}
	if err := w.log(ctx, t, key, "create", changeDetail(sent, in.Extra), values); err != nil {
		return nil, err
	}
	return c, nil
}

// createLine creates one line of the owner's line list l and counts it:
// the owner's key and the list's fixed values are set, the line takes the
// fields the list inherits (catalog Line.Inherit) from the owner unless it
// gives its own, and the owner's rules fill the rest. owner holds the
// owner's values by field name.
func (w *writer) createLine(ctx context.Context, t *table, owner map[string]any, l *catalog.Line, ownerKey string, in engine.Input) (*created, error) {
	c, err := w.buildLine(ctx, t, owner, l, ownerKey, in)
	if err != nil {
		return nil, err
	}
	return c, addCounts(ctx, w.tx, w.s.Company, c.counts())
}

// buildLine is createLine without the counting (see build).
func (w *writer) buildLine(ctx context.Context, t *table, owner map[string]any, l *catalog.Line, ownerKey string, in engine.Input) (*created, error) {
	lt := w.e.tables[l.Register]
	inherit := func(values map[string]any) error {
		for _, name := range l.Inherit {
			if isEmpty(values[name]) && !isEmpty(owner[name]) {
				values[name] = owner[name]
			}
		}
		return w.e.rules.PrepareLine(ctx, w.ruleTx(), t.reg.Name, owner, l.Name, values)
	}
	return w.build(ctx, lt, in, lineValues(lt, l, ownerKey), inherit)
}

// assignKey returns the key of a new record: the one given, which must be
// free, or the next number of the register's series. Engine-keyed records
// get theirs from the insert.
func (w *writer) assignKey(ctx context.Context, t *table, values map[string]any) (string, error) {
	if t.engineKeyed {
		return "", nil
	}
	key, _ := values[t.key.Name].(string)
	if key != "" {
		taken, err := w.keyExists(ctx, t, key)
		if err != nil {
			return "", err
		}
		if taken {
			return "", alreadyExists(t, key)
		}
		return key, nil
	}
	if !t.reg.NumberSeries {
		return "", engine.Refuse("%s is required", t.key.Name)
	}
	key, err := w.nextNumber(ctx, t)
	if err != nil {
		return "", err
	}
	values[t.key.Name] = key
	return key, nil
}

// lineValues are the values an owner sets on each of its lines.
func lineValues(lt *table, l *catalog.Line, ownerKey string) map[string]any {
	fixed := map[string]any{l.Parent: ownerKey}
	for name, text := range l.Set {
		fixed[name] = setValue(lt.reg.Field(name), text)
	}
	return fixed
}

// insert writes a new row, counts it (see counts.go) and returns its seq.
func (w *writer) insert(ctx context.Context, t *table, values map[string]any) (int64, error) {
	seq, err := w.insertRow(ctx, t, values)
	if err != nil {
		return 0, err
	}
	return seq, addCount(ctx, w.tx, w.s.Company, t, 1)
}

// insertRow writes a new row and returns its seq; the caller counts it.
func (w *writer) insertRow(ctx context.Context, t *table, values map[string]any) (int64, error) {
	cols := []string{quote(companyColumn), quote(modifiedColumn)}
	args := []any{w.s.Company, w.now}
	for _, f := range t.stored {
		if v, ok := values[f.Name]; ok {
			if err := checkFinite(f, v); err != nil {
				return 0, err
			}
			cols = append(cols, quote(f.Column))
			args = append(args, toDB(f, v))
		}
	}
	var seq int64
	err := get(ctx, w.tx, &seq, `INSERT INTO `+t.name()+` (`+strings.Join(cols, ", ")+`)
		VALUES (`+placeholders(len(args))+`) RETURNING "seq"`, args...)
	if err != nil && w.e.dialect.isUniqueViolation(err) && !t.engineKeyed {
		// A parallel create took the key between our check and the insert.
		key, _ := values[t.key.Name].(string)
		return 0, alreadyExists(t, key)
	}
	return seq, err
}

// checkFinite refuses a number about to be stored that is not finite. The
// HTTP layer only passes finite numbers, but what the engine computes from
// them (an order line's TotalPrice from a price near the float64 maximum)
// can overflow; neither database nor JSON can carry the result, so the
// write is refused (422) naming the field rather than failing later.
func checkFinite(f *catalog.Field, v any) error {
	if x, isNumber := v.(float64); isNumber && (math.IsInf(x, 0) || math.IsNaN(x)) {
		return engine.Refuse("%s: the value is out of range; the amounts sent are too large", f.Name)
	}
	return nil
}

// update changes the fields sent on the record with the given key and
// returns its seq and the names of the fields changed (nil when the
// input changed nothing: no write, no log, no event).
func (w *writer) update(ctx context.Context, t *table, key string, in engine.Input) (int64, []string, error) {
	current, seq, err := w.lockedRecordSeq(ctx, t, key)
	if err != nil {
		return 0, nil, err
	}
	if err := in.CheckVersion(current); err != nil {
		return 0, nil, err
	}
	if len(in.Lines) > 0 {
		return 0, nil, engine.Refuse("lines can only be sent when creating %s", t.reg.Name)
	}
	values, err := w.acceptValues(t, in.Values, writableOnUpdate)
	if err != nil {
		return 0, nil, err
	}
	if v, ok := values[t.key.Name]; ok {
		if sentKey, _ := v.(string); sentKey != key {
			return 0, nil, engine.Refuse("%s cannot be changed", t.key.Name)
		}
		delete(values, t.key.Name)
	}
	for name, v := range values {
		if t.reg.Field(name).Required && isEmpty(v) {
			return 0, nil, engine.Refuse("%s is required", name)
		}
	}
	if len(values) == 0 && len(in.Extra) == 0 {
		return seq, nil, nil // nothing to change: no write, no log, Modified kept
	}
	sent := fieldNames(t, values)
	if err := w.resolveReferences(ctx, t, values); err != nil {
		return 0, nil, err
	}
	if err := w.e.rules.PrepareUpdate(ctx, w.ruleTx(), t.reg.Name, current, values); err != nil {
		return 0, nil, err
	}
	if err := w.checkExtra(ctx, t, in.Extra); err != nil {
		return 0, nil, err
	}

	sets := []string{quote(modifiedColumn) + " = ?"}
	args := []any{w.now}
	for _, f := range t.stored {
		if v, ok := values[f.Name]; ok {
			if err := checkFinite(f, v); err != nil {
				return 0, nil, err
			}
			sets = append(sets, quote(f.Column)+" = ?")
			args = append(args, toDB(f, v))
		}
	}
	args = append(args, w.s.Company, seq)
	_, err = exec(ctx, w.tx, `UPDATE `+t.name()+` SET `+strings.Join(sets, ", ")+` WHERE "company" = ? AND "seq" = ?`, args...)
	if err != nil {
		return 0, nil, err
	}
	if err := writeExtra(ctx, w.tx, t, w.s.Company, seq, in.Extra); err != nil {
		return 0, nil, err
	}
	after := engine.Record{}
	for name, v := range current {
		after[name] = v
	}
	for name, v := range values {
		after[name] = v
	}
	if err := w.e.rules.AfterUpdate(ctx, w.ruleTx(), t.reg.Name, current, after); err != nil {
		return 0, nil, err
	}
	return seq, changedNames(sent, in.Extra), w.log(ctx, t, key, "update", changeDetail(sent, in.Extra), after)
}

// checkExtra validates extra-field values sent against the company's
// definitions.
func (w *writer) checkExtra(ctx context.Context, t *table, extra map[string]string) error {
	if len(extra) == 0 {
		return nil
	}
	defs, err := loadExtraDefs(ctx, w.tx, w.s.Company, t.reg.Name)
	if err != nil {
		return err
	}
	return checkExtra(t, defs, extra)
}

// readCreated reads a created record back as the API shows it, with the
// lines created with it under their lists' ReadNames (lists the read shape
// carries anyway are read in full by getRecordBySeq).
func (e *Engine) readCreated(ctx context.Context, q db, company string, c *created) (engine.Record, error) {
	rec, err := e.getRecordBySeq(ctx, q, c.table, company, c.seq)
	if err != nil {
		return nil, err
	}
	// The version is that of the record as a GET reads it, before the
	// lines only a create's answer carries are added.
	rec[engine.VersionField] = rec.Version()
	for _, l := range c.table.reg.Lines {
		lines := c.lines[l.Name]
		if len(lines) == 0 || l.Read {
			continue
		}
		recs := make([]engine.Record, len(lines))
		for i, lc := range lines {
			if recs[i], err = e.readCreated(ctx, q, company, lc); err != nil {
				return nil, err
			}
		}
		rec[l.ReadName] = recs
	}
	return rec, nil
}

// lineOf returns the register's line list with the given name, or nil.
func lineOf(t *table, name string) *catalog.Line {
	for _, l := range t.reg.Lines {
		if l.Name == name {
			return l
		}
	}
	return nil
}

// fieldNames lists the fields present in values, in catalog order.
func fieldNames(t *table, values map[string]any) []string {
	var names []string
	for _, f := range t.reg.Fields {
		if _, ok := values[f.Name]; ok {
			names = append(names, f.Name)
		}
	}
	return names
}

// changeDetail is the change log's list of what a write sent.
func changeDetail(fields []string, extra map[string]string) string {
	return strings.Join(changedNames(fields, extra), ", ")
}

// changedNames lists the fields a write sent, then its extra fields
// (ExtraFields.<key>, sorted).
func changedNames(fields []string, extra map[string]string) []string {
	parts := append([]string{}, fields...)
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		parts = append(parts, "ExtraFields."+k)
	}
	return parts
}

// lockedRecord reads a record and holds its row for the rest of the
// transaction, so a read-modify-write (an update, a status move, a line
// added) never works from a "before" that a parallel call is changing.
func (w *writer) lockedRecord(ctx context.Context, t *table, key string) (engine.Record, error) {
	rec, _, err := w.lockedRecordSeq(ctx, t, key)
	return rec, err
}

func (w *writer) lockedRecordSeq(ctx context.Context, t *table, key string) (engine.Record, int64, error) {
	if cond, arg, ok := t.keyMatch(key); ok {
		_, err := exec(ctx, w.tx, `SELECT "seq" FROM `+t.name()+` WHERE "company" = ? AND `+cond+w.e.dialect.forUpdate(), w.s.Company, arg)
		if err != nil {
			return nil, 0, err
		}
	}
	return w.e.getRecord(ctx, w.tx, t, w.s.Company, key)
}
