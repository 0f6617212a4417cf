package metrics

import (
	"maps"
	"slices"
	"testing"

	"github.com/matryer/is"

	"fieldapi/runtime"
)

// TestProblemCodesExist: the request metrics pick calls out by problem
// code, written here as text; a code renamed in runtime would otherwise
// leave its counter at zero without a failure anywhere.
func TestProblemCodesExist(t *testing.T) {
	is := is.New(t)
	var known []string
	for _, c := range runtime.ProblemCodes() {
		known = append(known, c.Code)
	}
	named := append([]string{rateLimitedCode}, idempotencyConflicts...)
	named = append(named, slices.Collect(maps.Keys(engineFaultKinds))...)
	for _, code := range named {
		is.True(slices.Contains(known, code)) // a code the metrics count is one runtime answers with
	}
}
