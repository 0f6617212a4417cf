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
	sel := store.Select{Table: r.Reg.Name, Company: company, Where: where}
	switch {
	case len(where) == 0:
		n, err := e.store.Counted(ctx, r.Reg.Name, company)
		return int(n), false, err
	case mode != engine.CountEstimated:
		n, err := e.store.Count(ctx, sel)
		return int(n), false, err
	}
	n, exact, err := store.Estimate(ctx, e.store, sel)
	return int(n), !exact, err
}
