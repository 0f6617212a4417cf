package reference_test

import (
	"context"
	"maps"
	"strings"
	"testing"

	"fieldapi/catalog/catalogtest"
	"fieldapi/engine"
	"fieldapi/engine/demo"
	"fieldapi/engine/reference"
)

// TestMigrateAndLoadDemoAreIdempotent: migrating and loading the demo data
// again adds nothing to any table.
func TestMigrateAndLoadDemoAreIdempotent(t *testing.T) {
	for _, b := range sqlBackends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			dsn := b.DSN(t)
			e := openDemo(t, dsn, builtin(t), reference.Options{})
			before := tableCounts(t, dsn)
			if len(before) < 20 {
				t.Fatalf("%d tables after the migration; want every register's and the engine's", len(before))
			}
			if err := e.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			if err := demo.Load(ctx, e); err != nil {
				t.Fatal(err)
			}
			if err := e.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			if after := tableCounts(t, dsn); !maps.Equal(after, before) {
				t.Errorf("rows per table after a second migration and load:\n%v\nwant as before:\n%v", after, before)
			}
		})
	}
}

// TestMigrateAddsMissingColumns opens a database made with an older
// catalog that lacked a field: Migrate adds the column and keeps the rows.
func TestMigrateAddsMissingColumns(t *testing.T) {
	for _, b := range sqlBackends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			dsn := b.DSN(t)
			older, err := catalogtest.BuiltinWith(func(files map[string]string) {
				const fax = "  - {name: Fax, writable: true}\n"
				if !strings.Contains(files["fieldsets/address.yaml"], fax) {
					t.Fatalf("fieldsets/address.yaml has no %q", fax)
				}
				files["fieldsets/address.yaml"] = strings.Replace(files["fieldsets/address.yaml"], fax, "", 1)
			})
			if err != nil {
				t.Fatal(err)
			}
			if err := openDemo(t, dsn, older, reference.Options{}).Close(); err != nil {
				t.Fatal(err)
			}
			if columns(t, dsn, "customers")["fax"] {
				t.Fatal("the older catalog's customers have a fax column")
			}

			full := openDemo(t, dsn, builtin(t), reference.Options{})
			if !columns(t, dsn, "customers")["fax"] {
				t.Error("Migrate did not add the fax column of customers")
			}
			var c capture
			if _, err := full.Update(ctx, demoAPI, "customers", "1001", engine.Input{Values: map[string]any{"Fax": "+46 8 123 45 00"}}, c.receipt()); err != nil {
				t.Fatal(err)
			}
			rec, err := full.Get(ctx, demoAPI, "customers", "1001")
			if err != nil {
				t.Fatal(err)
			}
			if rec["Fax"] != "+46 8 123 45 00" || rec["Name"] != "Bergström Fastigheter AB" {
				t.Errorf("customer 1001: Fax %v, Name %v; want the Fax written and the row as it was", rec["Fax"], rec["Name"])
			}
		})
	}
}

// TestMigrateBackfillsRecordCounts: a database from before the counts has
// none: Migrate fills them from the rows, and running it again keeps them.
func TestMigrateBackfillsRecordCounts(t *testing.T) {
	for _, b := range sqlBackends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			dsn := b.DSN(t)
			cat := builtin(t)
			e := openDemo(t, dsn, cat, reference.Options{})
			db := rawDB(t, dsn)
			for _, table := range []string{"record_counts", "record_count_deltas"} {
				if _, err := db.Exec(`DELETE FROM "` + table + `"`); err != nil {
					t.Fatal(err)
				}
			}
			db.Close()
			for range 2 {
				if err := e.Migrate(ctx); err != nil {
					t.Fatal(err)
				}
				countsExact(t, dsn, cat)
			}
			if n := count(t, dsn, "record_counts", ""); n <= 10 {
				t.Errorf("%d count rows after the backfill; want one per company and counted register with rows", n)
			}
			page, err := e.List(ctx, demoAPI, "customers", engine.Query{Limit: 1})
			if err != nil || page.Total == nil || *page.Total != 60 {
				t.Errorf("demo's customers after the backfill: Total %v, %v; want 60", page.Total, err)
			}
		})
	}
}
