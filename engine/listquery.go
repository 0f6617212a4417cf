package engine

// The list query's additions to Query for counting, range filters and
// sorting (issue 23): declared here so Query itself stays short.

// CountMode says how a list counts its total.
type CountMode uint8

// The count modes.
const (
	CountExact     CountMode = iota // count every matching row (the default)
	CountEstimated                  // the store's estimate; Page.TotalEstimated says when it is one
	CountNone                       // no total: Page.Total is nil
)

// The operators of range filters (catalog filter ops).
const (
	OpGt     Op = "gt"     // Field > Values[0]
	OpGte    Op = "gte"    // Field >= Values[0]
	OpLt     Op = "lt"     // Field < Values[0]
	OpLte    Op = "lte"    // Field <= Values[0]
	OpPrefix Op = "prefix" // text Field starts with Values[0]
	OpIsNull Op = "isnull" // Values[0] true: Field has no value; false: it has one
)

// SortKey is one key of a list's order: a field the catalog marks
// sortable. Rows without a value sort last in either direction.
type SortKey struct {
	Field string
	Desc  bool
}
