package storetest

import (
	"slices"
	"testing"

	"fieldapi/engine/store"
)

// keysetWalks: OrderBy with NullsLast puts rows without a value last in
// either direction, and a walk by After in pages of two reads every row
// once, in that order, across ties and NULLs, on text and number keys.
func keysetWalks(t *testing.T, s store.Store) {
	insert(t, s, acme,
		store.Values{"Code": "k1", "Day": "2026-01-02", "Price": 2.0}, store.Values{"Code": "k2"},
		store.Values{"Code": "k3", "Day": "2026-01-01", "Price": 1.0}, store.Values{"Code": "k4", "Day": "2026-01-02", "Price": 2.0},
		store.Values{"Code": "k5", "Price": 3.0}, store.Values{"Code": "k6", "Day": "2026-01-03"},
		store.Values{"Code": "k7", "Day": "2026-01-02", "Price": 1.0})
	insert(t, s, other, store.Values{"Code": "k8", "Day": "2026-01-02"})
	newest := store.Order{Field: store.SeqField, Desc: true}
	for _, c := range []struct {
		name  string
		order []store.Order
		want  []string
	}{
		{"day", []store.Order{{Field: "Day", NullsLast: true}, newest}, []string{"k3", "k7", "k4", "k1", "k6", "k5", "k2"}},
		{"-day", []store.Order{{Field: "Day", Desc: true, NullsLast: true}, newest}, []string{"k6", "k7", "k4", "k1", "k3", "k5", "k2"}},
		{"-price,day", []store.Order{{Field: "Price", Desc: true, NullsLast: true}, {Field: "Day", NullsLast: true}, newest}, []string{"k5", "k4", "k1", "k3", "k7", "k6", "k2"}},
		{"seq", []store.Order{{Field: store.SeqField}}, []string{"k1", "k2", "k3", "k4", "k5", "k6", "k7"}},
	} {
		all := codes(selectRows(t, s, store.Select{Company: acme, OrderBy: c.order}))
		if !slices.Equal(all, c.want) {
			t.Errorf("%s: order %v; want %v", c.name, all, c.want)
		}
		var walked []string
		var after []any
		for pages := 0; pages < 10; pages++ {
			rows := selectRows(t, s, store.Select{Company: acme, OrderBy: c.order, After: after, Limit: 2})
			if len(rows) == 0 {
				break
			}
			walked = append(walked, codes(rows)...)
			last := rows[len(rows)-1]
			after = make([]any, len(c.order))
			for i, o := range c.order {
				if o.Field == store.SeqField {
					after[i] = last.Seq
				} else {
					after[i] = last.Values[o.Field]
				}
			}
		}
		if !slices.Equal(walked, c.want) {
			t.Errorf("%s: walk by After read %v; want %v", c.name, walked, c.want)
		}
	}
}
