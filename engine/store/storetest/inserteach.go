package storetest

import (
	"context"
	"errors"
	"slices"
	"testing"

	"fieldapi/engine/store"
)

// insertEach: inserts run together (store.InsertEach) store their rows
// as Insert does, one table after the other, each with its Seqs in order
// (a SeqText column holding its row's) and counted in a Counted table;
// the selects after them read their rows; an insert that repeats a
// unique index fails as an *InsertionError naming it, with the
// *DuplicateError inside, and its transaction leaves nothing.
func insertEach(t *testing.T, s store.Store) {
	ctx := context.Background()
	insert(t, s, acme, store.Values{"Code": "e0"})
	var seqs [][]int64
	var read [][]store.Row
	write(t, s, func(ctx context.Context, tx store.Tx) error {
		var err error
		seqs, read, err = store.InsertEach(ctx, tx, []store.Insertion{
			{Table: numberedTable, Company: acme, Rows: []store.Values{{"Code": "n1"}}},
			{Table: itemsTable, Company: acme, Rows: []store.Values{{"Code": "e1", "Price": 2.5}, {"Code": "e2"}}},
			{Table: itemsTable, Company: acme}, // no rows: no Seqs
			{Table: settingsTable, Company: acme, Rows: []store.Values{{"Name": "s", "Value": "v"}}},
		}, []store.Select{{Table: itemsTable, Company: acme, Where: []store.Cond{store.Equal("Code", "e1")},
			Columns: []string{"Price"}, Exprs: []store.Expr{{Name: "label", Text: `'item ' || "code"`}}}})
		return err
	})
	if len(read) != 1 || len(read[0]) != 1 || read[0][0].Values["Price"] != 2.5 || read[0][0].Values["label"] != "item e1" {
		t.Errorf("the select after the inserts read %v, want e1's Price 2.5 and label \"item e1\"", read)
	}
	if len(seqs) != 4 || len(seqs[0]) != 1 || len(seqs[1]) != 2 || len(seqs[2]) != 0 || !slices.Equal(seqs[3], []int64{0}) {
		t.Fatalf("InsertEach's Seqs: %v, want 1, 2, 0 and 1 (a 0) of them", seqs)
	}
	items := selectRows(t, s, store.Select{Company: acme, OrderBy: []store.Order{{Field: store.SeqField}}})
	if got := codes(items); !slices.Equal(got, []string{"e0", "e1", "e2"}) {
		t.Fatalf("items after InsertEach: %v, want [e0 e1 e2]", got)
	}
	if items[1].Seq != seqs[1][0] || items[2].Seq != seqs[1][1] || items[1].Values["Price"] != 2.5 {
		t.Errorf("items e1, e2 read %d, %d (Price %v); InsertEach gave %v", items[1].Seq, items[2].Seq, items[1].Values["Price"], seqs[1])
	}
	numbered := selectRows(t, s, store.Select{Table: numberedTable, Company: acme})
	if len(numbered) != 1 || numbered[0].Seq != seqs[0][0] || numbered[0].Values["Ref"] != store.SeqText(seqs[0][0]) {
		t.Errorf("the numbered row: %v, want Seq and Ref %d", numbered, seqs[0][0])
	}
	if n, err := s.Counted(ctx, itemsTable, acme); err != nil || n != 3 {
		t.Errorf("Counted items: %d, %v; want 3", n, err)
	}

	err := s.Write(ctx, func(ctx context.Context, tx store.Tx) error {
		_, _, err := store.InsertEach(ctx, tx, []store.Insertion{
			{Table: numberedTable, Company: acme, Rows: []store.Values{{"Code": "n2"}}},
			{Table: itemsTable, Company: acme, Rows: []store.Values{{"Code": "e3"}, {"Code": "e1"}}},
		}, []store.Select{{Table: itemsTable, Company: acme}})
		return err
	})
	var failed *store.InsertionError
	if !errors.As(err, &failed) || failed.Index != 1 || !store.IsDuplicate(err) {
		t.Fatalf("InsertEach repeating e1 in its second insert: %v, want an *InsertionError of index 1 holding a *DuplicateError", err)
	}
	if got := codes(selectRows(t, s, store.Select{Company: acme})); len(got) != 3 {
		t.Errorf("items after the failed InsertEach: %v, want the 3 before", got)
	}
	if got := selectRows(t, s, store.Select{Table: numberedTable, Company: acme}); len(got) != 1 {
		t.Errorf("numbered rows after the failed InsertEach: %d, want 1", len(got))
	}
	if n, err := s.Counted(ctx, itemsTable, acme); err != nil || n != 3 {
		t.Errorf("Counted items after the failed InsertEach: %d, %v; want 3", n, err)
	}
}
