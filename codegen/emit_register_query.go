package codegen

import (
	"github.com/dave/jennifer/jen"

	"fieldapi/catalog"
)

// filterOpValues are a filter's Ops and, with them, its field's Enum
// (the values in and the others check against), when it has ops.
func filterOpValues(r *Register, fl *catalog.Filter) []jen.Code {
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
