package docspage

import (
	"strings"

	"fieldapi/catalog"
	"fieldapi/codegen/model"
	"fieldapi/codegen/openapi"
	"fieldapi/engine"
	"fieldapi/runtime"
)

// opFilterRows describe a filter's operators, one row each, typed as
// the list operation's parameter.
func opFilterRows(r *model.Register, fl *catalog.Filter, list *openapi.Operation, links schemaLinks) []docsFilter {
	var rows []docsFilter
	f := r.Field(fl.Field)
	for _, op := range fl.Ops {
		row := docsFilter{Param: runtime.OpParam(fl.Param, string(op)), Type: "text", Meaning: model.OpMeaning(f, op)}
		if list != nil {
			for _, p := range list.Parameters {
				if p.Name == row.Param && p.In == "query" {
					row.Type, _ = links.typeOf(p.Schema)
				}
			}
		}
		if op == catalog.OpIn && len(f.Enum) > 0 {
			row.Meaning += " Values: " + strings.Join(f.Enum, ", ") + "."
		}
		rows = append(rows, row)
	}
	return rows
}

// sortRows describe sort= of a register with sortable fields.
func sortRows(r *model.Register) []docsFilter {
	var names []string
	for _, f := range r.SortableFields() {
		names = append(names, f.Name)
	}
	if len(names) == 0 {
		return nil
	}
	return []docsFilter{{Param: engine.SortParam, Type: "text",
		Meaning: "Order by these fields, comma-separated, - before one for descending (see paging): " + strings.Join(names, ", ") + ". Example: sort=-" + catalog.WriteName(names[0]) + "."}}
}
