// Package dbtest gives tests the databases they run on: SQLite in the
// test's temporary directory always, and PostgreSQL when
// FIELDAPI_TEST_POSTGRES names a server, in a fresh schema of its own
// that is dropped when the test ends. Only tests import it.
package dbtest

import (
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // driver "pgx", for the schemas
)

// PostgresEnv names the variable that gives the PostgreSQL server to
// test on, as a postgres:// URL.
const PostgresEnv = "FIELDAPI_TEST_POSTGRES"

// Backend is a database a test runs on; DSN makes a fresh one per test.
type Backend struct {
	Name string
	DSN  func(t testing.TB) string
}

// SQL are SQLite and, when PostgresEnv is set, PostgreSQL.
func SQL(t testing.TB) []Backend {
	list := []Backend{{"sqlite", SQLite}}
	if pg := os.Getenv(PostgresEnv); pg != "" {
		return append(list, Backend{"postgres", func(t testing.TB) string { return Schema(t, pg) }})
	}
	t.Logf("%s is not set: PostgreSQL runs are skipped", PostgresEnv)
	return list
}

// SQLite is the DSN of a SQLite file in the test's temporary directory.
func SQLite(t testing.TB) string { return "sqlite:" + filepath.Join(t.TempDir(), "test.db") }

// Schema makes a schema for one test on the server of dsn, dropped when
// the test ends, and returns dsn with search_path set to it.
func Schema(t testing.TB, dsn string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil || u.Scheme == "" {
		t.Fatalf("%s must be a postgres:// URL: %v", PostgresEnv, err)
	}
	admin, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	var random [6]byte
	rand.Read(random[:])
	name := "test_" + hex.EncodeToString(random[:])
	if _, err := admin.Exec(`CREATE SCHEMA ` + name); err != nil {
		admin.Close()
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() {
		defer admin.Close()
		if _, err := admin.Exec(`DROP SCHEMA ` + name + ` CASCADE`); err != nil {
			t.Errorf("drop schema %s: %v", name, err)
		}
	})
	return WithParam(t, dsn, "search_path", name)
}

// WithParam returns the postgres:// URL dsn with the connection
// parameter name set to value.
func WithParam(t testing.TB, dsn, name, value string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatalf("%s must be a postgres:// URL: %v", PostgresEnv, err)
	}
	q := u.Query()
	q.Set(name, value)
	u.RawQuery = q.Encode()
	return u.String()
}
