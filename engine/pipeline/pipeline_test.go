package pipeline_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"fieldapi/catalog"
	"fieldapi/engine"
	"fieldapi/engine/dataset"
	"fieldapi/engine/enginetest"
	"fieldapi/engine/pipeline"
	"fieldapi/engine/pipeline/registers"
	"fieldapi/engine/platform"
	"fieldapi/engine/platform/memplatform"
	"fieldapi/engine/platform/sqlplatform"
	"fieldapi/engine/rules"
	"fieldapi/engine/sqldb"
	"fieldapi/engine/store"
	"fieldapi/engine/store/memstore"
	"fieldapi/engine/store/sqlstore"
)

// TestConformanceOtherCatalog runs the engine's conformance suite on a
// catalog of other shapes than the builtin one (an engine-assigned key,
// lines read with their owner, no equals filter), declared in YAML alone
// and with no rule module: the pipeline serves any catalog, over memory
// and SQLite.
func TestConformanceOtherCatalog(t *testing.T) {
	cat, err := catalog.LoadDir(filepath.Join("testdata", "catalog"))
	if err != nil {
		t.Fatal(err)
	}
	schema, err := registers.Schema(cat)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []struct {
		name string
		open func(t *testing.T, clock *enginetest.Clock) (store.Store, platform.Platform)
	}{
		{"memory", func(t *testing.T, clock *enginetest.Clock) (store.Store, platform.Platform) {
			st, err := memstore.New(schema)
			if err != nil {
				t.Fatal(err)
			}
			return st, memplatform.New(memplatform.Options{Now: clock.Now})
		}},
		{"sqlite", func(t *testing.T, clock *enginetest.Clock) (store.Store, platform.Platform) {
			ctx := context.Background()
			db, err := sqldb.Open(ctx, "sqlite:"+filepath.Join(t.TempDir(), "other.db"), sqldb.Options{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			st, err := sqlstore.New(db, schema)
			if err != nil {
				t.Fatal(err)
			}
			p := sqlplatform.New(db, sqlplatform.Options{Now: clock.Now})
			if err := st.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			if err := p.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			return st, p
		}},
	} {
		t.Run(b.name, func(t *testing.T) {
			enginetest.Run(t, func(t *testing.T) enginetest.Harness {
				clock := enginetest.NewClock()
				st, p := b.open(t, clock)
				noRules, err := rules.Bind(cat)
				if err != nil {
					t.Fatal(err)
				}
				e, err := pipeline.New(cat, noRules, st, p, pipeline.Options{Now: clock.Now})
				if err != nil {
					t.Fatal(err)
				}
				return harness(t, e, clock, cat)
			})
		})
	}
}

// harness imports the suite's two companies: API may do everything in
// each, READER only read in the first.
func harness(t *testing.T, e *pipeline.Engine, clock *enginetest.Clock, cat *catalog.Catalog) enginetest.Harness {
	company := engine.Session{Company: "other1", Sign: "API", ClientID: "enginetest"}
	other := engine.Session{Company: "other2", Sign: "API", ClientID: "enginetest"}
	reader := engine.Session{Company: "other1", Sign: "READER", ClientID: "enginetest"}
	var reads []string
	for _, r := range cat.Registers {
		reads = append(reads, r.ReadScope)
	}
	user := func(s engine.Session, permissions string) dataset.Record {
		return dataset.Record{Values: map[string]any{"Sign": s.Sign, "Status": "Active"}, Permissions: permissions}
	}
	for _, c := range []dataset.Company{
		{ID: company.Company, Name: "One", Batches: []dataset.Batch{{Name: "users", Registers: []dataset.Register{
			{Name: "users", Records: []dataset.Record{user(company, "*"), user(reader, strings.Join(reads, ","))}}}}}},
		{ID: other.Company, Name: "Two", Batches: []dataset.Batch{{Name: "users", Registers: []dataset.Register{
			{Name: "users", Records: []dataset.Record{user(other, "*")}}}}}},
	} {
		if err := e.Import(context.Background(), c); err != nil {
			t.Fatal(err)
		}
	}
	return enginetest.Harness{Engine: e, Clock: clock, Catalog: cat, Company: company, Other: other, ReadOnly: reader}
}
