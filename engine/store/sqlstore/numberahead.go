package sqlstore

import (
	"context"

	"fieldapi/engine/sqldb"
	"fieldapi/engine/store"
)

// SelectEachTakingNumber runs the selects and, on PostgreSQL, the
// nextval of the series' sequence with its check, in one round trip
// outside any transaction: a sequence hands out numbers outside
// transactions anyway. A sequence not known to exist yet is made by the
// first create's transaction (Tx.sequence), and SQLite's series is a row
// its writes update in their transaction: then no number is taken.
func (s *Store) SelectEachTakingNumber(ctx context.Context, qs []store.Select, of store.NumberOf) ([][]store.Row, *store.TakenNumber, error) {
	seq := sequenceName(of.Company, of.Series)
	if _, known := s.sequences.Load(seq); !known || !s.db.Dialect().Postgres() {
		rows, err := s.SelectEach(ctx, qs)
		return rows, nil, err
	}
	number, err := s.nextFreeQuery(of.Company, seq, of.Table, of.Field)
	if err != nil {
		return nil, nil, err
	}
	queries, selects, err := s.selectsAfter(make([]sqldb.Query, 0, len(qs)+1), qs, false)
	if err != nil {
		return nil, nil, err
	}
	var next freeNumber
	err = s.db.ReadEach(ctx, append(queries, number), func(i int, r sqldb.Rows) error {
		if i < len(qs) {
			return selects.scan(i, r)
		}
		for r.Next() {
			if err := next.scan(r); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return selects.rows, &store.TakenNumber{N: next.N, Free: !next.Used}, nil
}
