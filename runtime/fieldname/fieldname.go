// Package fieldname resolves a field named in a list or get parameter by
// either spelling a client may use: as records read it or as bodies write it.
package fieldname

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Resolve resolves a field named in a list or get parameter (fields=,
// sort=, expand=): by the name records are read with (PascalCase, Nr,
// PlanStartDate) or by its camelCase spelling as request bodies and filter
// parameters write it (nr, planStartDate). Parameters name fields both
// ways, so neither spelling is a wrong turn; answers always use the first.
// ok is false when name is neither spelling of a name in valid.
func Resolve(name string, valid []string) (string, bool) {
	for _, v := range valid {
		if name == v || name == camelCase(v) {
			return v, true
		}
	}
	return "", false
}

// camelCase is a PascalCase name with its first letter lowered.
func camelCase(name string) string {
	r, size := utf8.DecodeRuneInString(name)
	if r == utf8.RuneError || unicode.IsLower(r) {
		return name
	}
	return strings.ToLower(string(r)) + name[size:]
}
