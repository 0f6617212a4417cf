package storetest

import (
	"fmt"
	"maps"
	"reflect"
	"testing"

	"fieldapi/engine/store"
)

// insertShapes: inserts into one table that set other columns, name
// them in another order, number their rows or not, and carry one row or
// two, each store exactly the values they give, however often a shape
// comes back (a store that remembers its statements must key them by
// every part of their shape).
func insertShapes(t *testing.T, s store.Store) {
	shapes := []store.Values{
		{"Code": "a", "Price": 1.5},
		{"Price": 2.5, "Code": "b"},
		{"Code": "c", "Name": "n"},
		{"Name": "only a name"},
		{"Code": "d", "Stock": int64(4), "Day": "2026-11-28"},
		{"Code": "e", "Ref": "given"},
		{"Code": "f", "Ref": nil},
	}
	for round := range 3 {
		for i, shape := range shapes {
			var rows []store.Values
			for n := range 1 + round%2 { // one row, then two, then one
				row := maps.Clone(shape)
				if code, ok := row["Code"].(string); ok {
					row["Code"] = fmt.Sprintf("%s-%d-%d", code, round, n)
				}
				rows = append(rows, row)
			}
			seqs := insertInto(t, s, numberedTable, acme, rows...)
			got := selectRows(t, s, store.Select{Table: numberedTable, Company: acme, Where: []store.Cond{store.OneOf(store.SeqField, seqs)},
				OrderBy: []store.Order{{Field: store.SeqField}}})
			if len(got) != len(rows) {
				t.Fatalf("round %d, shape %d: read %d rows of %d", round, i, len(got), len(rows))
			}
			for j, r := range got {
				want := maps.Clone(rows[j])
				if v, ok := want["Ref"]; !ok || v == nil {
					want["Ref"] = store.SeqText(r.Seq)
				}
				for field, v := range want {
					if !reflect.DeepEqual(r.Values[field], v) {
						t.Fatalf("round %d, shape %d, row %d: %s = %#v, want %#v (read %v)", round, i, j, field, r.Values[field], v, r.Values)
					}
				}
			}
		}
	}
}
