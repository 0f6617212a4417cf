package memstore

import (
	"slices"

	"fieldapi/engine/store"
)

// orderCompare compares two rows' order-key values as orders sort them:
// a NULL compares as the smallest value, unless its key sorts NULLs last.
func orderCompare(orders []store.Order, a, b []any) int {
	for i, o := range orders {
		x, y := a[i], b[i]
		var n int
		switch {
		case o.NullsLast && (x == nil) != (y == nil):
			n = map[bool]int{true: 1, false: -1}[x == nil] // NULL after, either direction
		case o.Desc:
			n = -compare(x, y)
		default:
			n = compare(x, y)
		}
		if n != 0 {
			return n
		}
	}
	return 0
}

// sortAndSkip orders rows by q.OrderBy and, with q.After, drops those
// not after it.
func (t *table) sortAndSkip(q store.Select, rows []*row) ([]*row, error) {
	if err := store.CheckAfter(q); err != nil {
		return nil, err
	}
	gets := make([]func(*row) any, len(q.OrderBy))
	for i, o := range q.OrderBy {
		var err error
		if gets[i], err = t.getter(o.Field); err != nil {
			return nil, err
		}
	}
	keys := make(map[*row][]any, len(rows))
	for _, r := range rows {
		k := make([]any, len(gets))
		for i, get := range gets {
			k[i] = get(r)
		}
		keys[r] = k
	}
	slices.SortStableFunc(rows, func(a, b *row) int { return orderCompare(q.OrderBy, keys[a], keys[b]) })
	if q.After == nil {
		return rows, nil
	}
	kept := rows[:0]
	for _, r := range rows {
		if orderCompare(q.OrderBy, keys[r], q.After) > 0 {
			kept = append(kept, r)
		}
	}
	return kept, nil
}
