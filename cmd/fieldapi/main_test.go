package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matryer/is"

	"fieldapi/catalog/catalogtest"
	"fieldapi/engine"
	"fieldapi/engine/dataset"
	"fieldapi/engine/reference"
)

// result is what one CLI invocation left behind.
type result struct {
	code           int
	stdout, stderr string
}

// runCLI runs the CLI in-process with the given environment (nothing else
// from the real environment leaks in).
func runCLI(t *testing.T, env map[string]string, args ...string) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	a := &app{stdout: &stdout, stderr: &stderr, getenv: func(k string) string { return env[k] }}
	code := a.run(t.Context(), args)
	return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// newDSN is a SQLite database in a fresh temp dir; the file does not exist yet.
func newDSN(t *testing.T) string {
	return "sqlite:" + filepath.Join(t.TempDir(), "fieldapi.db")
}

// demoDSN is an initialised database with the demo companies.
func demoDSN(t *testing.T) string {
	t.Helper()
	dsn := newDSN(t)
	if r := runCLI(t, nil, "init", "--db", dsn, "--demo"); r.code != 0 {
		t.Fatalf("init --demo: exit %d: %s", r.code, r.stderr)
	}
	return dsn
}

// openTestEngine opens the database the CLI wrote, to check what it stored.
func openTestEngine(t *testing.T, dsn string) *reference.Engine {
	t.Helper()
	eng, err := openEngine(t.Context(), dsn, reference.Options{}, existing)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	return eng
}

func countCustomers(t *testing.T, eng engine.Engine, company string) int {
	t.Helper()
	page, err := eng.List(t.Context(), engine.Session{Company: company, Sign: "API", ClientID: "test"}, "customers", engine.Query{Limit: 500})
	if err != nil {
		t.Fatal(err)
	}
	return len(page.Records)
}

func TestInitDemoTwiceIsIdempotent(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	dsn := newDSN(t)

	first := runCLI(t, nil, "init", "--db", dsn, "--demo")
	is.Equal(first.code, 0) // first init --demo
	is.True(strings.Contains(first.stdout, "demo"))
	eng := openTestEngine(t, dsn)
	before := countCustomers(t, eng, "demo")
	is.True(before >= 60) // the demo company has its customers

	second := runCLI(t, nil, "init", "--db", dsn, "--demo")
	is.Equal(second.code, 0)                         // second init --demo
	is.Equal(countCustomers(t, eng, "demo"), before) // nothing loaded twice
	is.True(countCustomers(t, eng, "demo2") > 0)     // demo2 is loaded too
}

func TestInitWithoutDemoCreatesAnEmptySchema(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	dsn := newDSN(t)
	r := runCLI(t, nil, "init", "--db", dsn)
	is.Equal(r.code, 0)
	keys, err := openTestEngine(t, dsn).Keys().ListKeys(t.Context(), "")
	is.NoErr(err)
	is.Equal(len(keys), 0)
}

func TestBadDSNIsAClearError(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	r := runCLI(t, nil, "init", "--db", "mysql://localhost/x")
	is.Equal(r.code, 1)
	is.True(strings.Contains(r.stderr, "sqlite:PATH")) // says what a DSN looks like
}

func TestCommandsOtherThanInitNeedAnExistingDatabase(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	dsn := newDSN(t)
	for _, args := range [][]string{
		{"serve", "--db", dsn, "--addr", "127.0.0.1:0"},
		{"keys", "list", "--db", dsn},
		{"keys", "create", "--db", dsn, "--company", "demo", "--sign", "API", "--scopes", "*"},
		{"keys", "revoke", "--db", dsn, "--client-id", "demo-x"},
	} {
		r := runCLI(t, nil, args...)
		is.Equal(r.code, 1)                                  // refused
		is.True(strings.Contains(r.stderr, "fieldapi init")) // says to run init
	}
	_, err := os.Stat(strings.TrimPrefix(dsn, "sqlite:"))
	is.True(os.IsNotExist(err)) // and created no empty database
}

