package sqlstore_test

import (
	"context"
	"testing"

	"fieldapi/engine/sqldb"
	"fieldapi/engine/store"
	"fieldapi/engine/store/sqlstore"
	"fieldapi/engine/store/storetest"
	"fieldapi/internal/dbtest"
)

// TestStore runs the store conformance suite on SQLite and, with
// FIELDAPI_TEST_POSTGRES, PostgreSQL.
func TestStore(t *testing.T) {
	for _, b := range backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			storetest.Run(t, func(t *testing.T, schema *store.Schema) store.Store {
				return open(t, b.DSN(t), schema)
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

// backends are SQLite and, with FIELDAPI_TEST_POSTGRES, PostgreSQL.
func backends(t *testing.T) []dbtest.Backend { return dbtest.SQL(t) }
