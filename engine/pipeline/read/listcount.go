package read

import (
	"context"

	"fieldapi/engine"
	"fieldapi/engine/pipeline/registers"
	"fieldapi/engine/store"
)

// listTotal is a list's total as its count mode asks: exact, or the
// store's estimate when the list is filtered. Unfiltered, the count the
// store keeps is exact and one row read, so no estimate is asked for.
// estimated is true only when the number is an estimate.
func (e *Reads) listTotal(ctx context.Context, r *registers.Register, company string, where []store.Cond, mode engine.CountMode) (total int, estimated bool, err error) {
	if mode != engine.CountEstimated || len(where) == 0 {
		n, err := e.total(ctx, r, company, where)
		return n, false, err
	}
	n, exact, err := store.Estimate(ctx, e.store, store.Select{Table: r.Reg.Name, Company: company, Where: where})
	return int(n), !exact, err
}
