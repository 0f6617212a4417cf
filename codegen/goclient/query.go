package goclient

import (
	"fmt"

	"github.com/dave/jennifer/jen"

	"fieldapi/catalog"
	"fieldapi/codegen/model"
	"fieldapi/engine"
	"fieldapi/runtime"
)

// clientQueryParams adds to a list's parameters those that choose and
// count its records: one typed field per filter operator, Sort and Count.
//
//	PlanStartDateGte string   // planStartDate[gte]: PlanStartDate ≥ the value ...
//	StatusIn         []string // status[in]: ...
//	Count            Count    // how to count Total: CountExact when ""
func clientQueryParams(file *jen.File, r *clientRegister, fields, body []jen.Code) ([]jen.Code, []jen.Code) {
	for _, cf := range r.Filters {
		f := r.Field(cf.Field)
		for _, op := range cf.Ops {
			name := runtime.OpParam(cf.Param, string(op))
			var typ jen.Code
			var set string
			switch {
			case op == catalog.OpIn:
				typ, set = jen.Index().String(), "setList"
			case op == catalog.OpIsNull:
				typ, set = jen.Op("*").Bool(), "setBool"
			case op != catalog.OpPrefix && f.Type == catalog.Number:
				typ, set = jen.Op("*").Float64(), "setNumber"
			default:
				typ, set = jen.String(), "setText"
			}
			goName := model.Exported(cf.Param) + model.Exported(string(op))
			fields = append(fields, jen.Id(goName).Add(typ).Comment(fmt.Sprintf("%s: %s", name, model.OpMeaning(f, op))))
			body = append(body, jen.Id(set).Call(jen.Id("q"), jen.Lit(name), jen.Id("p").Dot(goName)))
		}
	}
	if sortType := clientSortType(file, r); sortType != "" {
		fields = append(fields, jen.Id("Sort").Index().Id(sortType).Comment("order by these keys, then newest first; none: newest first"))
		body = append(body, jen.Id("setSort").Call(jen.Id("q"), jen.Lit(engine.SortParam), jen.Id("p").Dot("Sort")))
	}
	fields = append(fields, jen.Id("Count").Id("Count").Comment("how to count Total: CountExact when \"\", CountEstimated or CountNone"))
	body = append(body, jen.Id("setText").Call(jen.Id("q"), jen.Lit(engine.CountParam), jen.String().Call(jen.Id("p").Dot("Count"))))
	return fields, body
}

// clientSortType emits the sort keys of a register with sortable fields
// and returns their type's name ("" without):
//
//	// TaskSort is a sort key of Tasks.List: a field, ascending, or its Desc.
//	type TaskSort string
//
//	const (
//		TaskSortNr     TaskSort = "Nr"
//		TaskSortNrDesc TaskSort = "-Nr"
//	)
func clientSortType(f *jen.File, r *clientRegister) string {
	sortable := r.SortableFields()
	if len(sortable) == 0 {
		return ""
	}
	name := r.RecordType + "Sort"
	f.Comment(fmt.Sprintf("%s is a sort key of %s.List and %s.All: a field ascending, or its Desc; records without a value come last.", name, r.Plural, r.Plural))
	f.Type().Id(name).String()
	f.Line()
	var consts []jen.Code
	for _, sf := range sortable {
		consts = append(consts,
			jen.Id(name+sf.Name).Id(name).Op("=").Lit(sf.Name),
			jen.Id(name+sf.Name+"Desc").Id(name).Op("=").Lit("-"+sf.Name))
	}
	f.Comment(fmt.Sprintf("The sort keys of %s.", r.Plural))
	f.Const().Defs(consts...)
	f.Line()
	return name
}
