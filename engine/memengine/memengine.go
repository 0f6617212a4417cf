// Package memengine is a small engine that keeps every record in memory and
// knows no business rules beyond the catalog: keys and number series,
// defaults, required fields, references and lookups, line lists, filters,
// paging, companies and signatures. It offers none of the optional
// capabilities (lines one by one, actions, locations, documents) and no
// extra fields.
//
// It exists for tests that need an engine but not the reference one (the
// runtime's), and as the smallest example of an engine that passes the
// port's conformance suite (engine/enginetest). Faults can be switched on
// (Fail) to see how the layers above report them.
//
// One mutex guards everything: each call sees and leaves a consistent
// state. A write changes the rows as it goes and keeps how to undo each
// change, so a refusal, a failed receipt or a lost claim leaves nothing.
package memengine

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"fieldapi/catalog"
	"fieldapi/engine"
)

var _ engine.Engine = (*Engine)(nil)

// Engine is the in-memory engine. It is safe for concurrent use.
type Engine struct {
	mu       sync.Mutex
	cat      *catalog.Catalog
	users    map[string]map[string][]string // company → sign → permissions
	rows     map[string][]*row              // register → rows of every company, oldest first
	seq      int64                          // last row number handed out
	numbers  map[string]int64               // company + register → last number of its series
	modified time.Time                      // last Modified written; each write's is later
	keys     map[string]engine.Key          // by client id
	tokens   map[string]engine.Token        // by token id
	claims   map[string]*claim              // by scope + key
	fault    error
}

// row is one stored record.
type row struct {
	seq      int64
	company  string
	modified time.Time
	values   engine.Record // catalog fields only
}

// New returns an empty engine serving the registers of cat.
func New(cat *catalog.Catalog) *Engine {
	return &Engine{
		cat: cat, users: map[string]map[string][]string{}, rows: map[string][]*row{},
		numbers: map[string]int64{}, keys: map[string]engine.Key{}, tokens: map[string]engine.Token{},
		claims: map[string]*claim{},
	}
}

// AddUser adds a signature to a company (the company exists once it has a
// user). Permissions are "*" or "<register>:read" / "<register>:write".
func (e *Engine) AddUser(company, sign string, permissions ...string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.users[company] == nil {
		e.users[company] = map[string][]string{}
	}
	e.users[company][sign] = permissions
}

// Fail makes every call answer the fault kind (engine.ErrBusy,
// engine.ErrUnreachable or engine.ErrTimeout) without doing anything, until
// Fail(nil).
func (e *Engine) Fail(kind error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.fault = kind
}

// begin locks the engine for one call, or answers the fault switched on.
func (e *Engine) begin() error {
	e.mu.Lock()
	if e.fault != nil {
		err := fmt.Errorf("memengine: %w", e.fault)
		e.mu.Unlock()
		return err
	}
	return nil
}

// Ping answers nil unless a fault is switched on.
func (e *Engine) Ping(context.Context) error {
	if err := e.begin(); err != nil {
		return err
	}
	e.mu.Unlock()
	return nil
}

// ExtraFieldDefs: this engine keeps no extra fields.
func (e *Engine) ExtraFieldDefs(context.Context, engine.Session, string) ([]engine.ExtraFieldDef, error) {
	return nil, nil
}

// FieldNames: this engine keeps no labels of its own.
func (e *Engine) FieldNames(context.Context, engine.Session) ([]engine.FieldName, error) {
	return nil, nil
}

// register returns a register of the catalog, or an error naming it.
func (e *Engine) register(name string) (*catalog.Register, error) {
	r := e.cat.Register(name)
	if r == nil {
		return nil, fmt.Errorf("unknown register %q", name)
	}
	return r, nil
}

