package storetest

import (
	"context"
	"errors"
	"slices"
	"testing"

	"fieldapi/engine/store"
)

// insertLater: a store that takes Seqs ahead (store.SeqTaker) hands out
// increasing ones per table, and rows inserted with theirs (InsertLater),
// interleaved with another table's, are stored with them in order, their
// SeqText columns holding them and a Counted table counting them, seen by
// the transaction's next read; a repeated unique index fails the write
// through the caller's failed, at the latest at the commit, and leaves
// nothing. UpdateLater changes rows as Update does. A store without
// SeqTaker skips the rest, one that takes no Seqs ahead too.
func insertLater(t *testing.T, s store.Store) {
	ctx := context.Background()
	insert(t, s, acme, store.Values{"Code": "u0"})
	insertInto(t, s, numberedTable, acme, store.Values{"Code": "n0"}) // SQLite takes Seqs of a table that has held a row
	write(t, s, func(ctx context.Context, tx store.Tx) error {
		return store.UpdateLater(ctx, tx, itemsTable, acme, []store.Cond{store.Equal("Code", "u0")}, store.Values{"Name": "later"})
	})
	if got := selectRows(t, s, store.Select{Company: acme}); len(got) != 1 || got[0].Values["Name"] != "later" {
		t.Errorf("after UpdateLater: %v, want u0 named later", got)
	}

	var taken map[string][]int64
	var read []store.Row
	err := s.Write(ctx, func(ctx context.Context, tx store.Tx) error {
		taker, ok := tx.(store.SeqTaker)
		if !ok {
			return nil
		}
		var err error
		if taken, ok, err = taker.TakeSeqs(ctx, map[string]int{itemsTable: 3, numberedTable: 2}); err != nil || !ok {
			return err
		}
		items, numbered := taken[itemsTable], taken[numberedTable]
		for i, code := range []string{"l1", "l2", "l3"} {
			if err := taker.InsertLater(ctx, itemsTable, acme, []store.Values{{"Code": code}}, items[i:i+1], nil); err != nil {
				return err
			}
			if i < 2 {
				if err := taker.InsertLater(ctx, numberedTable, acme, []store.Values{{"Code": "n" + code}}, numbered[i:i+1], nil); err != nil {
					return err
				}
			}
		}
		read, err = tx.Select(ctx, store.Select{Table: itemsTable, Company: acme, OrderBy: []store.Order{{Field: store.SeqField}}})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if taken == nil {
		t.Skip("the store takes no Seqs ahead")
	}
	items, numbered := taken[itemsTable], taken[numberedTable]
	if len(items) != 3 || len(numbered) != 2 || !slices.IsSorted(items) || items[0] == items[1] {
		t.Fatalf("TakeSeqs: %v, want 3 increasing Seqs of items and 2 of numbered", taken)
	}
	if got := codes(read); !slices.Equal(got, []string{"u0", "l1", "l2", "l3"}) || read[1].Seq != items[0] || read[3].Seq != items[2] {
		t.Errorf("the transaction's read after InsertLater: %v, want u0 then l1, l2, l3 with Seqs %v", read, items)
	}
	rows := selectRows(t, s, store.Select{Table: numberedTable, Company: acme, OrderBy: []store.Order{{Field: store.SeqField}}})
	if len(rows) != 3 || rows[1].Seq != numbered[0] || rows[2].Values["Ref"] != store.SeqText(numbered[1]) {
		t.Errorf("numbered rows inserted later: %v, want Seqs and Refs %v", rows, numbered)
	}
	if n, err := s.Counted(ctx, itemsTable, acme); err != nil || n != 4 {
		t.Errorf("Counted items: %d, %v; want 4", n, err)
	}

	refused := errors.New("refused")
	err = s.Write(ctx, func(ctx context.Context, tx store.Tx) error {
		taker := tx.(store.SeqTaker)
		seqs, _, err := taker.TakeSeqs(ctx, map[string]int{itemsTable: 2})
		if err != nil {
			return err
		}
		for i, code := range []string{"l4", "l1"} {
			failed := func(err error) error {
				if store.IsDuplicate(err) {
					return errors.Join(refused, err)
				}
				return err
			}
			if err := taker.InsertLater(ctx, itemsTable, acme, []store.Values{{"Code": code}}, seqs[itemsTable][i:i+1], failed); err != nil {
				return err
			}
		}
		return nil
	})
	if !errors.Is(err, refused) {
		t.Errorf("InsertLater repeating l1: %v, want the failure its failed named", err)
	}
	if got := codes(selectRows(t, s, store.Select{Company: acme})); len(got) != 4 {
		t.Errorf("items after the failed write: %v, want the 4 before", got)
	}
}
