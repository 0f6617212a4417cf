package storetest

import (
	"context"
	"slices"
	"testing"

	"fieldapi/engine/store"
)

// inRows: a condition on the rows another select finds (store.InRowsOf)
// matches the values of that select's column, in the same company: a
// Seq, or a column of another table; none when it finds nothing. A select
// that is not one column, unordered and whole is refused.
func inRows(t *testing.T, s store.Store) {
	seqs := insert(t, s, acme, store.Values{"Code": "r1", "Price": 1.0}, store.Values{"Code": "r2", "Price": 5.0}, store.Values{"Code": "r3", "Price": 9.0})
	insert(t, s, other, store.Values{"Code": "r2", "Price": 5.0})
	insertInto(t, s, numberedTable, acme, store.Values{"Code": "r2"}, store.Values{"Code": "r3"}, store.Values{"Code": "n9"})

	bySeq := selectRows(t, s, store.Select{Company: acme, Where: []store.Cond{
		store.InRowsOf(store.SeqField, store.Select{Table: itemsTable, Company: acme, Where: []store.Cond{store.Equal("Code", "r2")}}, store.SeqField)}})
	if len(bySeq) != 1 || bySeq[0].Seq != seqs[1] {
		t.Errorf("items whose Seq is r2's: %v, want the one of Seq %d", codes(bySeq), seqs[1])
	}
	numbered := selectRows(t, s, store.Select{Table: numberedTable, Company: acme, Where: []store.Cond{
		store.InRowsOf("Code", store.Select{Table: itemsTable, Company: acme, Where: []store.Cond{{Field: "Price", Op: store.Gt, Value: 2.0}}}, "Code")}})
	if got := codes(numbered); !slices.Equal(slices.Sorted(slices.Values(got)), []string{"r2", "r3"}) {
		t.Errorf("numbered rows whose Code an item over 2 has: %v, want [r2 r3]", got)
	}
	none := selectRows(t, s, store.Select{Company: acme, Where: []store.Cond{
		store.InRowsOf(store.SeqField, store.Select{Table: itemsTable, Company: acme, Where: []store.Cond{store.Equal("Code", "absent")}}, store.SeqField)}})
	if len(none) != 0 {
		t.Errorf("items in the rows of a select that finds none: %v, want none", codes(none))
	}
	limited := store.InRowsOf(store.SeqField, store.Select{Table: itemsTable, Company: acme, Limit: 1}, store.SeqField)
	if _, err := s.Select(context.Background(), store.Select{Table: itemsTable, Company: acme, Where: []store.Cond{limited}}); err == nil {
		t.Errorf("InRows of a select with a limit: no error, want it refused")
	}
}