// authorize checks the signature's permission to read or write a register.
func (e *Engine) authorize(s engine.Session, register, access string) error {
	perms, ok := e.users[s.Company][s.Sign]
	if !ok {
		return &engine.PermissionError{Sign: s.Sign, Action: fmt.Sprintf("%s %s (no such user in company %s)", access, register, s.Company)}
	}
	if slices.Contains(perms, "*") || slices.Contains(perms, register+":"+access) {
		return nil
	}
	return &engine.PermissionError{Sign: s.Sign, Action: access + " " + register}
}

// find returns the company's row of a register with the given key, or nil.
func (e *Engine) find(r *catalog.Register, company, key string) *row {
	for _, rw := range e.rows[r.Name] {
		if rw.company == company && keyOf(r, rw) == key {
			return rw
		}
	}
	return nil
}

// keyOf is a row's key: the field, or the row number when the engine assigns keys.
func keyOf(r *catalog.Register, rw *row) string {
	if r.EngineKeyed() {
		return strconv.FormatInt(rw.seq, 10)
	}
	key, _ := rw.values[r.Key].(string)
	return key
}

// Get returns one record of the caller's company by its key.
func (e *Engine) Get(_ context.Context, s engine.Session, register, key string) (engine.Record, error) {
	if err := e.begin(); err != nil {
		return nil, err
	}
	defer e.mu.Unlock()
	r, err := e.register(register)
	if err != nil {
		return nil, err
	}
	if err := e.authorize(s, register, "read"); err != nil {
		return nil, err
	}
	rw := e.find(r, s.Company, key)
	if rw == nil {
		return nil, fmt.Errorf("%s %q: %w", r.Record, key, engine.ErrNotFound)
	}
	return e.read(r, rw), nil
}

// read is a row as the API shows it: its fields, Modified, the engine's
// key, and the line lists its read shape carries.
func (e *Engine) read(r *catalog.Register, rw *row) engine.Record {
	rec := engine.Record{"Modified": rw.modified.UTC().Format(timestampLayout)}
	for _, f := range r.Fields {
		rec[f.Name] = rw.values[f.Name]
	}
	if r.EngineKeyed() {
		rec[r.Key] = keyOf(r, rw)
	}
	if r.ExtraFields {
		rec["ExtraFields"] = map[string]string{}
	}
	for _, l := range r.Lines {
		if l.Read {
			rec[l.ReadName] = e.linesOf(r, l, rw)
		}
	}
	return rec
}

// linesOf reads the lines of an owner row, oldest first.
func (e *Engine) linesOf(r *catalog.Register, l *catalog.Line, owner *row) []engine.Record {
	lr := e.cat.Register(l.Register)
	lines := []engine.Record{}
	for _, rw := range e.rows[l.Register] {
		if rw.company == owner.company && rw.values[l.Parent] == keyOf(r, owner) && e.hasSetValues(lr, l, rw) {
			lines = append(lines, e.read(lr, rw))
		}
	}
	return lines
}

func (e *Engine) hasSetValues(lr *catalog.Register, l *catalog.Line, rw *row) bool {
	for name, text := range l.Set {
		if v, _ := lr.Field(name).ParseValue(text); rw.values[name] != v {
			return false
		}
	}
	return true
}

// timestampLayout is how Modified reads: UTC, fixed width, microseconds.
const timestampLayout = "2006-01-02T15:04:05.000000Z"

// List returns one page of a register, newest (most recently created) first.
func (e *Engine) List(_ context.Context, s engine.Session, register string, q engine.Query) (engine.Page, error) {
	if err := e.begin(); err != nil {
		return engine.Page{}, err
	}
	defer e.mu.Unlock()
	r, err := e.register(register)
	if err != nil {
		return engine.Page{}, err
	}
	if err := e.authorize(s, register, "read"); err != nil {
		return engine.Page{}, err
	}
	match, err := matcher(r, q)
	if err != nil {
		return engine.Page{}, err
	}
	var matching []*row
	rows := e.rows[register]
	for i := len(rows) - 1; i >= 0; i-- {
		if rows[i].company == s.Company && match(rows[i]) {
			matching = append(matching, rows[i])
		}
	}
	var page engine.Page
	if !r.Uncounted && !q.KnownTotal {
		total := len(matching)
		page.Total = &total
	}
	if q.After != nil {
		i := slices.IndexFunc(matching, func(rw *row) bool { return rw.seq < *q.After })
		if i < 0 {
			i = len(matching)
		}
		matching = matching[i:]
	}
	limit := q.Limit
	if limit <= 0 {
		limit = 50
	}
	if q.Page > 1 {
		matching = matching[min(len(matching), (q.Page-1)*limit):]
	}
	if len(matching) > limit {
		matching = matching[:limit]
		next := matching[limit-1].seq
		page.Next = &next
	}
	page.Records = make([]engine.Record, len(matching))
	for i, rw := range matching {
		page.Records[i] = e.read(r, rw)
	}
	return page, nil
}

