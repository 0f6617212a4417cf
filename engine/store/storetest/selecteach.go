package storetest

import (
	"context"
	"reflect"
	"slices"
	"testing"

	"fieldapi/engine/store"
)

// selectEach: independent selects run together read what each would read
// alone, values of every type, columns and expressions included, in
// order; in a transaction, they see what it wrote; a query the store
// cannot run fails the call, and the store serves the next one.
func selectEach(t *testing.T, s store.Store) {
	ctx := context.Background()
	insert(t, s, acme,
		store.Values{"Code": "s1", "Name": "Ångström", "Price": 12.5, "Stock": int64(7), "Active": true,
			"Tags": []string{"x"}, "Attrs": map[string]string{"k": "v"}, "Blob": []byte{0, 1}, "Day": "2026-11-28"},
		store.Values{"Code": "s2"})
	insertInto(t, s, settingsTable, acme, store.Values{"Name": "colour", "Value": "blue"})
	queries := []store.Select{
		{Table: itemsTable, Company: acme, OrderBy: []store.Order{{Field: store.SeqField}}},
		{Table: settingsTable, Company: acme},
		{Table: itemsTable, Company: acme, Columns: []string{"Name"}, Where: []store.Cond{store.Equal("Code", "s1")},
			Exprs: []store.Expr{{Name: "label", Text: `'Item ' || COALESCE("code", '')`}}},
		{Table: itemsTable, Company: other},
		{Table: itemsTable, Company: acme, Where: []store.Cond{store.OneOf("Code", []string{"s2", "none"})}, Limit: 1},
	}
	got, err := store.SelectEach(ctx, s, queries)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(queries) {
		t.Fatalf("SelectEach of %d queries returned %d results", len(queries), len(got))
	}
	for i, q := range queries {
		if alone := selectRows(t, s, q); !reflect.DeepEqual(got[i], alone) && (len(got[i]) > 0 || len(alone) > 0) {
			t.Errorf("query %d together read %#v, alone %#v", i, got[i], alone)
		}
	}
	if len(got[0]) != 2 || len(got[1]) != 1 || len(got[3]) != 0 || len(got[4]) != 1 {
		t.Errorf("rows read: %d, %d, %d, %d; want 2, 1, 0, 1", len(got[0]), len(got[1]), len(got[3]), len(got[4]))
	}
	// In a transaction they read what it wrote before them, and may hold
	// the rows they read.
	write(t, s, func(ctx context.Context, tx store.Tx) error {
		if _, err := tx.Insert(ctx, itemsTable, acme, []store.Values{{"Code": "s3"}}); err != nil {
			return err
		}
		held := queries[0]
		held.ForUpdate = true
		got, err := store.SelectEach(ctx, tx, []store.Select{held, queries[1]})
		if err != nil {
			return err
		}
		if c := codes(got[0]); !slices.Equal(c, []string{"s1", "s2", "s3"}) || len(got[1]) != 1 {
			t.Errorf("SelectEach in the transaction that inserted s3 read %v and %d settings, want [s1 s2 s3] and 1", c, len(got[1]))
		}
		return nil
	})
	if _, err := store.SelectEach(ctx, s, []store.Select{queries[0], {Table: "no_such_table"}}); err == nil {
		t.Error("SelectEach with a query of an unknown table: no error")
	}
	if again, err := store.SelectEach(ctx, s, queries[:2]); err != nil || !slices.Equal(codes(again[0]), []string{"s1", "s2", "s3"}) {
		t.Errorf("SelectEach after a failed one: %v, %v", again, err)
	}
}
