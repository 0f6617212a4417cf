package sqlplatform_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"fieldapi/engine"
	"fieldapi/engine/platform/platformtest"
	"fieldapi/engine/platform/sqlplatform"
	"fieldapi/engine/sqldb"
	"fieldapi/engine/store"
	"fieldapi/engine/store/memstore"
	"fieldapi/engine/store/sqlstore"
	"fieldapi/engine/store/storetest"
	"fieldapi/internal/dbtest"
)

// TestPlatform runs the platform conformance suite on SQLite and, with
// FIELDAPI_TEST_POSTGRES, PostgreSQL, paired with a record store on the
// same database.
func TestPlatform(t *testing.T) {
	for _, b := range backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			platformtest.Run(t, func(t *testing.T) platformtest.Harness {
				clock := platformtest.NewClock()
				records, p := open(t, b.DSN(t), sqlplatform.Options{Now: clock.Now})
				return platformtest.Harness{Platform: p, Store: records, Clock: clock}
			})
		})
	}
}

// TestMigrateTwice: migrating a database the platform (or the old engine,
// with the same DDL) migrated already changes nothing and fails nothing.
func TestMigrateTwice(t *testing.T) {
	for _, b := range backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			_, p := open(t, b.DSN(t), sqlplatform.Options{})
			if err := p.Migrate(context.Background()); err != nil {
				t.Fatalf("Migrate again: %v", err)
			}
		})
	}
}

// TestMigrateCompressesPayloadsWithLZ4: on a PostgreSQL that has lz4,
// the columns holding events and stored responses compress with it, and
// a second Migrate finds them so (its test above changes nothing).
func TestMigrateCompressesPayloadsWithLZ4(t *testing.T) {
	for _, b := range backends(t) {
		if b.Name != "postgres" {
			continue
		}
		t.Run(b.Name, func(t *testing.T) {
			ctx := context.Background()
			dsn := b.DSN(t)
			open(t, dsn, sqlplatform.Options{})
			db, err := sqldb.Open(ctx, dsn, sqldb.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			err = db.Read(ctx, func(ctx context.Context, q sqldb.Querier) error {
				var available bool
				if err := sqldb.Get(ctx, q, &available, `SELECT EXISTS (SELECT 1 FROM pg_settings
					WHERE name = 'default_toast_compression' AND 'lz4' = ANY(enumvals))`); err != nil || !available {
					if err == nil {
						t.Skip("this PostgreSQL has no lz4")
					}
					return err
				}
				for _, c := range sqlplatform.LZ4Columns() {
					var method string
					if err := sqldb.Get(ctx, q, &method, `SELECT attcompression FROM pg_attribute
						WHERE attrelid = to_regclass(?) AND attname = ?`, sqldb.Quote(c[0]), c[1]); err != nil {
						return err
					}
					if method != "l" {
						t.Errorf("%s.%s compresses with %q; want lz4 (l)", c[0], c[1], method)
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestPendingRowsOfEarlierVersions: a key an earlier version left
// pending (it stored a hold before the call ran, and the call died) is
// no answer: Claim finds the key free, and the first response stored
// replaces the row.
func TestPendingRowsOfEarlierVersions(t *testing.T) {
	for _, b := range backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			ctx := context.Background()
			dsn := b.DSN(t)
			_, p := open(t, dsn, sqlplatform.Options{})
			db, err := sqldb.Open(ctx, dsn, sqldb.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			err = db.Autocommit(ctx, func(ctx context.Context, q sqldb.Querier) error {
				_, err := sqldb.Exec(ctx, q, `INSERT INTO "idempotency"
					("scope", "key", "fingerprint", "token", "state", "status", "body", "created", "lease_until")
					VALUES ('scope', 'k', 'fp-old', 'tok', 'pending', 0, NULL, '2026-01-01T00:00:00Z', '2099-01-01T00:00:00Z')`)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			c := engine.Claim{Scope: "scope", Key: "k", Fingerprint: "fp"}
			if res, err := p.Idempotency().Claim(ctx, c); err != nil || res.State != engine.Claimed {
				t.Fatalf("Claim of a key left pending = %v, %v; want Claimed", res.State, err)
			}
			if err := p.Idempotency().Complete(ctx, c, engine.Response{Status: 422, Body: []byte(`{}`)}); err != nil {
				t.Fatalf("Complete of a key left pending: %v", err)
			}
			if res, err := p.Idempotency().Claim(ctx, c); err != nil || res.State != engine.Replay || res.Response.Status != 422 {
				t.Errorf("Claim after Complete = %v %d, %v; want Replay of 422", res.State, res.Response.Status, err)
			}
		})
	}
}

// TestBindRefusesAnotherStore: Bind takes only a SQL store's transaction.
func TestBindRefusesAnotherStore(t *testing.T) {
	_, p := open(t, "sqlite:"+filepath.Join(t.TempDir(), "platform.db"), sqlplatform.Options{})
	mem, err := memstore.New(storetest.Schema())
	if err != nil {
		t.Fatal(err)
	}
	err = mem.Write(context.Background(), func(ctx context.Context, tx store.Tx) error {
		_, err := p.Bind(tx)
		return err
	})
	if err == nil || !strings.Contains(err.Error(), "sqlstore") {
		t.Errorf("Bind of a memstore transaction: %v; want a refusal naming the SQL store", err)
	}
}

// open opens a record store and the platform on one database, migrated.
func open(t *testing.T, dsn string, opt sqlplatform.Options) (*sqlstore.Store, *sqlplatform.Platform) {
	t.Helper()
	ctx := context.Background()
	db, err := sqldb.Open(ctx, dsn, sqldb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	records, err := sqlstore.New(db, storetest.Schema())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { records.Close() })
	if err := records.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	p := sqlplatform.New(db, opt)
	if err := p.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	return records, p
}

// backends are SQLite and, with FIELDAPI_TEST_POSTGRES, PostgreSQL.
func backends(t *testing.T) []dbtest.Backend { return dbtest.SQL(t) }