// matcher turns a query's conditions and modified range into a test of rows.
func matcher(r *catalog.Register, q engine.Query) (func(*row) bool, error) {
	var tests []func(*row) bool
	for _, c := range q.Where {
		test, err := condition(r, c)
		if err != nil {
			return nil, err
		}
		tests = append(tests, test)
	}
	if q.ModifiedSince != nil {
		since := *q.ModifiedSince
		tests = append(tests, func(rw *row) bool { return !rw.modified.Before(since) })
	}
	if q.ModifiedBefore != nil {
		before := *q.ModifiedBefore
		tests = append(tests, func(rw *row) bool { return rw.modified.Before(before) })
	}
	return func(rw *row) bool {
		for _, test := range tests {
			if !test(rw) {
				return false
			}
		}
		return true
	}, nil
}

// condition is the test of one filter.
func condition(r *catalog.Register, c engine.Condition) (func(*row) bool, error) {
	f := r.Field(c.Field)
	if f == nil {
		return nil, fmt.Errorf("filter: %s has no field %q", r.Name, c.Field)
	}
	values := make([]any, len(c.Values))
	for i, v := range c.Values {
		n, err := normalize(f, v)
		if err != nil {
			return nil, fmt.Errorf("filter on %s: %w", f.Name, err)
		}
		values[i] = n
	}
	field := func(rw *row) any {
		if f.Name == r.Key && r.EngineKeyed() {
			return keyOf(r, rw)
		}
		return rw.values[f.Name]
	}
	switch c.Op {
	case engine.OpEquals:
		if len(values) != 1 {
			return nil, fmt.Errorf("filter on %s: equals takes one value", f.Name)
		}
		return func(rw *row) bool { return reflect.DeepEqual(field(rw), values[0]) }, nil
	case engine.OpContains:
		text, ok := values[0].(string)
		if len(values) != 1 || !ok {
			return nil, fmt.Errorf("filter on %s: contains takes one text value", f.Name)
		}
		text = strings.ToLower(text)
		return func(rw *row) bool {
			v, _ := field(rw).(string)
			return strings.Contains(strings.ToLower(v), text)
		}, nil
	case engine.OpIn:
		return func(rw *row) bool { v := field(rw); return v != nil && oneOf(v, values) }, nil
	case engine.OpNotIn: // a field without a value is none of them
		return func(rw *row) bool { return !oneOf(field(rw), values) }, nil
	}
	return nil, fmt.Errorf("filter on %s: unknown operator %q", f.Name, c.Op)
}

func oneOf(v any, values []any) bool {
	return slices.ContainsFunc(values, func(x any) bool { return reflect.DeepEqual(x, v) })
}

// nextModified is the Modified of a write: now, but always later than the
// last one, so modifiedSince never misses a write made in the same tick.
func (e *Engine) nextModified() time.Time {
	now := time.Now().UTC().Truncate(time.Microsecond)
	if !now.After(e.modified) {
		now = e.modified.Add(time.Microsecond)
	}
	e.modified = now
	return now
}

// errClaimLost: the write's idempotency claim is no longer held by it.
var errClaimLost = errors.New("idempotency claim lost: another execution took over this Idempotency-Key; nothing was written")
