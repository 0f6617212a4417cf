package sqlstore_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // driver "pgx", for the test schemas

	"fieldapi/engine/sqldb"
	"fieldapi/engine/store"
	"fieldapi/engine/store/sqlstore"
	"fieldapi/engine/store/storetest"
)

// TestStore runs the store conformance suite on SQLite and, with
// FIELDAPI_TEST_POSTGRES, PostgreSQL.
func TestStore(t *testing.T) {
	for _, b := range backends(t) {
		t.Run(b.name, func(t *testing.T) {
			storetest.Run(t, func(t *testing.T, schema *store.Schema) store.Store {
				return open(t, b.dsn(t), schema)
			})
		})
	}
}

func open(t *testing.T, dsn string, schema *store.Schema) *sqlstore.Store {
	t.Helper()
	ctx := context.Background()
	db, err := sqldb.Open(ctx, dsn, sqldb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := sqlstore.New(db, schema)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	return s
}

type backend struct {
	name string
	dsn  func(t *testing.T) string
}

// backends are SQLite in a temporary directory and, when
// FIELDAPI_TEST_POSTGRES names a server, a fresh PostgreSQL schema.
func backends(t *testing.T) []backend {
	list := []backend{{"sqlite", func(t *testing.T) string {
		return "sqlite:" + filepath.Join(t.TempDir(), "store.db")
	}}}
	pg := os.Getenv("FIELDAPI_TEST_POSTGRES")
	if pg == "" {
		t.Log("FIELDAPI_TEST_POSTGRES is not set: PostgreSQL runs are skipped")
		return list
	}
	return append(list, backend{"postgres", func(t *testing.T) string { return freshSchema(t, pg) }})
}

// freshSchema makes a PostgreSQL schema for one test, dropped after it,
// and returns the DSN that uses it.
func freshSchema(t *testing.T, dsn string) string {
	t.Helper()
	admin, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	var random [6]byte
	rand.Read(random[:])
	name := "store_" + hex.EncodeToString(random[:])
	if _, err := admin.Exec(`CREATE SCHEMA ` + name); err != nil {
		admin.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		admin.Exec(`DROP SCHEMA ` + name + ` CASCADE`)
		admin.Close()
	})
	return dsn + "&search_path=" + name
}
