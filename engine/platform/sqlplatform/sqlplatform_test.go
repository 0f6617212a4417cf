package sqlplatform_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fieldapi/engine"
	"fieldapi/engine/platform"
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

// TestOutboxRowsOfEarlierVersions: a database whose outbox an earlier
// version made (one row per write, its events as a JSON array) is
// migrated, and the rows such a version left waiting come first into the
// feed, in order, before the events written since, each payload the
// event's own with its position, byte for byte.
func TestOutboxRowsOfEarlierVersions(t *testing.T) {
	for _, b := range backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			ctx := context.Background()
			dsn := b.DSN(t)
			db, err := sqldb.Open(ctx, dsn, sqldb.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			event := func(id, key string) platform.Event {
				return platform.Event{ID: id, Type: "task.created", OccurredAt: "2026-11-28T10:00:00Z", Company: "c", Register: "tasks", Key: key,
					Actor: platform.Actor{ClientID: "client", Sign: "API"}, Data: engine.Record{"Nr": key, "Note": "Åsa \"quoted\" <b>"}}
			}
			old := []platform.Event{event("evt_1", "1"), event("evt_2", "2")}
			var array []string
			for _, ev := range old {
				payload, err := ev.Payload()
				if err != nil {
					t.Fatal(err)
				}
				array = append(array, string(payload))
			}
			err = db.Autocommit(ctx, func(ctx context.Context, q sqldb.Querier) error {
				if _, err := sqldb.Exec(ctx, q, db.Dialect().DDL(`CREATE TABLE "event_outbox" ({seq}, "company" TEXT NOT NULL, "events" TEXT NOT NULL)`)); err != nil {
					return err
				}
				_, err := sqldb.Exec(ctx, q, `INSERT INTO "event_outbox" ("company", "events") VALUES ('c', ?)`, "["+strings.Join(array, ",")+"]")
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			records, p := open(t, dsn, sqlplatform.Options{})
			// An id past ASCII: where the position goes is counted in characters, as SQL counts them.
			since := event("evt_ä€_3", "3")
			recordEvents(t, records, p, "c", since)
			page, err := p.Feed(ctx, "c", engine.EventQuery{Limit: 10}, nil)
			if err != nil {
				t.Fatal(err)
			}
			want := append(old, since)
			if len(page.Events) != len(want) {
				t.Fatalf("feed holds %d events; want %d", len(page.Events), len(want))
			}
			for i, ev := range want {
				ev.Position = int64(i + 1)
				payload, err := ev.Payload()
				if err != nil {
					t.Fatal(err)
				}
				if got := page.Events[i]; got.Position != ev.Position || got.ID != ev.ID || string(got.Payload) != string(payload) {
					t.Errorf("event %d = %d %s %s\nwant %d %s %s", i, got.Position, got.ID, got.Payload, ev.Position, ev.ID, payload)
				}
			}
		})
	}
}

// TestOutboxRowsReadableByEarlierVersions: a row this version writes is
// what an earlier version reads from the outbox (a JSON array of a
// write's events, each platform.Recorded), so one running beside it during
// an upgrade, or after a rollback, still sequences it: given a position,
// the event's payload is the one the feed gives, byte for byte.
// PostgreSQL only: on SQLite a write puts its events in the feed itself
// (TestSQLiteWritesPositionTheirEvents), where an earlier version reads
// them as its own sequencer's.
func TestOutboxRowsReadableByEarlierVersions(t *testing.T) {
	for _, b := range backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			if b.Name == "sqlite" {
				t.Skip("SQLite writes no outbox rows")
			}
			ctx := context.Background()
			records, p := open(t, b.DSN(t), sqlplatform.Options{})
			ev := platform.Event{ID: "evt_ü_1", Type: "task.updated", OccurredAt: "2026-11-28T10:00:00Z", Company: "c", Register: "tasks", Key: "7",
				Actor: platform.Actor{ClientID: "client", Sign: "API"}, ChangedFields: []string{"Note"}, Data: engine.Record{"Nr": "7", "Note": "Åsa \"quoted\""}}
			recordEvents(t, records, p, "c", ev)
			var rows []string
			err := records.DB().Read(ctx, func(ctx context.Context, q sqldb.Querier) error {
				return sqldb.Select(ctx, q, &rows, `SELECT "events" FROM "event_outbox" WHERE "company" = 'c'`)
			})
			if err != nil || len(rows) != 1 {
				t.Fatalf("outbox rows = %d, %v; want 1", len(rows), err)
			}
			var read []platform.Recorded
			if err := json.Unmarshal([]byte(rows[0]), &read); err != nil || len(read) != 1 {
				t.Fatalf("the row as an earlier version reads it: %d events, %v; want 1", len(read), err)
			}
			read[0].Position, ev.Position = 9, 9
			got, err := json.Marshal(read[0])
			if err != nil {
				t.Fatal(err)
			}
			want, err := ev.Payload()
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("positioned by an earlier version:\n%s\nwant\n%s", got, want)
			}
		})
	}
}

