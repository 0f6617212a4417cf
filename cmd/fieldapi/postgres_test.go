package main

import (
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"
)

// postgresEnv names a PostgreSQL server the CLI is also tested against,
// e.g. postgres://postgres@127.0.0.1:5432/test?sslmode=disable.
const postgresEnv = "FIELDAPI_TEST_POSTGRES"

// postgresDSN is a DSN of a fresh schema on the FIELDAPI_TEST_POSTGRES
// server, dropped when the test ends; the test is skipped without a server.
func postgresDSN(t *testing.T) string {
	t.Helper()
	base := os.Getenv(postgresEnv)
	if base == "" {
		t.Skipf("set %s to run the CLI against PostgreSQL too", postgresEnv)
	}
	admin, err := sql.Open("pgx", base) // the driver is registered by engine/sqldb
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 6)
	rand.Read(b)
	schema := "fieldapi_cli_test_" + hex.EncodeToString(b)
	if _, err := admin.ExecContext(t.Context(), `CREATE SCHEMA "`+schema+`"`); err != nil {
		admin.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		defer admin.Close()
		if _, err := admin.Exec(`DROP SCHEMA "` + schema + `" CASCADE`); err != nil {
			t.Error(err)
		}
	})
	sep := "?"
	if strings.Contains(base, "?") {
		sep = "&"
	}
	return base + sep + "search_path=" + schema
}

func TestCLIAgainstPostgreSQL(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	dsn := postgresDSN(t)

	first := runCLI(t, nil, "init", "--db", dsn, "--demo")
	is.Equal(first.code, 0)
	is.True(strings.Contains(first.stdout, "demo data loaded: companies demo"))
	second := runCLI(t, nil, "init", "--db", dsn, "--demo")
	is.Equal(second.code, 0)                                                                             // idempotent
	is.True(strings.Contains(second.stdout, "demo data already loaded: kept companies demo"))            // and says so
	is.True(strings.Contains(second.stdout, "next: fieldapi keys create --db '"+dsn+"' --company demo")) // the DSN quoted for the shell

	k := createKey(t, dsn, "--scopes", "*", "--client-id", "pg-client")
	is.True(strings.HasPrefix(k.Key, "mk_pg-client_"))
	stored, err := openTestEngine(t, dsn).Keys().LookupKey(t.Context(), "pg-client")
	is.NoErr(err)
	is.Equal(stored.Company, "demo")

	list := runCLI(t, nil, "keys", "list", "--db", dsn)
	is.Equal(list.code, 0)
	is.True(strings.Contains(list.stdout, "pg-client"))
	is.True(!strings.Contains(list.stdout, "mk_"))

	srv := startServe(t, dsn)
	is.Equal(getHealth(t, srv.addr), http.StatusOK)
	is.Equal(srv.stop(), 0)

	is.Equal(runCLI(t, nil, "keys", "revoke", "--db", dsn, "--client-id", "pg-client").code, 0)
	bad := runCLI(t, nil, "keys", "create", "--db", dsn, "--company", "nope", "--sign", "API", "--scopes", "*")
	is.Equal(bad.code, 1)
	is.True(strings.Contains(bad.stderr, `unknown company "nope"`))
}

// TestCommandsReportAnUnreachablePostgreSQL: every command that takes
// --db fails fast with exit 1 and says why when nothing answers.
func TestCommandsReportAnUnreachablePostgreSQL(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // a port where nothing listens
	dsn := "postgres://postgres@" + addr + "/test?sslmode=disable"
	for _, args := range [][]string{
		{"init", "--db", dsn},
		{"serve", "--db", dsn, "--addr", "127.0.0.1:0"},
		{"migrate", "--db", dsn},
		{"migrate", "--plan", "--db", dsn},
		{"keys", "create", "--db", dsn, "--company", "demo", "--sign", "API", "--scopes", "*"},
		{"keys", "list", "--db", dsn},
		{"keys", "revoke", "--db", dsn, "--client-id", "nobody"},
	} {
		start := time.Now()
		r := runCLI(t, nil, args...)
		if r.code != 1 || !strings.Contains(r.stderr, "engine unreachable") || !strings.Contains(r.stderr, addr) {
			t.Errorf("%v: exit %d, stderr %q; want 1 naming the unreachable database", args, r.code, r.stderr)
		}
		if took := time.Since(start); took > 3*time.Second {
			t.Errorf("%v took %s to fail", args, took)
		}
	}
}
