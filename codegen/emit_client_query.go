package codegen

import (
	"fmt"

	"github.com/dave/jennifer/jen"

	"fieldapi/catalog"
	"fieldapi/runtime"
)

// clientShapeParams adds to a list's parameters those of issue 23: one
// typed field per filter operator, and Count.
//
//	PlanStartDateGte string   // planStartDate[gte]: PlanStartDate ≥ the value ...
//	StatusIn         []string // status[in]: ...
//	Count            Count    // how to count Total: CountExact when ""
func clientShapeParams(r *clientRegister, fields, body []jen.Code) ([]jen.Code, []jen.Code) {
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
			goName := exported(cf.Param) + exported(string(op))
			fields = append(fields, jen.Id(goName).Add(typ).Comment(fmt.Sprintf("%s: %s", name, opMeaning(f, op))))
			body = append(body, jen.Id(set).Call(jen.Id("q"), jen.Lit(name), jen.Id("p").Dot(goName)))
		}
	}
	fields = append(fields, jen.Id("Count").Id("Count").Comment("how to count Total: CountExact when \"\", CountEstimated or CountNone"))
	body = append(body, jen.Id("setText").Call(jen.Id("q"), jen.Lit(runtime.CountParam), jen.String().Call(jen.Id("p").Dot("Count"))))
	return fields, body
}
