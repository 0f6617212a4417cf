package sqlstore_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"fieldapi/engine/sqldb"
	"fieldapi/engine/store"
	"fieldapi/engine/store/migration"
	"fieldapi/engine/store/sqlstore"
)

// itemsWith is itemsSchema(true) with the note column under another name
// (or none), and its index.
func itemsWith(note string) *store.Schema {
	s := itemsSchema(note != "")
	if note != "" {
		s.Tables[0].Columns[2].Name = note
	}
	return s
}

// reopen opens a store of schema on the database of s without migrating.
func reopen(t *testing.T, s *sqlstore.Store, dsn string, schema *store.Schema) *sqlstore.Store {
	t.Helper()
	s.Close()
	db, err := sqldb.Open(context.Background(), dsn, sqldb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	next, err := sqlstore.New(db, schema)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { next.Close() })
	return next
}

// indexedColumns lists the columns of items that an index covers.
func indexedColumns(t *testing.T, s *sqlstore.Store) []string {
	t.Helper()
	query := `SELECT DISTINCT ii.name FROM pragma_index_list('items') AS il, pragma_index_info(il.name) AS ii ORDER BY 1`
	if s.DB().Dialect().Postgres() {
		query = `SELECT DISTINCT a.attname FROM pg_index x JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = ANY(x.indkey)
			WHERE x.indrelid = to_regclass('items') AND NOT x.indisprimary ORDER BY 1`
	}
	var cols []string
	if err := s.DB().Read(context.Background(), func(ctx context.Context, q sqldb.Querier) error {
		return sqldb.Select(ctx, q, &cols, query)
	}); err != nil {
		t.Fatal(err)
	}
	return cols
}

// TestEvolveRenamesAndDropsIndexedColumns: an indexed column renamed
// keeps its values and gets the schema's index under its name; one
// removed is dropped with its index (SQLite refuses to drop an indexed
// column otherwise).
func TestEvolveRenamesAndDropsIndexedColumns(t *testing.T) {
	for _, b := range backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			ctx := context.Background()
			dsn := b.DSN(t)
			s := open(t, dsn, itemsWith("note"))
			insertItems(t, s, "acme", store.Values{"Code": "a1", "Note": "first"}, store.Values{"Code": "a2", "Note": "second"})
			insertItems(t, s, "other", store.Values{"Code": "o1", "Note": "third"})
			compared := []string{"items"}

			s = reopen(t, s, dsn, itemsWith("remark"))
			renamed := migration.Evolution{Compared: compared, Renamed: map[string]map[string]string{"items": {"remark": "note"}}}
			plan, err := s.Evolve(ctx, renamed)
			if err != nil {
				t.Fatal(err)
			}
			want := []migration.Step{{Kind: migration.RenameColumn, Table: "items", Column: "remark", From: "note", Held: migration.Held{{Company: "acme", N: 2}, {Company: "other", N: 1}}}}
			if !slices.EqualFunc(plan.Steps, want, stepEqual) {
				t.Errorf("steps %+v; want %+v", plan.Steps, want)
			}
			rows, err := s.Select(ctx, store.Select{Table: "items", Company: "acme", Where: []store.Cond{store.Equal("Note", "first")}})
			if err != nil || len(rows) != 1 {
				t.Errorf("the renamed column's value: %v, %v; want a1's", rows, err)
			}
			if cols := indexedColumns(t, s); !slices.Equal(cols, []string{"company", "remark"}) {
				t.Errorf("indexed columns after the rename %v; want company and remark alone", cols)
			}
			if again, err := s.Evolve(ctx, renamed); err != nil || len(again.Steps) > 0 {
				t.Errorf("the rename again: %+v, %v; want no step", again, err)
			}

			s = reopen(t, s, dsn, itemsWith(""))
			if _, err := s.Evolve(ctx, migration.Evolution{Compared: compared}); !isRefused(err) {
				t.Fatalf("remark left out of the schema: %v; want it refused (every row holds a value)", err)
			}
			plan, err = s.Evolve(ctx, migration.Evolution{Compared: compared, Removed: map[string][]string{"items": {"remark"}}})
			if err != nil || len(plan.Steps) != 1 || plan.Steps[0].Kind != migration.DropColumn {
				t.Fatalf("removing remark: %+v, %v; want it dropped", plan, err)
			}
			if cols := indexedColumns(t, s); len(cols) > 0 {
				t.Errorf("indexed columns after the drop %v; want none (the schema has no index left)", cols)
			}
		})
	}
}

// TestEvolveLeavesForeignAndUnlikeTablesAlone: a table of another (the
// platform's), or one not shaped like a compared table, is no leftover.
func TestEvolveLeavesForeignAndUnlikeTablesAlone(t *testing.T) {
	for _, b := range backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			ctx := context.Background()
			s := open(t, b.DSN(t), itemsSchema(false))
			if err := s.DB().Write(ctx, func(ctx context.Context, tx *sqldb.Tx) error {
				for _, stmt := range []string{
					`CREATE TABLE "keys" ("seq" INTEGER, "company" TEXT, "code" TEXT, "name" TEXT)`,
					`CREATE TABLE "notes" ("company" TEXT, "text" TEXT)`,
					`CREATE TABLE "gadgets" ("seq" INTEGER, "company" TEXT, "code" TEXT, "name" TEXT, "colour" TEXT)`,
					`INSERT INTO "keys" VALUES (1, 'acme', 'k', 'n')`,
					`INSERT INTO "notes" VALUES ('acme', 'x')`,
				} {
					if _, err := tx.ExecContext(ctx, stmt); err != nil {
						return err
					}
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			plan, err := s.Plan(ctx, migration.Evolution{Compared: []string{"items"}, Foreign: []string{"keys"}})
			if err != nil {
				t.Fatal(err)
			}
			want := []migration.Leftover{{Table: "gadgets"}}
			if plan.Refused() || !slices.EqualFunc(plan.Leftovers, want, func(a, b migration.Leftover) bool {
				return a.Table == b.Table && a.Column == b.Column && len(a.Held) == 0
			}) {
				t.Errorf("leftovers %+v; want the empty gadgets alone (keys is foreign, notes not shaped like items)", plan.Leftovers)
			}
		})
	}
}

func isRefused(err error) bool {
	var refused *migration.RefusedError
	return errors.As(err, &refused)
}

func stepEqual(a, b migration.Step) bool {
	return a.Kind == b.Kind && a.Table == b.Table && a.Column == b.Column && a.From == b.From && slices.Equal(a.Held, b.Held)
}
