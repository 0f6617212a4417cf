package codegen

import (
	"github.com/dave/jennifer/jen"

	"fieldapi/runtime"
)

// clientShapeParams adds to a list's parameters those that shape the
// answer (issue 23): Count.
//
//	Count Count // how to count Total: CountExact when ""
func clientShapeParams(r *clientRegister, fields, body []jen.Code) ([]jen.Code, []jen.Code) {
	fields = append(fields, jen.Id("Count").Id("Count").Comment("how to count Total: CountExact when \"\", CountEstimated or CountNone"))
	body = append(body, jen.Id("setText").Call(jen.Id("q"), jen.Lit(runtime.CountParam), jen.String().Call(jen.Id("p").Dot("Count"))))
	return fields, body
}
