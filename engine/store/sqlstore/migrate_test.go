package sqlstore_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"fieldapi/engine/sqldb"
	"fieldapi/engine/store"
)

// itemsSchema is one counted table of items; withNote adds a column and
// an index on it, as a newer schema of the same database would.
func itemsSchema(withNote bool) *store.Schema {
	t := &store.Table{Name: "items", Company: true, Seq: true, Counted: true, Columns: []store.Column{
		{Field: "Code", Name: "code", Type: store.Text},
		{Field: "Name", Name: "name", Type: store.Text},
	}}
	if withNote {
		t.Columns = append(t.Columns, store.Column{Field: "Note", Name: "note", Type: store.Text, NotNull: true})
		t.Indexes = append(t.Indexes, store.Index{Name: "items_note", Fields: []string{"Note"}})
	}
	return &store.Schema{Tables: []*store.Table{t}}
}

func insertItems(t *testing.T, s store.Store, company string, rows ...store.Values) {
	t.Helper()
	if err := s.Write(context.Background(), func(ctx context.Context, tx store.Tx) error {
		_, err := tx.Insert(ctx, "items", company, rows)
		return err
	}); err != nil {
		t.Fatal(err)
	}
}

func counted(t *testing.T, s store.Store, company string) int64 {
	t.Helper()
	n, err := s.Counted(context.Background(), "items", company)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestMigrateAddsMissingColumns: a database made with an older schema
// gets the columns and indexes it lacks (nullable, whatever the schema
// says, as rows exist) and keeps its rows and counts; migrating again
// changes nothing.
func TestMigrateAddsMissingColumns(t *testing.T) {
	for _, b := range backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			ctx := context.Background()
			dsn := b.DSN(t)
			older := open(t, dsn, itemsSchema(false))
			insertItems(t, older, "acme", store.Values{"Code": "a1", "Name": "Pump"}, store.Values{"Code": "a2", "Name": "Valve"})
			insertItems(t, older, "other", store.Values{"Code": "o1", "Name": "Pipe"})
			older.Close()

			s := open(t, dsn, itemsSchema(true)) // migrates
			if err := s.Migrate(ctx); err != nil {
				t.Fatalf("Migrate again: %v", err)
			}
			rows, err := s.Select(ctx, store.Select{Table: "items", Company: "acme", OrderBy: []store.Order{{Field: store.SeqField}}})
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != 2 || rows[0].Values["Name"] != "Pump" || rows[1].Values["Code"] != "a2" || rows[0].Values["Note"] != nil {
				t.Errorf("acme's rows after the migration: %v; want both as they were, Note empty", rows)
			}
			insertItems(t, s, "acme", store.Values{"Code": "a3", "Name": "Filter", "Note": "new"})
			rows, err = s.Select(ctx, store.Select{Table: "items", Company: "acme", Where: []store.Cond{store.Equal("Note", "new")}})
			if err != nil || len(rows) != 1 || rows[0].Values["Code"] != "a3" {
				t.Errorf("the row written to the new column: %v, %v; want a3", rows, err)
			}
			if a, o := counted(t, s, "acme"), counted(t, s, "other"); a != 3 || o != 1 {
				t.Errorf("counts after the migration: acme %d, other %d; want 3 and 1", a, o)
			}
		})
	}
}

// TestMigrateBackfillsCounts: a database from before the counts has none:
// Migrate counts each company's rows, migrating again keeps them, and
// writes go on counting from there.
func TestMigrateBackfillsCounts(t *testing.T) {
	for _, b := range backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			ctx := context.Background()
			s := open(t, b.DSN(t), itemsSchema(false))
			insertItems(t, s, "acme", store.Values{"Code": "a1"}, store.Values{"Code": "a2"})
			insertItems(t, s, "other", store.Values{"Code": "o1"})
			if err := s.DB().Write(ctx, func(ctx context.Context, tx *sqldb.Tx) error {
				if _, err := tx.ExecContext(ctx, `DELETE FROM "record_counts"`); err != nil {
					return err
				}
				_, err := tx.ExecContext(ctx, `DELETE FROM "record_count_deltas"`)
				return err
			}); err != nil {
				t.Fatal(err)
			}
			if n := counted(t, s, "acme"); n != 0 {
				t.Fatalf("acme's count with the counts deleted: %d; want 0", n)
			}
			for range 2 {
				if err := s.Migrate(ctx); err != nil {
					t.Fatal(err)
				}
				if a, o := counted(t, s, "acme"), counted(t, s, "other"); a != 2 || o != 1 {
					t.Errorf("counts after Migrate: acme %d, other %d; want 2 and 1, the rows", a, o)
				}
			}
			insertItems(t, s, "acme", store.Values{"Code": "a3"})
			if n := counted(t, s, "acme"); n != 3 {
				t.Errorf("acme's count after one more row: %d; want 3", n)
			}
		})
	}
}

