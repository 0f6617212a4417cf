package catalog

import (
	"fmt"
	"slices"

	"fieldapi/engine"
)

// FilterOp is an operator a filter allows besides its match, given as
// param[op]=value (issue 23): ?planStartDate[gte]=2026-11-01. Its name is
// the engine's condition operator (engine.Op), so the parameter, the YAML
// and the engine query spell it once.
type FilterOp string

// The filter operators.
const (
	OpGt     = FilterOp(engine.OpGt)     // field > value
	OpGte    = FilterOp(engine.OpGte)    // field >= value
	OpLt     = FilterOp(engine.OpLt)     // field < value
	OpLte    = FilterOp(engine.OpLte)    // field <= value
	OpIn     = FilterOp(engine.OpIn)     // field is one of a comma-separated list
	OpIsNull = FilterOp(engine.OpIsNull) // true: the field has no value; false: it has one
	OpPrefix = FilterOp(engine.OpPrefix) // the field starts with the value, exactly
)

// FilterOps are the operators, in the order documents list them.
var FilterOps = []FilterOp{OpGt, OpGte, OpLt, OpLte, OpIn, OpIsNull, OpPrefix}

// opTypes are the field types each operator compares. Dates are kept as
// sent (ISO 8601), so they compare as text does, in time order.
var opTypes = map[FilterOp][]FieldType{
	OpGt: {Date, Number, Text}, OpGte: {Date, Number, Text}, OpLt: {Date, Number, Text}, OpLte: {Date, Number, Text},
	OpIn: {Text, Number}, OpIsNull: {Text, Number, Date, Bool}, OpPrefix: {Text, Date},
}

// sortableTypes are the field types a list may be sorted by.
var sortableTypes = []FieldType{Text, Number, Date, Bool}

// validateListQuery checks the filter operators and sortable fields.
func (r *Register) validateListQuery(fields map[string]*Field) error {
	for _, fl := range r.Filters {
		f := fields[fl.Field]
		if len(fl.Ops) > 0 && (fl.Match == Hides || fl.Negate) {
			return fmt.Errorf("filter %s: ops need a filter that compares the field (not hides or negate)", fl.Param)
		}
		for i, op := range fl.Ops {
			types, known := opTypes[op]
			if !known {
				return fmt.Errorf("filter %s: unknown op %q (want one of %s)", fl.Param, op, join(FilterOps))
			}
			if slices.Contains(fl.Ops[:i], op) {
				return fmt.Errorf("filter %s: op %s is given twice", fl.Param, op)
			}
			if !slices.Contains(types, f.Type) {
				return fmt.Errorf("filter %s: op %s needs a field of type %s, %s is %s", fl.Param, op, join(types), f.Name, f.Type)
			}
		}
	}
	for _, f := range r.Fields {
		if f.Sortable && !slices.Contains(sortableTypes, f.Type) {
			return fmt.Errorf("field %s: sortable needs a field of type %s, not %s", f.Name, join(sortableTypes), f.Type)
		}
	}
	return nil
}

// SortableFields are the fields a list may be sorted by, in catalog order.
func (r *Register) SortableFields() []*Field {
	var sortable []*Field
	for _, f := range r.Fields {
		if f.Sortable {
			sortable = append(sortable, f)
		}
	}
	return sortable
}
