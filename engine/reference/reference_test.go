package reference_test

import (
	"context"
	"strings"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // driver "pgx", for the test schemas

	"fieldapi/catalog"
	"fieldapi/engine"
	"fieldapi/engine/dataset"
	"fieldapi/engine/enginetest"
	"fieldapi/engine/reference"
	"fieldapi/internal/dbtest"
)

// TestConformance runs the engine's conformance suite on the reference
// engine over every storage: SQLite, PostgreSQL (with
// FIELDAPI_TEST_POSTGRES) and memory.
func TestConformance(t *testing.T) {
	for _, b := range backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			enginetest.Run(t, func(t *testing.T) enginetest.Harness { return harness(t, b.DSN(t)) })
		})
	}
}

// The suite's two companies; API may do everything, READER only read.
var (
	suiteCompany = engine.Session{Company: "suite1", Sign: "API", ClientID: "enginetest"}
	suiteOther   = engine.Session{Company: "suite2", Sign: "API", ClientID: "enginetest"}
	suiteReader  = engine.Session{Company: "suite1", Sign: "READER", ClientID: "enginetest"}
)

func harness(t *testing.T, dsn string) enginetest.Harness {
	t.Helper()
	cat, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	return harnessOf(t, dsn, cat)
}

// harnessOf opens a fresh engine of cat on dsn with the suite's two
// companies and their signatures (nothing else), on the suite's clock,
// with the faults the storage can suffer (faults).
func harnessOf(t *testing.T, dsn string, cat *catalog.Catalog) enginetest.Harness {
	t.Helper()
	ctx := context.Background()
	clock := enginetest.NewClock()
	e, err := reference.Open(ctx, dsn, cat, reference.Options{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	if err := e.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	var reads []string
	for _, r := range cat.Registers {
		reads = append(reads, r.ReadScope)
	}
	user := func(s engine.Session, permissions string) dataset.Record {
		return dataset.Record{Values: map[string]any{"Sign": s.Sign, "Name": s.Sign, "Status": "Active"}, Permissions: permissions}
	}
	company := func(session engine.Session, name string, users ...dataset.Record) dataset.Company {
		return dataset.Company{ID: session.Company, Name: name, Batches: []dataset.Batch{
			{Name: "enginetest users", Registers: []dataset.Register{{Name: "users", Records: users}}},
		}}
	}
	for _, c := range []dataset.Company{
		company(suiteCompany, "Suite One", user(suiteCompany, "*"), user(suiteReader, strings.Join(reads, ","))),
		company(suiteOther, "Suite Two", user(suiteOther, "*")),
	} {
		if err := e.Import(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	return enginetest.Harness{Engine: e, Clock: clock, Catalog: cat, Company: suiteCompany, Other: suiteOther, ReadOnly: suiteReader,
		Fault: faults(dsn, cat, clock), NumbersMayGap: strings.HasPrefix(dsn, "postgres")}
}

// backends are memory, SQLite and, with FIELDAPI_TEST_POSTGRES, PostgreSQL.
func backends(t *testing.T) []dbtest.Backend {
	memory := dbtest.Backend{Name: "memory", DSN: func(testing.TB) string { return reference.MemoryDSN }}
	return append([]dbtest.Backend{memory}, dbtest.SQL(t)...)
}
