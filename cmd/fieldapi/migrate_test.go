package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/matryer/is"

	"fieldapi/catalog"
	"fieldapi/catalog/catalogtest"
	"fieldapi/engine"
	"fieldapi/engine/reference"
)

// demoSession reads the demo company's records.
var demoSession = engine.Session{Company: "demo", Sign: "API", ClientID: "migrate_test"}

// Catalog evolution as an operator meets it: init, serve and migrate
// over a database made with the builtin catalog (and the demo data),
// started with an edited one, on SQLite and PostgreSQL.

// runCLIWith is runCLI over cat instead of the builtin catalog.
func runCLIWith(t *testing.T, cat *catalog.Catalog, args ...string) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	a := &app{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }, catalog: cat}
	code := a.run(t.Context(), args)
	return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// customersEdited is the builtin catalog with Custom1 of customers.yaml
// replaced by field (the demo customers hold 60 + 20 values of Custom1).
func customersEdited(t *testing.T, field string) *catalog.Catalog {
	t.Helper()
	cat, err := catalogtest.BuiltinWith(func(files map[string]string) {
		for _, edit := range [][2]string{{"{name: Custom1, writable: true}", field}, {`"Custom1": "Handel", `, ""}} {
			if !strings.Contains(files["customers.yaml"], edit[0]) {
				t.Fatalf("customers.yaml has no %q", edit[0])
			}
			files["customers.yaml"] = strings.Replace(files["customers.yaml"], edit[0], edit[1], 1)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

// cliBackends are a SQLite file and, with FIELDAPI_TEST_POSTGRES, a fresh
// PostgreSQL schema.
var cliBackends = []struct {
	name string
	dsn  func(t *testing.T) string
}{{"sqlite", newDSN}, {"postgres", postgresDSN}}

const refusal = `the database holds data that the catalog no longer declares; nothing was changed.

register customers, field Custom1 (column customers.custom1) is not in catalog/customers.yaml, but the database holds values of it in 80 records in total (by company: demo 60, demo2 20).
  To keep them under a new name, add renamedFrom: Custom1 to the field that takes them (Custm1, new in catalog/customers.yaml?).
  To remove them, add removedFields: [Custom1] to catalog/customers.yaml, which drops the column and its values.
`

func TestAMisspeltFieldStopsInitServeAndMigrate(t *testing.T) {
	for _, b := range cliBackends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			is := is.New(t)
			dsn := b.dsn(t)
			is.Equal(runCLI(t, nil, "init", "--db", dsn, "--demo").code, exitOK)
			misspelt := customersEdited(t, "{name: Custm1, writable: true}")
			hint := "\nEvery change the migration would make: fieldapi migrate --plan --db " + shellQuote(dsn) + "\n"

			for _, cmd := range [][]string{{"init"}, {"serve", "--addr", "127.0.0.1:0"}, {"migrate"}} {
				r := runCLIWith(t, misspelt, append(cmd, "--db", dsn)...)
				is.Equal(r.code, exitError)                              // refused
				is.Equal(r.stderr, "fieldapi "+cmd[0]+": "+refusal+hint) // naming the field, the file, the count and the ways forward
				is.Equal(r.stdout, "")
			}

			plan := runCLIWith(t, misspelt, "migrate", "--plan", "--db", dsn)
			is.Equal(plan.code, exitError)
			is.Equal(plan.stderr, "fieldapi migrate: "+refusal)
			is.Equal(plan.stdout, "plan for "+dsn+": refused, so init, serve and migrate change nothing (why: below).\n"+
				"Once that is settled, the migration makes these changes:\n"+
				"  add column customers.custm1: field Custm1 of catalog/customers.yaml\n"+
				"  add column suppliers.custm1: field Custm1 of catalog/suppliers.yaml\n"+
				"left as they are (no data in them):\n"+
				"  column suppliers.custom1: field Custom1 is not in catalog/suppliers.yaml; no record holds a value in it (removedFields: [Custom1] drops the column)\n")

			rec, err := openTestEngine(t, dsn).Get(t.Context(), demoSession, "customers", "1060")
			is.NoErr(err)
			is.Equal(rec["Custom1"], "Handel") // the data is intact
		})
	}
}

func TestARenameIsPlannedThenCarriedOverOnce(t *testing.T) {
	for _, b := range cliBackends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			is := is.New(t)
			dsn := b.dsn(t)
			is.Equal(runCLI(t, nil, "init", "--db", dsn, "--demo").code, exitOK)
			renamed := customersEdited(t, "{name: Custm1, writable: true, renamedFrom: Custom1}")
			changes := "  rename column customers.custom1 to custm1, carrying 80 values in total (by company: demo 60, demo2 20): field Custm1, renamedFrom: Custom1 in catalog/customers.yaml\n" +
				"  rename column suppliers.custom1 to custm1, carrying no values: field Custm1, renamedFrom: Custom1 in catalog/suppliers.yaml\n"

			plan := runCLIWith(t, renamed, "migrate", "--plan", "--db", dsn)
			is.Equal(plan.code, exitOK)
			is.Equal(plan.stdout, "plan for "+dsn+" (nothing is changed until fieldapi migrate, init or serve runs):\n"+changes)
			is.Equal(runCLIWith(t, renamed, "migrate", "--plan", "--db", dsn).stdout, plan.stdout) // the plan changed nothing

			srv := startServeWith(t, renamed, dsn)
			is.Equal(srv.stop(), exitOK)
			is.True(strings.Contains(srv.logs.String(), `msg="schema changed" change="rename column customers.custom1 to custm1, carrying 80 values`)) // serve logs what it changed

			rec, err := openEngineWith(t.Context(), renamed, dsn, reference.Options{}, existing)
			is.NoErr(err)
			defer rec.Close()
			got, err := rec.Get(t.Context(), demoSession, "customers", "1060")
			is.NoErr(err)
			is.Equal(got["Custm1"], "Handel") // carried over

			again := runCLIWith(t, renamed, "migrate", "--db", dsn)
			is.Equal(again.code, exitOK)
			is.Equal(again.stdout, "schema ready in "+dsn+"\n") // the marker is a no-op now
			is.Equal(runCLIWith(t, renamed, "migrate", "--plan", "--db", dsn).stdout, "plan for "+dsn+": the schema matches the catalog; the migration changes nothing.\n")
		})
	}
}

