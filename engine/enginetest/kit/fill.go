package kit

import (
	"context"
	"slices"
	"testing"

	"fieldapi/catalog"
	"fieldapi/engine"
)

// Fill builds a create of register r that passes the catalog's checks:
// required fields (and one of requireOneOf) get a value of their type; a
// reference gets a record created for it the same way.
func (s *Suite) Fill(t *testing.T, r *catalog.Register, skip map[string]bool, depth int) engine.Input {
	t.Helper()
	if depth > 3 {
		t.Skipf("the suite cannot fill %s: its references nest too deep", r.Name)
	}
	in := engine.NewInput()
	oneOfDone := len(r.RequireOneOf) == 0
	for _, f := range r.Fields {
		needed := f.Required || (!oneOfDone && slices.Contains(r.RequireOneOf, f.Name))
		if !needed || skip[f.Name] {
			continue
		}
		if !f.Writable && !f.CreateOnly {
			t.Skipf("the suite cannot fill %s: required field %s is not writable", r.Name, f.Name)
		}
		in.Values[f.Name] = s.SampleValue(t, f, depth)
		oneOfDone = oneOfDone || slices.Contains(r.RequireOneOf, f.Name)
	}
	if key := r.KeyField(); (key.Writable || key.CreateOnly) && !r.NumberSeries {
		in.Values[key.Name] = UniqueName("key")
	}
	return in
}

// SampleValue is a value of f's type; for a reference, the key of a new
// record of the referenced register.
func (s *Suite) SampleValue(t *testing.T, f *catalog.Field, depth int) any {
	t.Helper()
	if f.References != "" {
		target := s.Catalog.Register(f.References)
		if target == nil || !target.Has(catalog.Create) {
			t.Skipf("the suite cannot fill %s: it references %s, which the API cannot create", f.Name, f.References)
		}
		rec := s.CreateFilled(t, target, nil, depth+1)
		key := KeyIn(t, rec, target.Key)
		if f.Type == catalog.List {
			return []string{key}
		}
		return key
	}
	switch f.Type {
	case catalog.Number:
		return 1.0
	case catalog.Bool:
		return true
	case catalog.Date:
		return "2026-01-05"
	case catalog.List:
		return []string{"enginetest"}
	case catalog.Object:
		return map[string]string{"enginetest": "x"}
	}
	return UniqueName("enginetest")
}

// CreateFilled creates a record of r built by Fill in Company's company.
func (s *Suite) CreateFilled(t *testing.T, r *catalog.Register, skip map[string]bool, depth int) engine.Record {
	t.Helper()
	var c Capture
	_, err := s.Engine.Create(context.Background(), s.Company, r.Name, s.Fill(t, r, skip, depth), c.Receipt(NoClaim))
	if IsRefusal(err) {
		t.Skipf("this engine refuses the %s record the suite builds from the catalog: %v", r.Name, err)
	}
	if err != nil {
		t.Fatalf("Create %s: %v", r.Name, err)
	}
	return c.Rec
}
