package httplayer

import (
	"github.com/dave/jennifer/jen"

	"fieldapi/catalog"
	"fieldapi/codegen/model"
)

// filterOpValues are a filter's Ops and, with them, its field's Enum
// (the values in and the others check against), when it has ops.
func filterOpValues(r *model.Register, fl *catalog.Filter) []jen.Code {
	if len(fl.Ops) == 0 {
		return nil
	}
	ops := make([]string, len(fl.Ops))
	for i, op := range fl.Ops {
		ops[i] = string(op)
	}
	vals := []jen.Code{jen.Id("Ops").Op(":").Add(stringSlice(ops))}
	if f := r.Field(fl.Field); f != nil && len(f.Enum) > 0 {
		vals = append(vals, jen.Id("Enum").Op(":").Add(stringSlice(f.Enum)))
	}
	return vals
}

// sortableVar emits the fields the list may be sorted by:
//
//	// taskSortable are the fields GET /v1/tasks sorts by (sort=).
//	var taskSortable = []runtime.SortField{{Name: "Nr", Kind: runtime.KindText}, ...}
func sortableVar(f *jen.File, r *model.Register) {
	var items []jen.Code
	for _, sf := range r.SortableFields() {
		items = append(items, jen.Line().Values(jen.Id("Name").Op(":").Lit(sf.Name), jen.Id("Kind").Op(":").Qual(runtimePkg, filterKind(sf.Type))))
	}
	items = append(items, jen.Line())
	f.Commentf("%s are the fields GET %s sorts by (sort=).", r.SortableVar, r.CollectionPath)
	f.Var().Id(r.SortableVar).Op("=").Index().Qual(runtimePkg, "SortField").Values(items...)
}

// listArgs are the arguments of the list handler's runtime.List call:
// the sortable fields last, when there are some.
func listArgs(r *model.Register) []jen.Code {
	args := []jen.Code{jen.Id("c"), jen.Lit(r.Name), jen.Id(r.FiltersVar), jen.Id(r.ReadShapeVar), jen.Id(r.ViewFunc)}
	if len(r.SortableFields()) > 0 {
		args = append(args, jen.Id(r.SortableVar).Op("..."))
	}
	return args
}
