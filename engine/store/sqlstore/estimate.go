package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"
	"math"

	"fieldapi/engine/sqldb"
	"fieldapi/engine/store"
)

// Estimate estimates the rows matching a Select's conditions outside a
// transaction.
func (s *Store) Estimate(ctx context.Context, q store.Select) (int64, bool, error) {
	var exact bool
	n, err := read(ctx, s, func(ctx context.Context, db sqldb.Querier) (n int64, err error) {
		n, exact, err = s.estimate(ctx, db, q)
		return n, err
	})
	return n, exact, err
}

// Estimate estimates in the transaction.
func (t *Tx) Estimate(ctx context.Context, q store.Select) (int64, bool, error) {
	return t.s.estimate(ctx, t.tx, q)
}

// estimate asks PostgreSQL's planner for its row estimate of the
// conditions (EXPLAIN plans without running, so it honours every
// condition at the cost of planning). SQLite keeps no statistics it can
// answer this from without ANALYZE, so it counts: exact.
func (s *Store) estimate(ctx context.Context, q sqldb.Querier, sel store.Select) (int64, bool, error) {
	if !s.db.Dialect().Postgres() {
		n, err := s.count(ctx, q, sel)
		return n, true, err
	}
	_, query, args, err := s.filtered("EXPLAIN (FORMAT JSON) SELECT 1 FROM ", sel)
	if err != nil {
		return 0, false, err
	}
	var plan string
	if err := sqldb.Get(ctx, q, &plan, query, args...); err != nil {
		return 0, false, err
	}
	var explained []struct {
		Plan struct {
			Rows float64 `json:"Plan Rows"`
		} `json:"Plan"`
	}
	if err := json.Unmarshal([]byte(plan), &explained); err != nil || len(explained) != 1 {
		return 0, false, fmt.Errorf("sqlstore: unexpected EXPLAIN answer %.200q", plan)
	}
	return int64(math.Round(explained[0].Plan.Rows)), false, nil
}
