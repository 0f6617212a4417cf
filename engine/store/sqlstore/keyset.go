package sqlstore

import (
	"strings"

	"fieldapi/engine/store"
)

// keyset writes the condition of a Select's After: the rows after the
// row whose order-key values After holds. For keys k1..kn it is
//
//	k1 after v1 OR (k1 = v1 AND k2 after v2) OR ...
//
// where "after" is > (ascending) or < (descending), and, on a key that
// sorts NULLs last, also "or k IS NULL" when v is a value; after a NULL
// nothing follows on that key and "=" is IS NULL. Values are bound, as
// every value is.
func (t *table) keyset(b *strings.Builder, sel store.Select, args []any) ([]any, error) {
	if err := store.CheckAfter(sel); err != nil {
		return nil, err
	}
	b.WriteString("(")
	terms := 0
	for i, o := range sel.OrderBy {
		if sel.After[i] == nil {
			continue // nothing sorts after a NULL on its key
		}
		if terms > 0 {
			b.WriteString(" OR ")
		}
		terms++
		b.WriteString("(")
		var err error
		for j := range i { // the keys before equal (Equal to NULL is IS NULL)
			if args, err = t.condition(b, store.Equal(sel.OrderBy[j].Field, sel.After[j]), args); err != nil {
				return nil, err
			}
			b.WriteString(" AND ")
		}
		after := store.Cond{Field: o.Field, Op: store.Gt, Value: sel.After[i]}
		if o.Desc {
			after.Op = store.Lt
		}
		if o.NullsLast {
			b.WriteString("(")
		}
		if args, err = t.condition(b, after, args); err != nil {
			return nil, err
		}
		if o.NullsLast {
			col, _, _ := t.column(o.Field) // condition found it
			b.WriteString(" OR " + col + " IS NULL)")
		}
		b.WriteString(")")
	}
	if terms == 0 {
		b.WriteString("1 = 0")
	}
	b.WriteString(")")
	return args, nil
}