func TestFlagsComeFromTheEnvironmentAndAFlagWins(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	dir := t.TempDir()
	fromEnv := filepath.Join(dir, "env.db")
	fromFlag := filepath.Join(dir, "flag.db")
	env := map[string]string{"FIELDAPI_DB": "sqlite:" + fromEnv}

	is.Equal(runCLI(t, env, "init").code, 0)
	_, err := os.Stat(fromEnv)
	is.NoErr(err) // FIELDAPI_DB was used

	is.NoErr(os.Remove(fromEnv))
	is.Equal(runCLI(t, env, "init", "--db", "sqlite:"+fromFlag).code, 0)
	_, err = os.Stat(fromFlag)
	is.NoErr(err) // --db was used
	_, err = os.Stat(fromEnv)
	is.True(os.IsNotExist(err)) // FIELDAPI_DB was not
}

func TestUsageErrors(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	for _, tc := range []struct {
		args []string
		code int
	}{
		{nil, 2},
		{[]string{"frobnicate"}, 2},
		{[]string{"keys"}, 2},
		{[]string{"keys", "rotate"}, 2},
		{[]string{"init", "--no-such-flag"}, 2},
		{[]string{"init", "stray"}, 1},
		{[]string{"help"}, 0},
		{[]string{"serve", "-h"}, 0},
	} {
		r := runCLI(t, nil, tc.args...)
		is.Equal(r.code, tc.code) // exit code of the args
	}
	is.True(strings.Contains(runCLI(t, nil, "help").stdout, "keys create"))
}

func TestDefaultDSN(t *testing.T) {
	is := is.New(t)
	t.Chdir(t.TempDir())
	is.Equal(runCLI(t, nil, "init").code, 0)
	_, err := os.Stat("fieldapi.db")
	is.NoErr(err) // sqlite:fieldapi.db in the working directory
}

func TestASQLiteDirectoryThatDoesNotExistIsNamed(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "no", "such")
	dsn := "sqlite:" + filepath.Join(missing, "fieldapi.db")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"init", "--db", dsn}, "cannot create the database " + filepath.Join(missing, "fieldapi.db") + ": the directory " + missing + " does not exist; create it first (mkdir -p " + missing + ")"},
		{[]string{"seed", "--db", dsn, "--tasks", "1"}, "the directory " + missing + " does not exist; create it first"},
		{[]string{"serve", "--db", dsn, "--addr", "127.0.0.1:0"}, "no database at " + filepath.Join(missing, "fieldapi.db") + ": the directory " + missing + " does not exist; check the path"},
		{[]string{"keys", "create", "--db", dsn, "--company", "demo", "--sign", "API", "--scopes", "*"}, "the directory " + missing + " does not exist"},
		{[]string{"keys", "list", "--db", dsn}, "the directory " + missing + " does not exist"},
		{[]string{"keys", "revoke", "--db", dsn, "--client-id", "demo-x"}, "the directory " + missing + " does not exist"},
	} {
		t.Run(tc.args[0]+" "+tc.args[1], func(t *testing.T) {
			is := is.New(t)
			r := runCLI(t, nil, tc.args...)
			is.Equal(r.code, exitError)
			is.True(strings.Contains(r.stderr, tc.want))               // names the directory
			is.True(!strings.Contains(r.stderr, "engine unreachable")) // not the driver's guess
		})
	}
}

func TestARelativeSQLiteDirectoryIsShownWhereItIs(t *testing.T) {
	is := is.New(t)
	dir := t.TempDir()
	t.Chdir(dir)
	r := runCLI(t, nil, "init", "--db", "sqlite:data/x.db")
	is.Equal(r.code, exitError)
	is.True(strings.Contains(r.stderr, "the directory data ("+filepath.Join(dir, "data")+") does not exist"))
}

