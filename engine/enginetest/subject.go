package enginetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"fieldapi/catalog"
	"fieldapi/engine"
)

// subject is the register the suite seeds, and the fields it uses, all
// read from the catalog.
type subject struct {
	reg       *catalog.Register
	key       string       // the key field
	name      string       // writable text field with a contains filter: the suite's names
	equals    string       // writable text field with an equals filter; "" when none
	spare     []string     // other plain writable text fields, for updates
	chosenKey bool         // the client may give the key on create
	line      *lineSubject // a line list the suite can fill; nil when none
}

// lineSubject is a line list of the subject.
type lineSubject struct {
	list     *catalog.Line
	reg      *catalog.Register
	name     string // text field the suite fills on each line
	required bool   // name is required: a line without it is refused
}

// pickSubject finds the subject register: the one named, or the first of
// the catalog that suits, preferring one with a line list.
func pickSubject(cat *catalog.Catalog, name string) (*subject, error) {
	if name != "" {
		r := cat.Register(name)
		if r == nil {
			return nil, fmt.Errorf("the catalog has no register %q", name)
		}
		sub, why := subjectOf(cat, r)
		if sub == nil {
			return nil, fmt.Errorf("register %s cannot be the suite's subject: %s", name, why)
		}
		return sub, nil
	}
	var first *subject
	for _, r := range cat.Registers {
		sub, _ := subjectOf(cat, r)
		if sub != nil && sub.line != nil {
			return sub, nil
		}
		if sub != nil && first == nil {
			first = sub
		}
	}
	if first == nil {
		return nil, fmt.Errorf("no register of the catalog can be the suite's subject: it needs create and update, a writable text field with a contains filter, and no required field other than plain text")
	}
	return first, nil
}

// subjectOf returns the subject r makes, or why it cannot be one.
func subjectOf(cat *catalog.Catalog, r *catalog.Register) (*subject, string) {
	if !r.Has(catalog.Create) || !r.Has(catalog.Update) {
		return nil, "it needs methods create and update"
	}
	if len(r.RequireOneOf) > 0 {
		return nil, "its requireOneOf fields are references"
	}
	key := r.KeyField()
	sub := &subject{reg: r, key: key.Name, chosenKey: key.Writable || key.CreateOnly}
	if sub.chosenKey && !r.NumberSeries {
		return nil, "its key must be given on create"
	}
	for _, f := range r.Fields {
		if f.Required && !plainText(f) {
			return nil, fmt.Sprintf("its required field %s is not plain text", f.Name)
		}
	}
	for _, flt := range r.Filters {
		f := r.Field(flt.Field)
		switch {
		case !plainText(f) || f.Name == key.Name || flt.Default != "":
		case flt.Match == catalog.Contains && sub.name == "":
			sub.name = f.Name
		case (flt.Match == catalog.Equals || flt.Match == "") && sub.equals == "" && !f.Required:
			sub.equals = f.Name
		}
	}
	if sub.name == "" {
		return nil, "it has no writable text field with a contains filter"
	}
	if sub.equals == sub.name {
		sub.equals = ""
	}
	for _, f := range r.Fields {
		if plainText(f) && !f.Required && f.Name != key.Name && f.Name != sub.name && f.Name != sub.equals && len(sub.spare) < 2 {
			sub.spare = append(sub.spare, f.Name)
		}
	}
	for _, l := range r.Lines {
		if ls := lineSubjectOf(cat, l); ls != nil {
			sub.line = ls
			break
		}
	}
	return sub, ""
}

// lineSubjectOf returns the line list l as the suite fills it, or nil.
func lineSubjectOf(cat *catalog.Catalog, l *catalog.Line) *lineSubject {
	lr := cat.Register(l.Register)
	if lr == nil || !(lr.EngineKeyed() || lr.NumberSeries) {
		return nil
	}
	ls := &lineSubject{list: l, reg: lr}
	for _, f := range lr.Fields {
		if _, fixed := l.Set[f.Name]; fixed || f.Name == l.Parent || f.Name == lr.Key {
			continue
		}
		switch {
		case f.Required && !plainText(f):
			return nil
		case f.Required && !ls.required:
			ls.name, ls.required = f.Name, true
		case plainText(f) && ls.name == "":
			ls.name = f.Name
		}
	}
	if ls.name == "" {
		return nil
	}
	return ls
}

// plainText: a text field the client writes freely, with no reference or lookup.
func plainText(f *catalog.Field) bool {
	return f != nil && plainTextType(f.Type) && f.Writable && !f.CreateOnly && f.References == "" && f.Lookup == ""
}

