package pipeline_test

import (
	"context"
	"testing"

	"fieldapi/catalog"
	"fieldapi/engine"
	"fieldapi/engine/demo"
	"fieldapi/engine/enginetest"
	"fieldapi/engine/pipeline"
	"fieldapi/engine/pipeline/registers"
	"fieldapi/engine/platform/memplatform"
	"fieldapi/engine/rules"
	"fieldapi/engine/store"
	"fieldapi/engine/store/memstore"
)

// countingStore is a store whose reads outside a transaction are counted
// by call: a SelectEach is one call, as it is one round trip on
// PostgreSQL.
type countingStore struct {
	store.Store
	calls int
}

func (s *countingStore) Select(ctx context.Context, q store.Select) ([]store.Row, error) {
	s.calls++
	return s.Store.Select(ctx, q)
}

func (s *countingStore) SelectEach(ctx context.Context, qs []store.Select) ([][]store.Row, error) {
	s.calls++
	return store.SelectEach(ctx, s.Store, qs)
}

// TestGetReadsTogether: a record read by its key, with its extra fields
// and line lists, is one call on the store (store.SelectEach: one round
// trip on PostgreSQL), its completing reads naming it by the key
// (store.InRowsOf) rather than by the Seq the first read finds. So is
// the read of a record that is not there.
func TestGetReadsTogether(t *testing.T) {
	ctx := context.Background()
	cat, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	schema, err := registers.Schema(cat)
	if err != nil {
		t.Fatal(err)
	}
	mem, err := memstore.New(schema)
	if err != nil {
		t.Fatal(err)
	}
	st := &countingStore{Store: mem}
	ruleSet, err := rules.Bind(cat, rules.Builtin()...)
	if err != nil {
		t.Fatal(err)
	}
	clock := enginetest.NewClock()
	e, err := pipeline.New(cat, ruleSet, st, memplatform.New(memplatform.Options{Now: clock.Now}), pipeline.Options{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	if err := demo.Load(ctx, e); err != nil {
		t.Fatal(err)
	}
	s := engine.Session{Company: "demo", Sign: "API", ClientID: "reads"}
	for _, c := range []struct {
		name string
		get  func() (engine.Record, error)
	}{
		{"a task with lines and extra fields", func() (engine.Record, error) { return e.Get(ctx, s, "tasks", "10001") }},
		{"a task that is not there", func() (engine.Record, error) { return e.Get(ctx, s, "tasks", "99999999") }},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.get() // warms the caches: the signature's permissions, the extra field definitions
			before := st.calls
			rec, err := c.get()
			if n := st.calls - before; n != 1 {
				t.Errorf("%d calls on the store (%v, %v); want 1", n, rec != nil, err)
			}
		})
	}
	rec, err := e.Get(ctx, s, "tasks", "10001")
	if err != nil {
		t.Fatal(err)
	}
	if materials, _ := rec["Materials"].([]engine.Record); len(materials) == 0 || rec["ExtraFields"] == nil {
		t.Errorf("task 10001 as read together: %d materials, ExtraFields %v; want its lines and extra fields", len(materials), rec["ExtraFields"])
	}
}
