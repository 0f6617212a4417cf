package codegen

import (
	"fieldapi/runtime"
)

// listShapeParameters are the list parameters of issue 23 that shape the
// answer rather than pick rows: count (and, per register, sort and range
// filters).
func listShapeParameters(r *Register) []*Parameter {
	modes := make([]any, len(runtime.CountModes))
	for i, m := range runtime.CountModes {
		modes[i] = m
	}
	return []*Parameter{{Name: runtime.CountParam, In: "query", Schema: &Schema{Type: types("string"), Enum: modes},
		Description: "How to count total: exact (default), estimated (from the database's statistics; the page then says totalEstimated: true when total is an estimate) or none (total is null, nothing is counted)."}}
}
