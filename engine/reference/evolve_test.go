package reference_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"fieldapi/catalog"
	"fieldapi/catalog/catalogtest"
	"fieldapi/engine/reference"
)

// Catalog evolution on SQLite and PostgreSQL: a database made with the
// builtin catalog (and the demo data) opened with an edited one.

// customersWith is the builtin catalog with catalog/customers.yaml edited:
// each pair replaces an exact text, which must be there.
func customersWith(t *testing.T, pairs ...string) *catalog.Catalog {
	t.Helper()
	cat, err := catalogtest.BuiltinWith(func(files map[string]string) {
		for i := 0; i < len(pairs); i += 2 {
			if !strings.Contains(files["customers.yaml"], pairs[i]) {
				t.Fatalf("customers.yaml has no %q", pairs[i])
			}
			files["customers.yaml"] = strings.Replace(files["customers.yaml"], pairs[i], pairs[i+1], 1)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

// ofCustomers are the lines about the customers' table: suppliers
// extend customers, so their table changes with it.
func ofCustomers(lines []string) []string {
	return slices.DeleteFunc(slices.Clone(lines), func(l string) bool { return !strings.Contains(l, " customers.") })
}

// Edits of catalog/customers.yaml. The demo customers hold 60 values of
// Custom1 (company demo) and 20 (demo2), and none of Custom4.
const (
	custom1        = "{name: Custom1, writable: true}"
	custom4        = "{name: Custom4, writable: true}"
	custom1Example = `"Custom1": "Handel", `
)

// migrate runs ApplyMigration on a new engine of cat over dsn.
func migrate(t *testing.T, dsn string, cat *catalog.Catalog, dropRegisters ...string) (*reference.Migration, error) {
	t.Helper()
	return openEngine(t, dsn, cat, reference.Options{}).ApplyMigration(context.Background(), dropRegisters...)
}

// demoDB is a database with the builtin catalog's schema and the demo data.
func demoDB(t *testing.T, dsn string) {
	t.Helper()
	if err := openDemo(t, dsn, builtin(t), reference.Options{}).Close(); err != nil {
		t.Fatal(err)
	}
}

func TestMisspeltFieldIsRefusedWithTheDataIntact(t *testing.T) {
	for _, b := range sqlBackends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			dsn := b.DSN(t)
			demoDB(t, dsn)
			before := schemaOf(t, dsn)
			misspelt := customersWith(t, custom1, "{name: Custm1, writable: true}", custom1Example, "")

			m, err := migrate(t, dsn, misspelt)
			if !reference.IsRefused(err) {
				t.Fatalf("migrating with Custom1 misspelt: %v; want it refused", err)
			}
			want := `the database holds data that the catalog no longer declares; nothing was changed.

register customers, field Custom1 (column customers.custom1) is not in catalog/customers.yaml, but the database holds values of it in 80 records in total (by company: demo 60, demo2 20).
  To keep them under a new name, add renamedFrom: Custom1 to the field that takes them (Custm1, new in catalog/customers.yaml?).
  To remove them, add removedFields: [Custom1] to catalog/customers.yaml, which drops the column and its values.`
			if err.Error() != want {
				t.Errorf("the refusal:\n%s\nwant:\n%s", err, want)
			}
			if len(m.Refusals) != 1 {
				t.Errorf("refusals %q; want the one", m.Refusals)
			}
			if after := schemaOf(t, dsn); !slices.Equal(after, before) {
				t.Errorf("the schema changed although the migration was refused:\n%s", diff(before, after))
			}
			if n := count(t, dsn, "customers", `"custom1" IS NOT NULL`); n != 80 {
				t.Errorf("%d customers hold a Custom1 after the refusal; want the 80 of the demo", n)
			}
			if err := openEngine(t, dsn, misspelt, reference.Options{}).Migrate(context.Background()); !reference.IsRefused(err) {
				t.Errorf("Migrate: %v; want it refused as ApplyMigration is", err)
			}
		})
	}
}

func TestEmptyLeftoverColumnIsOnlyNoted(t *testing.T) {
	for _, b := range sqlBackends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			dsn := b.DSN(t)
			demoDB(t, dsn)
			misspelt := customersWith(t, custom4, "{name: Custm4, writable: true}")
			for range 2 {
				m, err := migrate(t, dsn, misspelt)
				if err != nil {
					t.Fatal(err)
				}
				wantNote := "column customers.custom4: field Custom4 is not in catalog/customers.yaml; no record holds a value in it (removedFields: [Custom4] drops the column)"
				if !slices.Equal(ofCustomers(m.Notes), []string{wantNote}) || m.Refused() {
					t.Errorf("notes %q, refusals %q; want the note %q alone", m.Notes, m.Refusals, wantNote)
				}
			}
			if cols := columns(t, dsn, "customers"); !cols["custom4"] || !cols["custm4"] {
				t.Errorf("customers' columns %v; want custom4 left and custm4 added", cols)
			}
		})
	}
}

