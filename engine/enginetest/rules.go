package enginetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"fieldapi/catalog"
	"fieldapi/engine"
	"fieldapi/engine/dataset"
	"fieldapi/engine/demo"
)

// The rules group runs the reference engine's business rules and catalog
// semantics on the demo companies (package engine/demo): number series,
// references and lookups, required fields, lines all or nothing, updates,
// extra fields, the signature's permissions, company isolation, lists,
// orders, the company calendar, locations, imports and record counts. It
// asserts what the demo data holds and the engine's own refusal texts, so
// it fits an engine that serves the builtin catalog's registers with the
// reference engine's rules (engine/rules): each test names the registers
// and fields it needs and skips, saying which, when the catalog lacks
// them. The demo companies are loaded through the engine's import path,
// Import(ctx, dataset.Company); an engine without one skips the group.
// Everything else goes through the port (engine.Engine and its
// capabilities): the same tests run on every storage.
var ruleTests = []test{
	{"number series", testNumberSeries},
	{"number series under concurrency", testNumberSeriesConcurrency},
	{"references and lookups", testReferencesAndLookups},
	{"required and requireOneOf", testRequired},
	{"lines are all or nothing", testDemoLinesAllOrNothing},
	{"refused order and quote lines leave nothing", testRefusedLinesLeaveNothing},
	{"line writes and their owners on the feed", testLineWritesOnTheFeed},
	{"update changes only the fields sent", testDemoUpdate},
	{"extra fields are checked on write", testExtraFieldWrites},
	{"extra fields on read", testExtraFieldsOnRead},
	{"extra field definitions and field names", testExtraFieldDefs},
	{"signature permissions", testSignaturePermissions},
	{"company isolation", testDemoIsolation},
	{"cursor walk", testDemoCursorWalk},
	{"page paging", testDemoPagePaging},
	{"filters", testDemoFilters},
	{"lines in the read shape", testLinesInReadShape},
	{"fields and expansions", testShapedReads},
	{"orders and their lines", testOrders},
	{"company calendar settings", testCalendarSettings},
	{"locations", testDemoLocations},
	{"import", testImport},
	{"record counts stay exact", testRecordCounts},
	{"demo data", testDemoContent},
	{"keys of demo signatures", testDemoKeys},
}

// Sessions of the demo companies' API signature, which may do everything.
var (
	demoAPI  = engine.Session{Company: "demo", Sign: "API", ClientID: "enginetest"}
	demo2API = engine.Session{Company: "demo2", Sign: "API", ClientID: "enginetest"}
)

// demoAs is a session of another signature of the demo company.
func demoAs(sign string) engine.Session {
	return engine.Session{Company: "demo", Sign: sign, ClientID: "enginetest"}
}

// importer is the engine's import path, which loads the demo companies.
type importer interface {
	Import(ctx context.Context, c dataset.Company) error
}

// demo skips the test unless the catalog has what it needs, then loads
// the demo companies. A need is a register ("customers"), a field of one
// ("customers.Name") or a line list of one ("customers/contacts").
func (s *suite) demo(t *testing.T, needs ...string) importer {
	t.Helper()
	s.needs(t, needs...)
	s.holdsDemo(t)
	im, ok := s.Engine.(importer)
	if !ok {
		t.Skip("the rules group needs the demo companies: the engine has no Import(ctx, dataset.Company) to load them with demo.Load")
	}
	if err := demo.Load(context.Background(), im); err != nil {
		t.Fatalf("demo.Load: %v", err)
	}
	return im
}

// needs skips the test unless the catalog has each register, field and
// line list named.
func (s *suite) needs(t *testing.T, needs ...string) {
	t.Helper()
	var missing []string
	for _, n := range needs {
		register, rest, _ := strings.Cut(n, ".")
		register, line, _ := strings.Cut(register, "/")
		r := s.Catalog.Register(register)
		switch {
		case r == nil:
			missing = append(missing, "register "+register)
		case rest != "" && r.Field(rest) == nil:
			missing = append(missing, "field "+n)
		case line != "" && !hasLine(r, line):
			missing = append(missing, "line list "+n)
		}
	}
	if len(missing) > 0 {
		t.Skipf("the catalog lacks what this rule test needs of the builtin catalog: %s", strings.Join(missing, ", "))
	}
}

