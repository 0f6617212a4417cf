package kit

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"fieldapi/catalog"
	"fieldapi/engine"
	"fieldapi/engine/dataset"
	"fieldapi/engine/demo"
)

// Sessions of the demo companies' API signature, which may do everything.
var (
	DemoAPI  = engine.Session{Company: "demo", Sign: "API", ClientID: "enginetest"}
	Demo2API = engine.Session{Company: "demo2", Sign: "API", ClientID: "enginetest"}
)

// DemoAs is a session of another signature of the demo company.
func DemoAs(sign string) engine.Session {
	return engine.Session{Company: "demo", Sign: sign, ClientID: "enginetest"}
}

// Importer is the engine's import path, which loads the demo companies.
type Importer interface {
	Import(ctx context.Context, c dataset.Company) error
}

// Demo skips the test unless the catalog has what it needs, then loads
// the demo companies. A need is a register ("customers"), a field of one
// ("customers.Name") or a line list of one ("customers/contacts").
func (s *Suite) Demo(t *testing.T, needs ...string) Importer {
	t.Helper()
	s.needs(t, needs...)
	s.holdsDemo(t)
	im, ok := s.Engine.(Importer)
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
func (s *Suite) needs(t *testing.T, needs ...string) {
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
func (s *Suite) holdsDemo(t *testing.T) {
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