func TestRenameCarriesTheValues(t *testing.T) {
	for _, b := range sqlBackends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			dsn := b.DSN(t)
			demoDB(t, dsn)
			renamed := customersWith(t, custom1, "{name: Custm1, writable: true, renamedFrom: Custom1}", custom1Example, "")

			m, err := migrate(t, dsn, renamed)
			if err != nil {
				t.Fatal(err)
			}
			want := "rename column customers.custom1 to custm1, carrying 80 values in total (by company: demo 60, demo2 20): field Custm1, renamedFrom: Custom1 in catalog/customers.yaml"
			if !slices.Equal(ofCustomers(m.Changes), []string{want}) || len(m.Notes) > 0 {
				t.Errorf("changes %q, notes %q; want the rename alone", m.Changes, m.Notes)
			}
			if cols := columns(t, dsn, "customers"); cols["custom1"] || !cols["custm1"] {
				t.Errorf("customers' columns %v; want custom1 renamed to custm1", cols)
			}
			e := openEngine(t, dsn, renamed, reference.Options{})
			rec, err := e.Get(ctx, demoAPI, "customers", "1060")
			if err != nil || rec["Custm1"] != "Handel" {
				t.Errorf("customer 1060 after the rename: Custm1 %v, %v; want its Custom1, Handel", rec["Custm1"], err)
			}
			again, err := e.ApplyMigration(ctx)
			if err != nil || len(again.Changes)+len(again.Notes) > 0 {
				t.Errorf("the next start: changes %q, notes %q, %v; want nothing (the marker is harmless)", again.Changes, again.Notes, err)
			}
		})
	}
}

// TestRenameIntoAnEmptyColumnCopies: the new field was added (empty)
// before the rename was declared: the values are copied into it and the
// old column dropped. Into a column holding values, the rename is refused.
func TestRenameIntoAnExistingColumn(t *testing.T) {
	for _, b := range sqlBackends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			dsn := b.DSN(t)
			demoDB(t, dsn)
			both := customersWith(t, custom1, custom1+"\n  - {name: Custm1, writable: true}")
			if _, err := migrate(t, dsn, both); err != nil {
				t.Fatal(err)
			}
			renamed := customersWith(t, custom1, "{name: Custm1, writable: true, renamedFrom: Custom1}", custom1Example, "")

			// A value in the new column: carrying the old ones over would overwrite it.
			db := rawDB(t, dsn)
			if _, err := db.Exec(`UPDATE "customers" SET "custm1" = 'kept' WHERE "nr" = '1001' AND "company" = 'demo'`); err != nil {
				t.Fatal(err)
			}
			_, err := migrate(t, dsn, renamed)
			want := `the database holds data that the catalog no longer declares; nothing was changed.

register customers, field Custm1 renamedFrom: Custom1 (catalog/customers.yaml): both hold values, 1 record in total (by company: demo 1) in custm1 and 80 records in total (by company: demo 60, demo2 20) in custom1; carrying Custom1's over would overwrite Custm1's.
  To keep Custm1's and drop Custom1's, replace renamedFrom: Custom1 by removedFields: [Custom1].
  To carry Custom1's over, first empty column customers.custm1 (set it to NULL).`
			if err == nil || err.Error() != want {
				t.Errorf("the rename into a column holding a value: %v\nwant:\n%s", err, want)
			}

			if _, err := db.Exec(`UPDATE "customers" SET "custm1" = NULL`); err != nil {
				t.Fatal(err)
			}
			m, err := migrate(t, dsn, renamed)
			if err != nil {
				t.Fatal(err)
			}
			wantChange := "copy 80 values in total (by company: demo 60, demo2 20) of column customers.custom1 into the empty custm1, then drop custom1: field Custm1, renamedFrom: Custom1 in catalog/customers.yaml"
			if !slices.Equal(ofCustomers(m.Changes), []string{wantChange}) {
				t.Errorf("changes %q; want %q", m.Changes, wantChange)
			}
			if n := count(t, dsn, "customers", `"custm1" IS NOT NULL`); n != 80 || columns(t, dsn, "customers")["custom1"] {
				t.Errorf("%d customers hold Custm1, custom1 column left: %v; want the 80 copied and custom1 dropped", n, columns(t, dsn, "customers")["custom1"])
			}
			e := openEngine(t, dsn, renamed, reference.Options{})
			if rec, err := e.Get(ctx, demoAPI, "customers", "1060"); err != nil || rec["Custm1"] != "Handel" {
				t.Errorf("customer 1060: Custm1 %v, %v; want Handel", rec["Custm1"], err)
			}
		})
	}
}