// holdsDemo skips the test unless the catalog can hold the demo data,
// which is written for the builtin catalog: each of its registers that the
// builtin catalog declares too must have every builtin field, of the same
// type (registers it lacks are only left out of the load).
func (s *suite) holdsDemo(t *testing.T) {
	t.Helper()
	builtin, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	var missing []string
	for _, r := range s.Catalog.Registers {
		br := builtin.Register(r.Name)
		if br == nil {
			continue
		}
		for _, bf := range br.Fields {
			if f := r.Field(bf.Name); f == nil || fieldType(f) != fieldType(bf) {
				missing = append(missing, fmt.Sprintf("%s.%s (%s)", r.Name, bf.Name, fieldType(bf)))
			}
		}
	}
	if len(missing) > 0 {
		t.Skipf("the catalog cannot hold the demo data, written for the builtin catalog: it lacks %s", strings.Join(missing, ", "))
	}
}

// fieldType is a field's type, text when the catalog gives none.
func fieldType(f *catalog.Field) catalog.FieldType {
	if f.Type == "" {
		return catalog.Text
	}
	return f.Type
}

func hasLine(r *catalog.Register, name string) bool {
	for _, l := range r.Lines {
		if l.Name == name {
			return true
		}
	}
	return false
}

// values is an input of the field values given.
func values(v map[string]any) engine.Input { return engine.Input{Values: v} }

// createIn creates a record of any register and returns it as the
// receipt rendered it.
func (s *suite) createIn(sess engine.Session, register string, in engine.Input) (engine.Record, error) {
	var c capture
	_, err := s.Engine.Create(context.Background(), sess, register, in, c.receipt(noClaim))
	return c.rec, err
}

// mustCreateIn is createIn that fails the test on an error.
func (s *suite) mustCreateIn(t *testing.T, sess engine.Session, register string, in engine.Input) engine.Record {
	t.Helper()
	rec, err := s.createIn(sess, register, in)
	if err != nil {
		t.Fatalf("Create %s %v: %v", register, in.Values, err)
	}
	return rec
}

// updateIn updates a record of any register and returns it as the
// receipt rendered it.
func (s *suite) updateIn(sess engine.Session, register, key string, in engine.Input) (engine.Record, error) {
	var c capture
	if in.Values == nil {
		in.Values = map[string]any{}
	}
	_, err := s.Engine.Update(context.Background(), sess, register, key, in, c.receipt(noClaim))
	return c.rec, err
}

// mustUpdateIn is updateIn that fails the test on an error.
func (s *suite) mustUpdateIn(t *testing.T, sess engine.Session, register, key string, in engine.Input) engine.Record {
	t.Helper()
	rec, err := s.updateIn(sess, register, key, in)
	if err != nil {
		t.Fatalf("Update %s %s %v: %v", register, key, in.Values, err)
	}
	return rec
}

// refused returns err as the engine's refusal, failing the test when it
// is anything else.
func refused(t *testing.T, err error, doing string) *engine.CommandError {
	t.Helper()
	var ce *engine.CommandError
	if !errors.As(err, &ce) {
		t.Fatalf("%s: want an *engine.CommandError (a refusal), got %T: %v", doing, err, err)
	}
	return ce
}

// refusedWith checks err is a refusal with exactly the detail given.
func refusedWith(t *testing.T, err error, doing, detail string) *engine.CommandError {
	t.Helper()
	ce := refused(t, err, doing)
	if ce.Detail != detail {
		t.Errorf("%s: refused with %q; want %q", doing, ce.Detail, detail)
	}
	return ce
}

// total is the Total of a list of a counted register.
func (s *suite) total(t *testing.T, sess engine.Session, register string, where ...engine.Condition) int {
	t.Helper()
	page, err := s.Engine.List(context.Background(), sess, register, engine.Query{Limit: 1, Where: where})
	if err != nil {
		t.Fatalf("List %s: %v", register, err)
	}
	if page.Total == nil {
		t.Fatalf("List %s: no Total; the register is counted", register)
	}
	return *page.Total
}

// equals is the condition field = value.
func equals(field string, value any) engine.Condition {
	return engine.Condition{Field: field, Op: engine.OpEquals, Values: []any{value}}
}

// contains is the condition field contains text.
func contains(field, text string) engine.Condition {
	return engine.Condition{Field: field, Op: engine.OpContains, Values: []any{text}}
}

// text reads a text field of a record, "" when it has none.
func text(rec engine.Record, field string) string {
	v, _ := rec[field].(string)
	return v
}
