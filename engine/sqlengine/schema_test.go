package sqlengine

import (
	"context"
	"io/fs"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/matryer/is"

	"fieldapi/catalog"
	"fieldapi/engine/demo"
)

// tableCounts counts the rows of every table, engine and register alike.
func tableCounts(t *testing.T, e testEngine) map[string]int {
	counts := map[string]int{}
	for _, it := range internalTables {
		counts[it.name] = count(t, e, it.name, "")
	}
	for name := range e.tables {
		counts[name] = count(t, e, name, "")
	}
	return counts
}

func TestMigrateAndLoadDemoAreIdempotent(t *testing.T) {
	eachSharedEngine(t, func(t *testing.T, e testEngine) {
		is := is.New(t)
		ctx := context.Background()
		before := tableCounts(t, e)
		is.NoErr(e.Migrate(ctx))
		is.NoErr(demo.Load(ctx, e))
		is.NoErr(e.Migrate(ctx))
		is.Equal(tableCounts(t, e), before) // a second run adds nothing
	})
}

// TestDemoContent checks the demo data holds what the issue asks of it.
func TestDemoContent(t *testing.T) {
	eachSharedEngine(t, func(t *testing.T, e testEngine) {
		is := is.New(t)
		for _, company := range []string{"demo", "demo2"} {
			at := func(table, where string, args ...any) int {
				cond := `"company" = ?`
				if where != "" {
					cond += " AND " + where
				}
				return count(t, e, table, cond, append([]any{company}, args...)...)
			}
			is.Equal(at("users", `"sign" = 'API' AND "status" = 'Active' AND "permissions" = '*'`), 1)
			is.True(at("users", `"sign" <> 'API'`) >= 2)
			is.True(at("users", `"status" = 'Passive'`) >= 1)
			is.True(at("users", `"permissions" <> '*'`) >= 1) // a user with limited permissions
			is.True(at("timetypes", "") >= 4)
			is.True(at("timetypes", `"booking_type" = ?`, true) >= 1)
			is.True(at("timetypes", `"booking_type" = ?`, false) >= 1)
			is.True(at("timetypes", `"name" LIKE '%,%/%'`) >= 1)
			is.True(at("pricelists", "") >= 2)
			is.True(at("pricelists", `"has_markup_pct" = ?`, true) >= 1)
			is.True(at("products", "") >= 25)
			is.True(at("resources", "") >= 3)
			is.True(at("suppliers", "") >= 5)
			is.True(at("suppliercontacts", "") >= 5)
			is.True(at("projects", "") >= 3)
			is.True(at("contracts", "") >= 3)
			for level, parent := range []string{"", "objects1", "objects2", "objects3"} {
				table := "objects" + string(rune('1'+level))
				is.True(at(table, "") >= 1)
				if parent != "" { // every object below level 1 hangs off an existing parent
					is.Equal(at(table, `"parent_nr" NOT IN (SELECT "nr" FROM `+quote(parent)+` WHERE "company" = ?)`, company), 0)
				}
			}
			customers := at("customers", "")
			is.True(customers >= 20)
			is.Equal(at("contacts", ""), customers)  // each customer has a contact
			is.Equal(at("addresses", ""), customers) // and an address
			is.True(at("extra_field_defs", `"register" = 'tasks'`) >= 3)
			is.True(at("field_names", `"db_field_name" = 'CustomerCustom1'`) == 1)
			is.True(at("field_names", `"db_field_name" = 'TaskCustomT1'`) == 1)
		}
		is.True(count(t, e, "customers", `"company" = 'demo'`) >= 60)
		for _, typ := range []string{"Combo", "Date", "Sql"} {
			is.True(count(t, e, "extra_field_defs", `"company" = 'demo' AND "register" = 'customers' AND "type" = ?`, typ) >= 1)
		}
		is.True(count(t, e, "extra_field_defs", `"company" = 'demo' AND "read_only" = ?`, true) >= 1)
		is.True(count(t, e, "extra_field_defs", `"company" = 'demo' AND "key" LIKE '%.%'`) >= 1)
		is.True(count(t, e, "extra_field_defs", `"company" = 'demo' AND "key" LIKE '%\_%' ESCAPE '\'`) >= 1)
		is.Equal(count(t, e, "change_log", ""), 0) // demo data is not logged as API changes
	})
}

// TestMigrateAddsMissingColumns opens a database made with an older
// catalog that lacked a field: Migrate adds the column and keeps the rows.
func TestMigrateAddsMissingColumns(t *testing.T) {
	for _, b := range testBackends(t) {
		t.Run(b.name, func(t *testing.T) {
			is := is.New(t)
			ctx := context.Background()
			dsn := b.dsn(t)

			older := catalogEdited(t, "fieldsets/address.yaml", "  - {name: Fax, writable: true}\n", "") // customers' Fax
			e, err := Open(ctx, dsn, older, Options{})
			is.NoErr(err)
			is.NoErr(e.Migrate(ctx))
			is.NoErr(demo.Load(ctx, e))
			is.NoErr(e.Close())

			full := openTestEngine(t, dsn, Options{})
			var cols []string
			is.NoErr(sel(ctx, full.db, &cols, full.dialect.columnsQuery(), "customers"))
			is.True(strings.Contains(strings.Join(cols, ","), "fax"))
			_, err = full.Update(ctx, demoAPI, "customers", "1001", input(map[string]any{"Fax": "+46 8 123 45 00"}), asJSON(zeroClaim))
			is.NoErr(err)
			rec, err := full.Get(ctx, demoAPI, "customers", "1001")
			is.NoErr(err)
			is.Equal(rec["Fax"], "+46 8 123 45 00")
		})
	}
}

// catalogEdited loads the built-in catalog with text replaced in one file.
func catalogEdited(t *testing.T, file, old, new string) *catalog.Catalog {
	t.Helper()
	files := fstest.MapFS{}
	dir := os.DirFS("../../catalog")
	names, err := fs.Glob(dir, catalog.RegisterFiles)
	if err != nil {
		t.Fatal(err)
	}
	sets, err := fs.Glob(dir, catalog.FieldSetFiles)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range append(names, sets...) {
		data, err := fs.ReadFile(dir, name)
		if err != nil {
			t.Fatal(err)
		}
		if name == file {
			if !strings.Contains(string(data), old) {
				t.Fatalf("%s has no %q", file, old)
			}
			data = []byte(strings.Replace(string(data), old, new, 1))
		}
		files[name] = &fstest.MapFile{Data: data}
	}
	cat, err := catalog.LoadFS(files)
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

func TestOpenRefusesBadDSN(t *testing.T) {
	cat, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for _, dsn := range []string{"mysql://x", "fieldapi.db", "sqlite:", "sqlite::memory:", "sqlite:/no/such/dir/x.db", "postgres://bad host:x/"} {
		t.Run(dsn, func(t *testing.T) {
			_, err := Open(context.Background(), dsn, cat, Options{})
			if err == nil {
				t.Fatalf("Open(%q) succeeded", dsn)
			}
			t.Log(err)
		})
	}
}