func TestARemovalIsExplicit(t *testing.T) {
	for _, b := range cliBackends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			is := is.New(t)
			dsn := b.dsn(t)
			is.Equal(runCLI(t, nil, "init", "--db", dsn, "--demo").code, exitOK)
			cat, err := catalogtest.BuiltinWith(func(files map[string]string) {
				files["customers.yaml"] = strings.Replace(strings.Replace(strings.Replace(files["customers.yaml"],
					"  - {name: Custom1, writable: true}\n", "", 1),
					`"Custom1": "Handel", `, "", 1),
					"fields:\n", "removedFields: [Custom1]\nfields:\n", 1)
			})
			is.NoErr(err)
			r := runCLIWith(t, cat, "init", "--db", dsn)
			is.Equal(r.code, exitOK)
			is.Equal(r.stdout, "schema ready in "+dsn+"\n"+
				"changes made:\n"+
				"  drop column customers.custom1 and its 80 values in total (by company: demo 60, demo2 20): removedFields: [Custom1] in catalog/customers.yaml\n"+
				"  drop column suppliers.custom1, which holds no values: removedFields: [Custom1] in catalog/suppliers.yaml\n")
		})
	}
}

func TestMigrateUsage(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	is.Equal(runCLI(t, nil, "migrate", "--plann").code, exitUsage)
	is.True(strings.Contains(runCLI(t, nil, "help").stdout, "fieldapi migrate --db DSN [--plan]"))
	missing := newDSN(t)
	r := runCLI(t, nil, "migrate", "--plan", "--db", missing)
	is.Equal(r.code, exitError)
	is.True(strings.Contains(r.stderr, "run \"fieldapi init --db "+missing+"\" first")) // a plan creates no database
	mem := runCLI(t, nil, "migrate", "--db", "memory:")
	is.Equal(mem.code, exitError)
	is.True(strings.Contains(mem.stderr, "lives inside one serve process")) // nothing is kept across starts
	dsn := newDSN(t)
	is.Equal(runCLI(t, nil, "init", "--db", dsn).code, exitOK)
	drop := runCLI(t, nil, "migrate", "--db", dsn, "--drop-register", "customers")
	is.Equal(drop.code, exitError)
	is.Equal(drop.stderr, "fieldapi migrate: migrate the schema: register customers is in the catalog (catalog/customers.yaml): only a register whose file is gone can be dropped\n")
}