func TestExplicitRemovalDrops(t *testing.T) {
	for _, b := range sqlBackends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			dsn := b.DSN(t)
			demoDB(t, dsn)
			removed := customersWith(t, "  - "+custom1+"\n", "", custom1Example, "", "fields:\n", "removedFields: [Custom1]\nfields:\n")
			m, err := migrate(t, dsn, removed)
			if err != nil {
				t.Fatal(err)
			}
			want := "drop column customers.custom1 and its 80 values in total (by company: demo 60, demo2 20): removedFields: [Custom1] in catalog/customers.yaml"
			if !slices.Equal(ofCustomers(m.Changes), []string{want}) {
				t.Errorf("changes %q; want %q", m.Changes, want)
			}
			if columns(t, dsn, "customers")["custom1"] {
				t.Error("customers still have the custom1 column")
			}
			again, err := migrate(t, dsn, removed)
			if err != nil || len(again.Changes)+len(again.Notes) > 0 {
				t.Errorf("the next start: changes %q, notes %q, %v; want nothing", again.Changes, again.Notes, err)
			}
		})
	}
}

// TestAddingAFieldNeedsNothing: a new field is a column added, reported.
func TestAddingAFieldNeedsNothing(t *testing.T) {
	for _, b := range sqlBackends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			dsn := b.DSN(t)
			demoDB(t, dsn)
			m, err := migrate(t, dsn, customersWith(t, custom4, custom4+"\n  - {name: Custom5, writable: true}"))
			want := "add column customers.custom5: field Custom5 of catalog/customers.yaml"
			if err != nil || !slices.Equal(ofCustomers(m.Changes), []string{want}) || len(m.Notes) > 0 {
				t.Errorf("adding Custom5: changes %q, notes %q, %v; want %q alone", m.Changes, m.Notes, err, want)
			}
		})
	}
}

// TestARemovedRegisterIsRefusedUntilDropped: a register whose file is gone
// but whose table holds records is refused; dropping it is asked for by
// name and removes its table and counts.
func TestARemovedRegisterIsRefusedUntilDropped(t *testing.T) {
	for _, b := range sqlBackends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			dsn := b.DSN(t)
			demoDB(t, dsn)
			withoutResources, err := catalogtest.BuiltinWith(func(files map[string]string) {
				delete(files, "resources.yaml")
				files["times.yaml"] = strings.Replace(files["times.yaml"], ", references: resources", "", 1)
			})
			if err != nil {
				t.Fatal(err)
			}
			resources := count(t, dsn, "resources", "")
			_, err = migrate(t, dsn, withoutResources)
			var refused *reference.RefusedError
			if !errors.As(err, &refused) || !strings.Contains(err.Error(), "\nregister resources (table resources) has no catalog/resources.yaml any more, but the table holds ") ||
				!strings.Contains(err.Error(), "  To remove them, run: fieldapi migrate --drop-register resources (with --db), which drops the table and its records.") {
				t.Fatalf("migrating without resources: %v; want it refused", err)
			}

			e := openEngine(t, dsn, withoutResources, reference.Options{})
			plan, err := e.PlanMigration(ctx, "resources")
			if err != nil || plan.Refused() || len(plan.Changes) != 1 || !strings.HasPrefix(plan.Changes[0], "drop table resources and its ") {
				t.Fatalf("the plan with resources dropped: %q, %v; want the drop alone", plan.Changes, err)
			}
			if _, err := e.ApplyMigration(ctx, "customers"); err == nil || err.Error() != "register customers is in the catalog (catalog/customers.yaml): only a register whose file is gone can be dropped" {
				t.Errorf("dropping customers: %v; want it refused", err)
			}
			m, err := e.ApplyMigration(ctx, "resources")
			if err != nil || !slices.Equal(m.Changes, plan.Changes) {
				t.Fatalf("dropping resources: %q, %v; want the plan's %q", m.Changes, err, plan.Changes)
			}
			if resources == 0 || tableCounts(t, dsn)["resources"] != 0 || count(t, dsn, "record_counts", `"register" = 'resources'`) != 0 {
				t.Errorf("after the drop: %d resources before; table left: %v; want it gone with its counts", resources, tableCounts(t, dsn))
			}
		})
	}
}