// input is a create of the subject named name: name goes into the name
// field and every other required field.
func (sub *subject) input(name string) engine.Input {
	in := engine.NewInput()
	in.Values[sub.name] = name
	for _, f := range sub.reg.Fields {
		if f.Required {
			in.Values[f.Name] = name
		}
	}
	return in
}

// lineInput is one line of the subject's line list named name.
func (ls *lineSubject) input(name string) engine.Input {
	in := engine.NewInput()
	in.Values[ls.name] = name
	for _, f := range ls.reg.Fields {
		if _, fixed := ls.list.Set[f.Name]; f.Required && !fixed && f.Name != ls.list.Parent {
			in.Values[f.Name] = name
		}
	}
	return in
}

// unique makes names and keys that no other subtest uses.
var unique atomic.Int64

func uniqueName(prefix string) string {
	return fmt.Sprintf("%s %d", prefix, unique.Add(1))
}

// capture is a receipt that renders the record as JSON and keeps it.
type capture struct {
	rec    engine.Record
	called int
}

func (c *capture) receipt(claim engine.Claim) engine.Receipt {
	return engine.Receipt{Claim: claim, Render: func(rec engine.Record) (engine.Response, error) {
		c.rec, c.called = rec, c.called+1
		body, err := json.Marshal(rec)
		return engine.Response{Status: 201, Body: body}, err
	}}
}

// noClaim: a write without an Idempotency-Key hold.
var noClaim engine.Claim

// create creates a subject record and returns it as the receipt saw it.
func (s *suite) create(sess engine.Session, in engine.Input) (engine.Record, error) {
	var c capture
	_, err := s.Engine.Create(context.Background(), sess, s.subject.reg.Name, in, c.receipt(noClaim))
	return c.rec, err
}

// mustCreate creates a subject record named name in the session's company.
func (s *suite) mustCreate(t *testing.T, sess engine.Session, name string) engine.Record {
	t.Helper()
	rec, err := s.create(sess, s.subject.input(name))
	if err != nil {
		t.Fatalf("Create %s %q: %v", s.subject.reg.Name, name, err)
	}
	if rec == nil {
		t.Fatalf("Create %s: the receipt was not rendered", s.subject.reg.Name)
	}
	return rec
}

// keyOf is a record's key.
func (s *suite) keyOf(t *testing.T, rec engine.Record) string {
	t.Helper()
	return keyIn(t, rec, s.subject.key)
}

func keyIn(t *testing.T, rec engine.Record, field string) string {
	t.Helper()
	key := rec.Text(field)
	if key == nil || *key == "" {
		t.Fatalf("the record has no key %s: %v", field, rec)
	}
	return *key
}

// named is the condition that selects subject records whose name contains text.
func (s *suite) named(text string) engine.Condition {
	return engine.Condition{Field: s.subject.name, Op: engine.OpContains, Values: []any{text}}
}

// walk lists every record of a register that matches where, by cursor,
// limit records per page.
func (s *suite) walk(t *testing.T, sess engine.Session, register string, limit int, where ...engine.Condition) []engine.Record {
	t.Helper()
	var all []engine.Record
	q := engine.Query{Limit: limit, Where: where}
	for pages := 0; ; pages++ {
		if pages > 1000 {
			t.Fatalf("List %s: more than 1000 pages; Next never ends", register)
		}
		page, err := s.Engine.List(context.Background(), sess, register, q)
		if err != nil {
			t.Fatalf("List %s: %v", register, err)
		}
		all = append(all, page.Records...)
		if page.Next == nil {
			return all
		}
		q.After, q.KnownTotal = page.Next, true
	}
}

// names is the name field of each record.
func (s *suite) names(recs []engine.Record) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		if v := r.Text(s.subject.name); v != nil {
			out[i] = *v
		}
	}
	return out
}

// reversed returns a reversed copy.
func reversed(xs []string) []string {
	out := slices.Clone(xs)
	slices.Reverse(out)
	return out
}

// cleared reports whether a text field reads as cleared: nil or "".
func cleared(v any) bool { return v == nil || v == "" }

// refusalDetail returns err's CommandError detail, failing the test when
// err is not a refusal.
func refusalDetail(t *testing.T, err error, doing string) string {
	t.Helper()
	var ce *engine.CommandError
	if !errors.As(err, &ce) {
		t.Fatalf("%s: want an *engine.CommandError (the engine refusing the call, 422), got %T: %v", doing, err, err)
	}
	if strings.TrimSpace(ce.Detail) == "" {
		t.Errorf("%s: the refusal has no Detail; the client reads it as the reason", doing)
	}
	return ce.Detail
}

// plainTextType: a field type read as text.
func plainTextType(t catalog.FieldType) bool { return t == catalog.Text || t == "" }
