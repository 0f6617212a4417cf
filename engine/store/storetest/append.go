package storetest

import (
	"context"
	"errors"
	"slices"
	"testing"

	"fieldapi/engine/store"
)

// appendRows: rows added by store.Append are stored as Insert stores them,
// in order after the rows before them, counted in a Counted table, seen
// by the transaction's reads after them, and gone with a rollback.
func appendRows(t *testing.T, s store.Store) {
	ctx := context.Background()
	insert(t, s, acme, store.Values{"Code": "a0"})
	write(t, s, func(ctx context.Context, tx store.Tx) error {
		if err := store.Append(ctx, tx, itemsTable, acme, []store.Values{{"Code": "a1", "Price": 1.5}, {"Code": "a2"}}); err != nil {
			return err
		}
		rows, err := tx.Select(ctx, store.Select{Table: itemsTable, Company: acme, OrderBy: []store.Order{{Field: store.SeqField}}})
		if err != nil {
			return err
		}
		if got := codes(rows); !slices.Equal(got, []string{"a0", "a1", "a2"}) {
			t.Errorf("read after Append in its transaction: %v, want [a0 a1 a2]", got)
		}
		return store.Append(ctx, tx, itemsTable, acme, []store.Values{{"Code": "a3"}})
	})
	rows := selectRows(t, s, store.Select{Company: acme, OrderBy: []store.Order{{Field: store.SeqField}}})
	if got := codes(rows); !slices.Equal(got, []string{"a0", "a1", "a2", "a3"}) {
		t.Fatalf("after the commit: %v, want [a0 a1 a2 a3] in Seq order", got)
	}
	if rows[1].Values["Price"] != 1.5 {
		t.Errorf("appended a1's Price: %v, want 1.5", rows[1].Values["Price"])
	}
	refused := errors.New("refused")
	if err := s.Write(ctx, func(ctx context.Context, tx store.Tx) error {
		if err := store.Append(ctx, tx, itemsTable, acme, []store.Values{{"Code": "gone"}}); err != nil {
			return err
		}
		return refused
	}); !errors.Is(err, refused) {
		t.Errorf("Write whose function refused after an Append: %v, want its error", err)
	}
	if n, err := s.Counted(ctx, itemsTable, acme); err != nil || n != 4 {
		t.Errorf("Counted after appending 3 and rolling 1 back: %d, %v; want 4", n, err)
	}
}
