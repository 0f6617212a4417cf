package store

import "fmt"

// CheckAfter checks a Select's After against its OrderBy: one value per
// key, and a NULL only on a key that sorts NULLs last (elsewhere where a
// NULL goes is the store's choice, so no row can be said to follow it).
func CheckAfter(q Select) error {
	if q.After == nil {
		return nil
	}
	if len(q.After) != len(q.OrderBy) {
		return fmt.Errorf("store: After has %d values for %d order keys", len(q.After), len(q.OrderBy))
	}
	for i, o := range q.OrderBy {
		if q.After[i] == nil && !o.NullsLast {
			return fmt.Errorf("store: After is NULL on order key %s, which does not sort NULLs last", o.Field)
		}
	}
	return nil
}
