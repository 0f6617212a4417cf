package runtime

import "fieldapi/runtime/problem"

// The names below are used through package runtime by the generated code,
// the client's tests and the commands, but declared in the subpackage that
// does the work. Each is an alias of that declaration (the same type,
// constant or function), never a second one; runtime's own code uses the
// subpackages directly.

// Problems: package problem.
type (
	// Problem is an RFC 9457 problem response (problem.Problem).
	Problem = problem.Problem
	// ProblemCode is one kind of failure (problem.Code).
	ProblemCode = problem.Code
)

// ProblemCodes is every problem code the service answers with, in status
// order (problem.Codes).
func ProblemCodes() []ProblemCode { return problem.Codes() }

// UnknownField is the problem of a body naming a field that cannot be sent
// here (problem.UnknownField); generated decoders answer with it.
func UnknownField(path string, writable []string) *Problem {
	return problem.UnknownField(path, writable)
}