// TestSQLiteWritesPositionTheirEvents: on SQLite a write gives its events
// their positions and puts them in the feed itself, payloads as the
// sequencer would have written them, byte for byte; it leaves nothing in
// the outbox, and the company's counter names the last position, as an
// earlier version's sequencer running beside it expects.
func TestSQLiteWritesPositionTheirEvents(t *testing.T) {
	ctx := context.Background()
	records, p := open(t, "sqlite:"+filepath.Join(t.TempDir(), "feed.db"), sqlplatform.Options{})
	event := func(id string) platform.Event {
		return platform.Event{ID: id, Type: "task.created", OccurredAt: "2026-11-29T10:00:00Z", Company: "c", Register: "tasks", Key: id,
			Actor: platform.Actor{ClientID: "client", Sign: "API"}, Data: engine.Record{"Nr": id, "Note": "Åsa \"quoted\""}}
	}
	written := []platform.Event{event("evt_1"), event("evt_2"), event("evt_3")}
	recordEvents(t, records, p, "c", written[:2]...)
	recordEvents(t, records, p, "c", written[2])
	type row struct {
		Position int64  `db:"position"`
		ID       string `db:"id"`
		Payload  string `db:"payload"`
	}
	var feed []row
	var outbox, last int
	err := records.DB().Read(ctx, func(ctx context.Context, q sqldb.Querier) error {
		return errors.Join(sqldb.Select(ctx, q, &feed, `SELECT "position", "id", "payload" FROM "events" WHERE "company" = 'c' ORDER BY "position"`),
			sqldb.Get(ctx, q, &outbox, `SELECT COUNT(*) FROM "event_outbox"`),
			sqldb.Get(ctx, q, &last, `SELECT "last" FROM "event_counters" WHERE "company" = 'c'`))
	})
	if err != nil {
		t.Fatal(err)
	}
	if outbox != 0 || last != len(written) || len(feed) != len(written) {
		t.Fatalf("outbox rows %d, counter at %d, feed rows %d; want 0, %d, %d", outbox, last, len(feed), len(written), len(written))
	}
	for i, ev := range written {
		ev.Position = int64(i + 1)
		payload, err := ev.Payload()
		if err != nil {
			t.Fatal(err)
		}
		if got := feed[i]; got.Position != ev.Position || got.ID != ev.ID || got.Payload != string(payload) {
			t.Errorf("feed row %d = %d %s %s\nwant %d %s %s", i, got.Position, got.ID, got.Payload, ev.Position, ev.ID, payload)
		}
	}
}

// TestPruneInChunks: PruneEvents deletes more events than one chunk in
// several transactions, every old one of every company, and leaves each
// company's mark at its last pruned position.
func TestPruneInChunks(t *testing.T) {
	for _, b := range backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			ctx := context.Background()
			clock := platformtest.NewClock()
			records, p := open(t, b.DSN(t), sqlplatform.Options{Now: clock.Now})
			p.SetPruneChunk(2)
			record := func(company string, n int) {
				t.Helper()
				var events []platform.Event
				for range n {
					events = append(events, platform.Event{ID: platform.NewID("evt_"), Type: "task.created",
						OccurredAt: platform.OccurredAt(clock.Now()), Company: company, Register: "tasks", Key: "1"})
				}
				recordEvents(t, records, p, company, events...)
			}
			record("a", 5)
			record("b", 2)
			cut := clock.Now().Add(time.Minute)
			clock.Advance(time.Hour)
			record("a", 1)
			if n, err := p.PruneEvents(ctx, cut); err != nil || n != 7 {
				t.Fatalf("PruneEvents = %d, %v; want 7", n, err)
			}
			if _, err := p.Feed(ctx, "a", engine.EventQuery{After: 4, Limit: 10}, nil); !errors.Is(err, engine.ErrCursorExpired) {
				t.Errorf("company a's feed after 4: %v; want engine.ErrCursorExpired", err)
			}
			if page, err := p.Feed(ctx, "a", engine.EventQuery{After: 5, Limit: 10}, nil); err != nil || len(page.Events) != 1 || page.Events[0].Position != 6 {
				t.Errorf("company a's feed after 5 = %+v, %v; want the event at 6", page.Events, err)
			}
			if _, err := p.Feed(ctx, "b", engine.EventQuery{After: 1, Limit: 10}, nil); !errors.Is(err, engine.ErrCursorExpired) {
				t.Errorf("company b's feed after 1: %v; want engine.ErrCursorExpired", err)
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

// recordEvents commits the company's events in one write of the record
// store, through the platform's writes.
func recordEvents(t *testing.T, records *sqlstore.Store, p *sqlplatform.Platform, company string, events ...platform.Event) {
	t.Helper()
	err := records.Write(context.Background(), func(ctx context.Context, tx store.Tx) error {
		w, err := p.Bind(tx)
		if err != nil {
			return err
		}
		return w.Record(ctx, company, events)
	})
	if err != nil {
		t.Fatal(err)
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
