package memstore

import (
	"context"

	"fieldapi/engine/store"
)

// Estimate counts: a memory store's count is as cheap as any estimate.
func (s *Store) Estimate(ctx context.Context, q store.Select) (int64, bool, error) {
	n, err := s.Count(ctx, q)
	return n, true, err
}

// Estimate counts in the transaction.
func (tx *Tx) Estimate(ctx context.Context, q store.Select) (int64, bool, error) {
	n, err := tx.Count(ctx, q)
	return n, true, err
}
