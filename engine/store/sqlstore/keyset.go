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
		v := sel.After[i]
		if v == nil {
			continue // nothing sorts after a NULL on its key
		}
		if terms > 0 {
			b.WriteString(" OR ")
		}
		terms++
		b.WriteString("(")
		for j := range i {
			col, column, err := t.column(sel.OrderBy[j].Field)
			if err != nil {
				return nil, err
			}
			if sel.After[j] == nil {
				b.WriteString(col + " IS NULL AND ")
			} else {
				b.WriteString(col + " = ? AND ")
				args = append(args, toDB(column, sel.After[j]))
			}
		}
		col, column, err := t.column(o.Field)
		if err != nil {
			return nil, err
		}
		cmp := " > ?"
		if o.Desc {
			cmp = " < ?"
		}
		if o.NullsLast {
			b.WriteString("(" + col + cmp + " OR " + col + " IS NULL)")
		} else {
			b.WriteString(col + cmp)
		}
		args = append(args, toDB(column, v))
		b.WriteString(")")
	}
	if terms == 0 {
		b.WriteString("1 = 0")
	}
	b.WriteString(")")
	return args, nil
}
