package storetest

import (
	"context"
	"testing"

	"fieldapi/engine/store"
)

// estimates: Estimate honours the conditions; a store that says its
// number is exact answers Count's, and an estimate is never negative.
func estimates(t *testing.T, s store.Store) {
	insert(t, s, acme, store.Values{"Code": "e1", "Day": "2026-01-01"}, store.Values{"Code": "e2", "Day": "2026-01-02"},
		store.Values{"Code": "e3", "Day": "2026-01-03"})
	insert(t, s, other, store.Values{"Code": "e4", "Day": "2026-01-03"})
	sel := store.Select{Table: itemsTable, Company: acme, Where: []store.Cond{{Field: "Day", Op: store.Ge, Value: "2026-01-02"}}}
	n, exact, err := store.Estimate(context.Background(), s, sel)
	if err != nil {
		t.Fatal(err)
	}
	if n < 0 || (exact && n != 2) {
		t.Errorf("Estimate = %d (exact %v); want 2 when exact, never negative", n, exact)
	}
}