// TestPlanChangesNothing: the plan names what the migration then does,
// and leaves the schema as it was.
func TestPlanChangesNothing(t *testing.T) {
	for _, b := range sqlBackends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			dsn := b.DSN(t)
			demoDB(t, dsn)
			for _, c := range []struct {
				name string
				cat  *catalog.Catalog
			}{
				{"refused", customersWith(t, custom1, "{name: Custm1, writable: true}", custom1Example, "")},
				{"applied", customersWith(t,
					custom1, "{name: Custm1, writable: true, renamedFrom: Custom1}", custom1Example, "",
					"  - "+custom4+"\n", "", "fields:\n", "removedFields: [Custom4]\nfields:\n",
					"  - {name: Note, writable: true}\n", "  - {name: Note, writable: true}\n  - {name: Rating, type: number, writable: true}\n")},
			} {
				before := schemaOf(t, dsn)
				e := openEngine(t, dsn, c.cat, reference.Options{})
				plan, err := e.PlanMigration(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if after := schemaOf(t, dsn); !slices.Equal(after, before) {
					t.Errorf("%s: the plan changed the schema:\n%s", c.name, diff(before, after))
				}
				applied, err := e.ApplyMigration(ctx)
				if plan.Refused() != reference.IsRefused(err) || !slices.Equal(plan.Changes, applied.Changes) ||
					!slices.Equal(plan.Notes, applied.Notes) || !slices.Equal(plan.Refusals, applied.Refusals) {
					t.Errorf("%s: the plan %+v; the migration did %+v, %v", c.name, plan, applied, err)
				}
				if c.name == "applied" && len(ofCustomers(plan.Changes)) != 3 {
					t.Errorf("the plan's changes %q; want a rename, a drop and an addition", plan.Changes)
				}
			}
		})
	}
}

// TestMemoryHasNothingToCompare: the memory store keeps nothing across
// starts, so it has no drift.
func TestMemoryHasNothingToCompare(t *testing.T) {
	e := openEngine(t, reference.MemoryDSN, customersWith(t, custom1, "{name: Custm1, writable: true}", custom1Example, ""), reference.Options{})
	m, err := e.PlanMigration(context.Background())
	if err != nil || m.Refused() || len(m.Changes)+len(m.Notes) > 0 {
		t.Errorf("memory's plan: %+v, %v; want nothing", m, err)
	}
}

// schemaOf lists every table, column and index of the database, sorted.
func schemaOf(t *testing.T, dsn string) []string {
	t.Helper()
	query := `SELECT m.type || ' ' || m.name || ' ' || COALESCE(m.sql, ''), 0 FROM sqlite_master AS m
		UNION ALL SELECT 'column ' || m.name || '.' || c.name || ' ' || c.type, 0 FROM sqlite_master AS m, pragma_table_info(m.name) AS c WHERE m.type = 'table'`
	if isPostgres(dsn) {
		query = `SELECT 'index ' || indexname || ' ' || indexdef, 0 FROM pg_indexes WHERE schemaname = current_schema()
			UNION ALL SELECT 'column ' || c.relname || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod), 0
			FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
			WHERE n.nspname = current_schema() AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped`
	}
	var out []string
	for line := range queryInts(t, dsn, query) {
		out = append(out, line)
	}
	slices.Sort(out)
	if len(out) < 100 {
		t.Fatalf("the schema has %d tables, columns and indexes; want every register's", len(out))
	}
	return out
}

// diff lists what is in one schema and not the other.
func diff(before, after []string) string {
	var b strings.Builder
	for _, l := range before {
		if !slices.Contains(after, l) {
			b.WriteString("- " + l + "\n")
		}
	}
	for _, l := range after {
		if !slices.Contains(before, l) {
			b.WriteString("+ " + l + "\n")
		}
	}
	return b.String()
}
