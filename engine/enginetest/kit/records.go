package kit

import (
	"context"
	"testing"

	"fieldapi/catalog"
	"fieldapi/engine"
)

// CheckTypes checks every catalog field of a record holds nil or the
// value type the port names for its catalog type: the generated mappers
// read any other type as absent.
func CheckTypes(t *testing.T, what string, reg *catalog.Register, rec engine.Record) {
	t.Helper()
	for _, f := range reg.Fields {
		v := rec[f.Name]
		if v == nil {
			continue
		}
		var ok bool
		switch f.Type {
		case catalog.Number:
			_, ok = v.(float64)
		case catalog.Bool:
			_, ok = v.(bool)
		case catalog.List:
			_, ok = v.([]string)
		case catalog.Object:
			_, ok = v.(map[string]string)
		default: // text and date
			_, ok = v.(string)
		}
		if !ok {
			t.Errorf("%s: %s (%s) holds a %T; the port's types are string, float64, bool, []string and map[string]string", what, f.Name, f.Type, v)
		}
	}
}

// Get reads a record, failing the test on an error.
func (s *Suite) Get(t *testing.T, sess engine.Session, register, key string) engine.Record {
	t.Helper()
	rec, err := s.Engine.Get(context.Background(), sess, register, key)
	if err != nil {
		t.Fatalf("Get %s %s: %v", register, key, err)
	}
	return rec
}

// Values is an input of the field values given.
func Values(v map[string]any) engine.Input { return engine.Input{Values: v} }

// CreateIn creates a record of any register and returns it as the
// receipt rendered it.
func (s *Suite) CreateIn(sess engine.Session, register string, in engine.Input) (engine.Record, error) {
	var c Capture
	_, err := s.Engine.Create(context.Background(), sess, register, in, c.Receipt(NoClaim))
	return c.Rec, err
}

// MustCreateIn is CreateIn that fails the test on an error.
func (s *Suite) MustCreateIn(t *testing.T, sess engine.Session, register string, in engine.Input) engine.Record {
	t.Helper()
	rec, err := s.CreateIn(sess, register, in)
	if err != nil {
		t.Fatalf("Create %s %v: %v", register, in.Values, err)
	}
	return rec
}

// UpdateIn updates a record of any register and returns it as the
// receipt rendered it.
func (s *Suite) UpdateIn(sess engine.Session, register, key string, in engine.Input) (engine.Record, error) {
	var c Capture
	if in.Values == nil {
		in.Values = map[string]any{}
	}
	_, err := s.Engine.Update(context.Background(), sess, register, key, in, c.Receipt(NoClaim))
	return c.Rec, err
}

// MustUpdateIn is UpdateIn that fails the test on an error.
func (s *Suite) MustUpdateIn(t *testing.T, sess engine.Session, register, key string, in engine.Input) engine.Record {
	t.Helper()
	rec, err := s.UpdateIn(sess, register, key, in)
	if err != nil {
		t.Fatalf("Update %s %s %v: %v", register, key, in.Values, err)
	}
	return rec
}

// Total is the Total of a list of a counted register.
func (s *Suite) Total(t *testing.T, sess engine.Session, register string, where ...engine.Condition) int {
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

// Equals is the condition field = value.
func Equals(field string, value any) engine.Condition {
	return engine.Condition{Field: field, Op: engine.OpEquals, Values: []any{value}}
}

// Contains is the condition field contains text.
func Contains(field, text string) engine.Condition {
	return engine.Condition{Field: field, Op: engine.OpContains, Values: []any{text}}
}

// Text reads a text field of a record, "" when it has none.
func Text(rec engine.Record, field string) string {
	v, _ := rec[field].(string)
	return v
}

// FirstKey is the key of the newest record of a register in the session's company.
func (s *Suite) FirstKey(t *testing.T, sess engine.Session, register string) string {
	t.Helper()
	page, err := s.Engine.List(context.Background(), sess, register, engine.Query{Limit: 1})
	if err != nil || len(page.Records) == 0 {
		t.Fatalf("List %s: %v (%d records); the demo data has some", register, err, len(page.Records))
	}
	return KeyIn(t, page.Records[0], s.Catalog.Register(register).Key)
}