func TestInitDemoSaysWhatItLoadedAndWhatItKept(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	dsn := newDSN(t)

	// A catalog without resources: the demo's resources batch waits for it.
	withoutResources, err := catalogtest.BuiltinWith(func(files map[string]string) {
		delete(files, "resources.yaml")
		files["times.yaml"] = strings.Replace(files["times.yaml"], ", references: resources", "", 1)
	})
	is.NoErr(err)
	var stdout, stderr bytes.Buffer
	a := &app{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }, catalog: withoutResources}
	is.Equal(a.run(t.Context(), []string{"init", "--db", dsn, "--demo"}), exitOK)
	is.Equal(stdout.String(), "schema ready in "+dsn+"\n"+
		"demo data loaded: companies demo (Nordisk Fastighetsservice AB) and demo2 (Fjordteknikk Service AS), user sign API in each\n"+
		"next: fieldapi keys create --db "+dsn+" --company demo --sign API --scopes '*'\n"+
		"then: fieldapi serve --db "+dsn+"\n")

	later := runCLI(t, nil, "init", "--db", dsn, "--demo") // the builtin catalog has resources
	is.Equal(later.code, exitOK)
	is.True(strings.Contains(later.stdout, "demo data updated (init --demo adds only what is missing and never undoes a change):\n"+
		"  demo: added demo.resources; kept the 17 batches loaded before\n"+
		"  demo2: added demo.resources; kept the 17 batches loaded before\n"))

	again := runCLI(t, nil, "init", "--db", dsn, "--demo")
	is.Equal(again.code, exitOK)
	is.True(strings.Contains(again.stdout, "demo data already loaded: kept companies demo (Nordisk Fastighetsservice AB) and demo2 (Fjordteknikk Service AS) as they are\n"+
		"  (init --demo adds only what is missing and never undoes a change; for fresh demo data, init a new database)\n"))
	is.True(!strings.Contains(again.stdout, "other"))
}

func TestInitDemoNamesTheOtherCompaniesItKept(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	dsn := newDSN(t)
	is.Equal(runCLI(t, nil, "init", "--db", dsn).code, exitOK)
	eng := openTestEngine(t, dsn)
	is.NoErr(eng.Import(t.Context(), dataset.Company{ID: "acme", Name: "Acme Service AB"}))

	r := runCLI(t, nil, "init", "--db", dsn, "--demo")
	is.Equal(r.code, exitOK)
	is.True(strings.Contains(r.stdout, "demo data loaded: companies demo"))
	is.True(strings.Contains(r.stdout, "kept the other company acme (Acme Service AB) as it is\n"))
}

func TestInitHintsTheNextStep(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	dsn := demoDSN(t)
	keyCreate := "next: fieldapi keys create --db " + dsn + " --company demo --sign API --scopes '*'\n"

	r := runCLI(t, nil, "init", "--db", dsn, "--demo")
	is.True(strings.Contains(r.stdout, keyCreate)) // no key yet: make one

	r = runCLI(t, nil, "init", "--db", dsn, "--demo", "--hints=false")
	is.True(!strings.Contains(r.stdout, "next:")) // make run makes the key itself
	is.True(!strings.Contains(r.stdout, "then:"))

	createKey(t, dsn, "--scopes", "*")
	r = runCLI(t, nil, "init", "--db", dsn, "--demo")
	is.True(!strings.Contains(r.stdout, "keys create"))
	is.True(strings.Contains(r.stdout, "next: fieldapi serve --db "+dsn+"   (company demo has keys: fieldapi keys list --db "+dsn+" --company demo)\n"))
}

func TestShellQuote(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	is.Equal(shellQuote("sqlite:/tmp/x.db"), "sqlite:/tmp/x.db")
	is.Equal(shellQuote("postgres://u@h:5432/db?sslmode=disable&x=1"), "'postgres://u@h:5432/db?sslmode=disable&x=1'")
	is.Equal(shellQuote("sqlite:it's.db"), `'sqlite:it'\''s.db'`)
	is.Equal(shellQuote(""), "''")
}
