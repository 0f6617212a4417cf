package kit

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

// Subject is the register the suite seeds, and the fields it uses, all
// read from the catalog.
type Subject struct {
	Reg       *catalog.Register
	Key       string       // the key field
	Name      string       // writable text field with a contains filter: the suite's names
	Equals    string       // writable text field with an equals filter; "" when none
	Spare     []string     // other plain writable text fields, for updates
	ChosenKey bool         // the client may give the key on create
	Line      *LineSubject // a line list the suite can fill; nil when none
}

// LineSubject is a line list of the subject.
type LineSubject struct {
	List     *catalog.Line
	Reg      *catalog.Register
	Name     string // text field the suite fills on each line
	Required bool   // name is required: a line without it is refused
}

// pickSubject finds the subject register: the one named, or the first of
// the catalog that suits, preferring one with a line list.
func pickSubject(cat *catalog.Catalog, name string) (*Subject, error) {
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
	var first *Subject
	for _, r := range cat.Registers {
		sub, _ := subjectOf(cat, r)
		if sub != nil && sub.Line != nil {
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
func subjectOf(cat *catalog.Catalog, r *catalog.Register) (*Subject, string) {
	if !r.Has(catalog.Create) || !r.Has(catalog.Update) {
		return nil, "it needs methods create and update"
	}
	if len(r.RequireOneOf) > 0 {
		return nil, "its requireOneOf fields are references"
	}
	key := r.KeyField()
	sub := &Subject{Reg: r, Key: key.Name, ChosenKey: key.Writable || key.CreateOnly}
	if sub.ChosenKey && !r.NumberSeries {
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
		case flt.Match == catalog.Contains && sub.Name == "":
			sub.Name = f.Name
		case (flt.Match == catalog.Equals || flt.Match == "") && sub.Equals == "" && !f.Required:
			sub.Equals = f.Name
		}
	}
	if sub.Name == "" {
		return nil, "it has no writable text field with a contains filter"
	}
	if sub.Equals == sub.Name {
		sub.Equals = ""
	}
	for _, f := range r.Fields {
		if plainText(f) && !f.Required && f.Name != key.Name && f.Name != sub.Name && f.Name != sub.Equals && len(sub.Spare) < 2 {
			sub.Spare = append(sub.Spare, f.Name)
		}
	}
	for _, l := range r.Lines {
		if ls := lineSubjectOf(cat, l); ls != nil {
			sub.Line = ls
			break
		}
	}
	return sub, ""
}

// lineSubjectOf returns the line list l as the suite fills it, or nil.
func lineSubjectOf(cat *catalog.Catalog, l *catalog.Line) *LineSubject {
	lr := cat.Register(l.Register)
	if lr == nil || !(lr.EngineKeyed() || lr.NumberSeries) {
		return nil
	}
	ls := &LineSubject{List: l, Reg: lr}
	for _, f := range lr.Fields {
		if _, fixed := l.Set[f.Name]; fixed || f.Name == l.Parent || f.Name == lr.Key {
			continue
		}
		switch {
		case f.Required && !plainText(f):
			return nil
		case f.Required && !ls.Required:
			ls.Name, ls.Required = f.Name, true
		case plainText(f) && ls.Name == "":
			ls.Name = f.Name
		}
	}
	if ls.Name == "" {
		return nil
	}
	return ls
}

// plainText: a text field the client writes freely, with no reference or lookup.
func plainText(f *catalog.Field) bool {
	return f != nil && PlainTextType(f.Type) && f.Writable && !f.CreateOnly && f.References == "" && f.Lookup == ""
}

// Input is a create of the subject named name: name goes into the name
// field and every other required field.
func (sub *Subject) Input(name string) engine.Input {
	in := engine.NewInput()
	in.Values[sub.Name] = name
	for _, f := range sub.Reg.Fields {
		if f.Required {
			in.Values[f.Name] = name
		}
	}
	return in
}

// lineInput is one line of the subject's line list named name.
func (ls *LineSubject) Input(name string) engine.Input {
	in := engine.NewInput()
	in.Values[ls.Name] = name
	for _, f := range ls.Reg.Fields {
		if _, fixed := ls.List.Set[f.Name]; f.Required && !fixed && f.Name != ls.List.Parent {
			in.Values[f.Name] = name
		}
	}
	return in
}

// unique counts the names UniqueName makes.
var unique atomic.Int64

// UniqueName makes a name (or key) that no other subtest uses.
func UniqueName(prefix string) string {
	return fmt.Sprintf("%s %d", prefix, unique.Add(1))
}

// Capture is a receipt that renders the record as JSON and keeps it.
type Capture struct {
	Rec    engine.Record
	Called int
}

// Receipt is a receipt under claim that renders into c.
func (c *Capture) Receipt(claim engine.Claim) engine.Receipt {
	return engine.Receipt{Claim: claim, Render: func(rec engine.Record) (engine.Response, error) {
		c.Rec, c.Called = rec, c.Called+1
		body, err := json.Marshal(rec)
		return engine.Response{Status: 201, Body: body}, err
	}}
}

// NoClaim: a write without an Idempotency-Key hold.
var NoClaim engine.Claim

// Create creates a subject record and returns it as the receipt saw it.
func (s *Suite) Create(sess engine.Session, in engine.Input) (engine.Record, error) {
	var c Capture
	_, err := s.Engine.Create(context.Background(), sess, s.Subject.Reg.Name, in, c.Receipt(NoClaim))
	return c.Rec, err
}

// MustCreate creates a subject record named name in the session's company.
func (s *Suite) MustCreate(t *testing.T, sess engine.Session, name string) engine.Record {
	t.Helper()
	rec, err := s.Create(sess, s.Subject.Input(name))
	if err != nil {
		t.Fatalf("Create %s %q: %v", s.Subject.Reg.Name, name, err)
	}
	if rec == nil {
		t.Fatalf("Create %s: the receipt was not rendered", s.Subject.Reg.Name)
	}
	return rec
}

// KeyOf is a record's key.
func (s *Suite) KeyOf(t *testing.T, rec engine.Record) string {
	t.Helper()
	return KeyIn(t, rec, s.Subject.Key)
}

// KeyIn is the value of a record's key field, failing the test when it has none.
func KeyIn(t *testing.T, rec engine.Record, field string) string {
	t.Helper()
	key := rec.Text(field)
	if key == nil || *key == "" {
		t.Fatalf("the record has no key %s: %v", field, rec)
	}
	return *key
}

// Named is the condition that selects subject records whose name contains text.
func (s *Suite) Named(text string) engine.Condition {
	return engine.Condition{Field: s.Subject.Name, Op: engine.OpContains, Values: []any{text}}
}

// Walk lists every record of a register that matches where, by cursor,
// limit records per page.
func (s *Suite) Walk(t *testing.T, sess engine.Session, register string, limit int, where ...engine.Condition) []engine.Record {
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

// Names is the name field of each record.
func (s *Suite) Names(recs []engine.Record) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		if v := r.Text(s.Subject.Name); v != nil {
			out[i] = *v
		}
	}
	return out
}

// Reversed returns a reversed copy.
func Reversed(xs []string) []string {
	out := slices.Clone(xs)
	slices.Reverse(out)
	return out
}

// Cleared reports whether a text field reads as cleared: nil or "".
func Cleared(v any) bool { return v == nil || v == "" }

// RefusalDetail returns err's CommandError detail, failing the test when
// err is not a refusal.
func RefusalDetail(t *testing.T, err error, doing string) string {
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

// PlainTextType: a field type read as text.
func PlainTextType(t catalog.FieldType) bool { return t == catalog.Text || t == "" }
