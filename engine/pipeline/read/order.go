package read

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"fieldapi/catalog"
	"fieldapi/engine"
	"fieldapi/engine/pipeline/registers"
	"fieldapi/engine/store"
)

// order sets a list's order and where it continues. Without sort keys it
// is newest first and a cursor is a range of Seq, as it always was. With
// them it is those keys, rows without a value last, then newest first to
// break ties; a cursor is a keyset on the keys and the Seq, so a walk
// stays complete and free of repeats under any allowed sort.
func order(r *registers.Register, sel *store.Select, q engine.Query) error {
	if len(q.Sort) == 0 {
		sel.OrderBy = newestFirst
		if q.After != nil {
			sel.Where = append(slices.Clip(sel.Where), store.Cond{Field: store.SeqField, Op: store.Lt, Value: *q.After})
		}
		return nil
	}
	if q.After != nil && len(q.AfterKeys) != len(q.Sort) {
		return fmt.Errorf("%s: a cursor of %d sort values for %d sort keys", r.Reg.Name, len(q.AfterKeys), len(q.Sort))
	}
	sel.OrderBy = make([]store.Order, 0, len(q.Sort)+1)
	for i, k := range q.Sort {
		f := r.Reg.Field(k.Field)
		if f == nil || !f.Sortable {
			return fmt.Errorf("%s: %q is not a sortable field", r.Reg.Name, k.Field)
		}
		sel.OrderBy = append(sel.OrderBy, store.Order{Field: sortColumn(r, f), Desc: k.Desc, NullsLast: true})
		if sortColumn(r, f) != store.SeqField {
			// A narrowed read still reads what it sorts by: the next cursor
			// holds the last record's values of it.
			sel.Columns = withColumn(sel.Columns, f.Name)
		}
		if q.After != nil {
			v, err := sortValue(r, f, q.AfterKeys[i])
			if err != nil {
				return err
			}
			sel.After = append(sel.After, v)
		}
	}
	sel.OrderBy = append(sel.OrderBy, store.Order{Field: store.SeqField, Desc: true})
	if q.After != nil {
		sel.After = append(sel.After, *q.After)
	}
	return nil
}

// sortColumn is the store field a sortable field is ordered by: the Seq
// for the key of an engine-keyed register, which is its Seq.
func sortColumn(r *registers.Register, f *catalog.Field) string {
	if r.EngineKeyed && f == r.Key {
		return store.SeqField
	}
	return f.Name
}

// sortValue is a cursor's sort value typed as the store keeps the field.
func sortValue(r *registers.Register, f *catalog.Field, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	if r.EngineKeyed && f == r.Key {
		seq, err := strconv.ParseInt(fmt.Sprint(v), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: cursor value %v of %s is no key", r.Reg.Name, v, f.Name)
		}
		return seq, nil
	}
	n, err := f.Normalize(v)
	if err != nil {
		return nil, fmt.Errorf("%s: cursor value of %s: %w", r.Reg.Name, f.Name, err)
	}
	return n, nil
}

// sortValues are a record's values of the sort keys, for the cursor that
// continues after it.
func sortValues(sort []engine.SortKey, rec engine.Record) []any {
	if len(sort) == 0 {
		return nil
	}
	values := make([]any, len(sort))
	for i, k := range sort {
		values[i] = rec[k.Field]
	}
	return values
}

// fetchPage reads one page of a list. Past a cursor whose first sort value
// is set it reads two index ranges, since the keyset's OR bounds none: the
// rows with a value from the cursor's, then, to fill the page, the rows
// without one (which all come after).
func (e *Reads) fetchPage(ctx context.Context, r *registers.Register, sel store.Select, sh readShape) ([]engine.Record, []int64, error) {
	if sel.After == nil || sel.After[0] == nil || sel.OrderBy[0].Field == store.SeqField || sel.Offset > 0 {
		return e.fetchAs(ctx, e.store, r, sel, sh)
	}
	first := sel.OrderBy[0]
	bound := store.Cond{Field: first.Field, Op: store.Ge, Value: sel.After[0]}
	if first.Desc {
		bound.Op = store.Le
	}
	valued := sel
	valued.Where = append(slices.Clip(sel.Where), bound)
	recs, seqs, err := e.fetchAs(ctx, e.store, r, valued, sh)
	if err != nil || sel.Limit <= 0 || len(recs) >= sel.Limit {
		return recs, seqs, err
	}
	empty := sel
	empty.Where = append(slices.Clip(sel.Where), store.Cond{Field: first.Field, Op: store.IsNull})
	empty.After, empty.Limit = nil, sel.Limit-len(recs)
	more, moreSeqs, err := e.fetchAs(ctx, e.store, r, empty, sh)
	return append(recs, more...), append(seqs, moreSeqs...), err
}
