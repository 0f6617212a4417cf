package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"fieldapi/engine/sqldb"
	"fieldapi/engine/store"
)

// Estimate estimates the rows matching a Select's conditions outside a
// transaction.
func (s *Store) Estimate(ctx context.Context, q store.Select) (int64, bool, error) {
	var n int64
	var exact bool
	err := s.db.Read(ctx, func(ctx context.Context, db sqldb.Querier) error {
		var err error
		n, exact, err = s.estimate(ctx, db, q)
		return err
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
	t, err := s.table(sel.Table)
	if err != nil {
		return 0, false, err
	}
	var b strings.Builder
	b.WriteString("EXPLAIN (FORMAT JSON) SELECT 1 FROM ")
	b.WriteString(t.name)
	args, err := s.where(&b, t, sel.Company, sel.Where, nil)
	if err != nil {
		return 0, false, err
	}
	var plan string
	if err := sqldb.Get(ctx, q, &plan, b.String(), args...); err != nil {
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
