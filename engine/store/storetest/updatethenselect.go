package storetest

import (
	"context"
	"testing"

	"fieldapi/engine/store"
)

// updateThenSelect: an update with selects after it
// (store.UpdateThenSelect) changes the rows Update would and counts them;
// the selects read the rows as changed; an update that repeats a unique
// index fails with a *DuplicateError, and its transaction leaves nothing.
func updateThenSelect(t *testing.T, s store.Store) {
	ctx := context.Background()
	insert(t, s, acme, store.Values{"Code": "u1", "Price": 1.0}, store.Values{"Code": "u2", "Price": 2.0})
	var n int64
	var read [][]store.Row
	write(t, s, func(ctx context.Context, tx store.Tx) error {
		var err error
		n, read, err = store.UpdateThenSelect(ctx, tx, itemsTable, acme, []store.Cond{store.Equal("Code", "u1")}, store.Values{"Price": 1.5},
			[]store.Select{{Table: itemsTable, Company: acme, Where: []store.Cond{store.Equal("Code", "u1")},
				Columns: []string{"Price"}, Exprs: []store.Expr{{Name: "label", Text: `'item ' || "code"`}}}})
		return err
	})
	if n != 1 {
		t.Errorf("UpdateThenSelect counted %d rows, want 1", n)
	}
	if len(read) != 1 || len(read[0]) != 1 || read[0][0].Values["Price"] != 1.5 || read[0][0].Values["label"] != "item u1" {
		t.Errorf("the select after the update read %v, want u1's Price 1.5 and label \"item u1\"", read)
	}

	err := s.Write(ctx, func(ctx context.Context, tx store.Tx) error {
		_, _, err := store.UpdateThenSelect(ctx, tx, itemsTable, acme, []store.Cond{store.Equal("Code", "u2")}, store.Values{"Code": "u1"},
			[]store.Select{{Table: itemsTable, Company: acme}})
		return err
	})
	if !store.IsDuplicate(err) {
		t.Fatalf("UpdateThenSelect giving u2 the code u1: %v, want a *DuplicateError", err)
	}
	items := selectRows(t, s, store.Select{Company: acme, OrderBy: []store.Order{{Field: store.SeqField}}})
	if len(items) != 2 || items[0].Values["Price"] != 1.5 || items[1].Values["Code"] != "u2" {
		t.Errorf("items after the failed UpdateThenSelect: %v, want u1 (1.5) and u2 as they were", items)
	}
}
