package model

import "fieldapi/runtime"

// ProblemCode is one failure kind the service answers with an RFC 9457
// problem. runtime/problem/problem.go defines every code in one place; the OpenAPI
// document and the reference page read them from there, so a new code is
// documented as soon as runtime builds it.
type ProblemCode = runtime.ProblemCode

// ProblemCodesOf are the codes answered with one status.
func ProblemCodesOf(status int) []ProblemCode {
	var out []ProblemCode
	for _, p := range runtime.ProblemCodes() {
		if p.Status == status {
			out = append(out, p)
		}
	}
	return out
}
