package reference_test

import (
	"context"
	"testing"

	"fieldapi/engine"
	"fieldapi/engine/dataset"
	"fieldapi/engine/geocode"
	"fieldapi/engine/reference"
)

// TestImportWaitsForARegister: a batch naming a register the catalog
// lacks is skipped and not marked imported, so it is imported once the
// engine opens the database with a catalog that has the register.
func TestImportWaitsForARegister(t *testing.T) {
	for _, b := range sqlBackends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			dsn := b.DSN(t)
			company := dataset.Company{ID: "imp", Name: "Imported", Batches: []dataset.Batch{
				{Name: "test.users", Registers: []dataset.Register{{Name: "users", Records: []dataset.Record{
					{Values: map[string]any{"Sign": "API", "Name": "API", "Status": "Active"}, Permissions: "*"}}}}},
				{Name: "test.machines", Registers: []dataset.Register{{Name: "machines", Records: []dataset.Record{
					{Values: map[string]any{"Label": "Pump 1"}}}}}},
			}}
			e := openEngine(t, dsn, builtin(t), reference.Options{})
			if err := e.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			if err := e.Import(ctx, company); err != nil {
				t.Fatalf("Import with a batch of a register the catalog lacks: %v; want it to wait", err)
			}
			e.Close()

			e = openEngine(t, dsn, machinesCatalog(t), reference.Options{})
			if err := e.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			if err := e.Import(ctx, company); err != nil {
				t.Fatal(err)
			}
			imp := engine.Session{Company: "imp", Sign: "API", ClientID: "reference_test"}
			page, err := e.List(ctx, imp, "machines", engine.Query{Limit: 5})
			if err != nil || len(page.Records) != 1 || page.Records[0]["Label"] != "Pump 1" {
				t.Errorf("machines once the catalog has them: %v, %v; want the machine the waiting batch holds", page.Records, err)
			}
		})
	}
}

// TestGeocoderNone: an engine that does not geocode leaves records
// Pending and stores nothing, so a later geocoder still runs.
func TestGeocoderNone(t *testing.T) {
	for _, b := range backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			dsn := b.DSN(t)
			e := openDemo(t, dsn, builtin(t), reference.Options{Geocoder: geocode.None{}})
			const address = "Storgatan 1, 111 22 Stockholm, Sverige"
			for _, opt := range []engine.Locate{{Locate: true, Force: true}, {}} {
				loc, err := e.Location(ctx, demoAPI, "customers", "1001", opt)
				if err != nil || loc.Status != "Pending" || loc.Latitude != nil || loc.Address != address {
					t.Errorf("Location %+v without a geocoder: %+v, %v; want Pending, no position, Address %q", opt, loc, err, address)
				}
			}
			events, err := e.Events(ctx, demoAPI, engine.EventQuery{Limit: 10})
			if err != nil || len(events.Events) != 0 {
				t.Errorf("events after locating without a geocoder: %d, %v; want none: nothing was stored", len(events.Events), err)
			}
			if dsn == reference.MemoryDSN {
				return
			}
			if n := count(t, dsn, "locations", `"company" = 'demo' AND "register" = 'customers'`); n != 0 {
				t.Errorf("%d positions of demo's customers stored; want none", n)
			}
			later := openEngine(t, dsn, builtin(t), reference.Options{})
			if loc, err := later.Location(ctx, demoAPI, "customers", "1001", engine.Locate{Locate: true}); err != nil || loc.Status != "Found" {
				t.Errorf("Location with the gazetteer afterwards: %+v, %v; want Found: a later geocoder still runs", loc, err)
			}
		})
	}
}
