package openapi

import (
	"strings"

	"fieldapi/catalog"
	"fieldapi/codegen/model"
	"fieldapi/engine"
	"fieldapi/runtime"
)

// listShapeParameters are the list parameters of issue 23: each filter's
// operators as parameters of their own (param[op], typed by the field),
// and count.
func listShapeParameters(r *model.Register) []*Parameter {
	var params []*Parameter
	for _, fl := range r.Filters {
		f := r.Field(fl.Field)
		for _, op := range fl.Ops {
			params = append(params, opParameter(fl, f, op))
		}
	}
	if p := sortParameter(r); p != nil {
		params = append(params, p)
	}
	modes := make([]any, len(runtime.CountModes))
	for i, m := range runtime.CountModes {
		modes[i] = m
	}
	return append(params, &Parameter{Name: engine.CountParam, In: "query", Schema: &Schema{Type: types("string"), Enum: modes},
		Description: "How to count total: exact (default), estimated (from the database's statistics; the page then says totalEstimated: true when total is an estimate) or none (total is null, nothing is counted)."})
}

// opParameter is param[op] of one filter operator.
func opParameter(fl *catalog.Filter, f *catalog.Field, op catalog.FilterOp) *Parameter {
	p := &Parameter{Name: runtime.OpParam(fl.Param, string(op)), In: "query", Description: model.OpMeaning(f, op)}
	switch op {
	case catalog.OpIsNull:
		p.Schema = &Schema{Type: types("boolean")}
	case catalog.OpPrefix:
		p.Schema = &Schema{Type: types("string"), MinLength: ptr(1)}
	case catalog.OpIn:
		p.Schema = &Schema{Type: types("array"), Items: valueSchema(f), MinItems: ptr(1)}
		p.Style, p.Explode = "form", ptr(false)
	default:
		p.Schema = valueSchema(f)
		p.Schema.Enum = nil
	}
	return p
}

// sortParameter is sort= of a register with sortable fields: a pattern
// admitting exactly their names (PascalCase or camelCase, - for
// descending) in a comma list.
func sortParameter(r *model.Register) *Parameter {
	sortable := r.SortableFields()
	if len(sortable) == 0 {
		return nil
	}
	var names, alts []string
	for _, f := range sortable {
		names = append(names, f.Name)
		alts = append(alts, f.Name, catalog.WriteName(f.Name))
	}
	one := "-?(" + strings.Join(alts, "|") + ")"
	return &Parameter{Name: engine.SortParam, In: "query",
		Schema: &Schema{Type: types("string"), Pattern: "^" + one + "(," + one + ")*$", Examples: []any{"-" + names[0]}},
		Description: "Order by these fields, a comma list, - before a field for descending: " + strings.Join(names, ", ") +
			" (or camelCase). Records without a value come last either way; ties and the default are newest first. A cursor continues in the order it was made for."}
}