// TestCountsStayExactAcrossMerges: creates and deletes from parallel
// writers, many more than a merge takes, leave every company's count at
// its rows, with the deltas merged into the counts as they go (never more
// than a merge's worth plus what the writers added meanwhile).
func TestCountsStayExactAcrossMerges(t *testing.T) {
	for _, b := range backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			ctx := context.Background()
			s := open(t, b.DSN(t), itemsSchema(false))
			const writers, each = 8, 80
			companies := []string{"acme", "other"}
			var wg sync.WaitGroup
			for w := range writers {
				wg.Go(func() {
					company := companies[w%2]
					for i := range each {
						err := s.Write(ctx, func(ctx context.Context, tx store.Tx) error {
							if _, err := tx.Insert(ctx, "items", company, []store.Values{{"Code": fmt.Sprint(w, "-", i)}, {"Code": "gone"}}); err != nil {
								return err
							}
							_, err := tx.Delete(ctx, "items", company, []store.Cond{store.Equal("Code", "gone")})
							return err
						})
						if err != nil {
							t.Error(err)
							return
						}
					}
				})
			}
			wg.Wait()
			for _, c := range companies {
				if n := counted(t, s, c); n != writers/2*each {
					t.Errorf("%s's count: %d; want %d, its rows", c, n, writers/2*each)
				}
			}
			var deltas int64
			if err := s.DB().Read(ctx, func(ctx context.Context, q sqldb.Querier) error {
				return sqldb.Get(ctx, q, &deltas, `SELECT COUNT(*) FROM "record_count_deltas"`)
			}); err != nil {
				t.Fatal(err)
			}
			if deltas >= writers*each {
				t.Errorf("%d delta rows after %d writes; want them merged into the counts as they come", deltas, writers*each)
			}
		})
	}
}

// TestSQLiteKeepsNoStatisticsSamples: after Migrate and Analyze, SQLite
// has per-index statistics but no samples (sqlite_stat4), with which it
// would plan a prepared statement again on every call.
func TestSQLiteKeepsNoStatisticsSamples(t *testing.T) {
	ctx := context.Background()
	dsn := "sqlite:" + t.TempDir() + "/stats.db"
	s := open(t, dsn, itemsSchema(true))
	for i := range 200 {
		insertItems(t, s, "acme", store.Values{"Code": string(rune('a' + i%26)), "Note": "n"})
	}
	for _, step := range []struct {
		name string
		run  func(context.Context) error
	}{{"Migrate", s.Migrate}, {"Analyze", s.Analyze}} {
		if err := step.run(ctx); err != nil {
			t.Fatal(err)
		}
		var stat1, stat4 int
		err := s.DB().Read(ctx, func(ctx context.Context, q sqldb.Querier) error {
			if err := sqldb.Get(ctx, q, &stat1, `SELECT COUNT(*) FROM sqlite_stat1`); err != nil {
				return err
			}
			return sqldb.Get(ctx, q, &stat4, `SELECT COUNT(*) FROM sqlite_stat4`)
		})
		if err != nil {
			t.Fatal(err)
		}
		if stat1 == 0 || stat4 != 0 {
			t.Errorf("after %s: %d rows of sqlite_stat1, %d of sqlite_stat4; want statistics, no samples", step.name, stat1, stat4)
		}
	}
}
