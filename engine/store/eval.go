package store

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// What a Select means, evaluated over Values in Go: the conditions, the
// orders and (expr.go) the expressions, with SQL's rules, for a store
// that runs no SQL (memstore, or an adapter to a business system) to read
// rows as the SQL store does. Values are as Values holds them: nil for
// NULL, else the column's Go type.

// Operands are c's operands as given: Value for the comparisons, Values
// for In and NotIn, none for the rest. It refuses an unknown operator and
// a Contains or Prefix without a string.
func Operands(c Cond) ([]any, error) {
	switch c.Op {
	case Eq, Lt, Le, Gt, Ge:
		return []any{c.Value}, nil
	case Contains, Prefix:
		if _, isText := c.Value.(string); !isText {
			return nil, fmt.Errorf("Contains or Prefix on %s takes a string, not a %T", c.Field, c.Value)
		}
		return nil, nil
	case IsNull, NotNull:
		return nil, nil
	case In, NotIn:
		return c.Values, nil
	}
	return nil, fmt.Errorf("unknown condition operator %d on %s", c.Op, c.Field)
}

// Matcher is c as a test of a column's value, with SQL's NULL rules: a
// NULL meets no comparison, IN and NOT IN ignore a NULL operand except
// that NOT IN (…, NULL) holds for no value. operands are Operands(c), in
// the column's Go type.
func Matcher(c Cond, operands []any) func(v any) bool {
	text, _ := c.Value.(string)
	lower := strings.ToLower(text)
	return func(v any) bool {
		s, isText := v.(string)
		switch c.Op {
		case IsNull, NotNull:
			return (v == nil) == (c.Op == IsNull)
		case Contains:
			return isText && strings.Contains(strings.ToLower(s), lower)
		case Prefix:
			return isText && strings.HasPrefix(s, text)
		case In:
			return slices.ContainsFunc(operands, func(w any) bool { return SameValue(v, w) })
		case NotIn:
			return v == nil || !slices.ContainsFunc(operands, func(w any) bool { return w == nil || SameValue(v, w) })
		}
		if v == nil || operands[0] == nil { // = nil is IS NULL; < NULL and the like never hold
			return v == nil && operands[0] == nil && c.Op == Eq
		}
		n := Compare(v, operands[0])
		return [...]bool{Eq: n == 0, Lt: n < 0, Le: n <= 0, Gt: n > 0, Ge: n >= 0}[c.Op]
	}
}

// CompareRows compares two rows as orders sort them.
func CompareRows(orders []Order, a, b Values) int {
	for _, o := range orders {
		x, y := a[o.Field], b[o.Field]
		n := Compare(x, y)
		if o.Desc || o.NullsLast && (x == nil || y == nil) {
			n = -n // Compare puts NULL first; NullsLast puts it last either way
		}
		if n != 0 {
			return n
		}
	}
	return 0
}

// SameValue reports whether two values of one column are equal, neither
// NULL.
func SameValue(a, b any) bool { return a != nil && b != nil && Compare(a, b) == 0 }

// Compare orders two values of one column: NULL first, text by code
// point, numbers numerically, bytes bytewise, the rest (false before
// true, lists, objects) by their JSON text, as the SQL store keeps them.
func Compare(a, b any) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	switch x := a.(type) {
	case string:
		return cmp.Compare(x, b.(string))
	case float64:
		return cmp.Compare(x, b.(float64))
	case int64:
		return cmp.Compare(x, b.(int64))
	case []byte:
		return bytes.Compare(x, b.([]byte))
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Compare(ja, jb)
}
