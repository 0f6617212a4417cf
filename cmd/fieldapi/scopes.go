package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"fieldapi/generated"
	"fieldapi/runtime"
)

// scopeSet is what keys create knows about scopes.
//
// The spec (4.7) keeps a :write scope for the read-only registers (users,
// timetypes, pricelists) although no route needs it, so such a scope is
// accepted; but a key given it can do nothing more, so it is never
// offered: help and errors list only the scopes some route needs.
type scopeSet struct {
	accepted []string // every scope a key may hold
	offered  []string // the scopes a route needs, in accepted's order
}

// apiScopes is the scopes of the generated API and the built-in routes.
func apiScopes() scopeSet {
	needed := map[string]bool{}
	for _, r := range append(generated.Routes(), runtime.BuiltinRoutes()...) {
		needed[r.Scope] = true
	}
	s := scopeSet{accepted: append(generated.Scopes(), runtime.BuiltinScopes()...)}
	for _, scope := range s.accepted {
		if needed[scope] {
			s.offered = append(s.offered, scope)
		}
	}
	return s
}

// grantsNothing reports a scope that is accepted but that no route needs.
func (s scopeSet) grantsNothing(scope string) bool {
	return slices.Contains(s.accepted, scope) && !slices.Contains(s.offered, scope)
}

// parse checks a --scopes list: "*" anywhere means every scope; the rest
// are trimmed, deduplicated and must be accepted.
func (s scopeSet) parse(list string) ([]string, error) {
	var scopes []string
	for _, scope := range strings.Split(list, ",") {
		scope = strings.TrimSpace(scope)
		switch {
		case scope == "":
			continue
		case scope == "*":
			return []string{"*"}, nil
		case !slices.Contains(s.accepted, scope):
			return nil, fmt.Errorf("unknown scope %q; use * for every scope, or some of: %s", scope, strings.Join(s.offered, ", "))
		case !slices.Contains(scopes, scope):
			scopes = append(scopes, scope)
		}
	}
	if len(scopes) == 0 {
		return nil, errors.New("--scopes names no scope; use * or a list such as customers:read")
	}
	return scopes, nil
}

// uselessScopeWarnings is a warning for each scope of a key that grants
// nothing, saying why.
func (s scopeSet) uselessScopeWarnings(scopes []string) []string {
	var warnings []string
	for _, scope := range scopes {
		if !s.grantsNothing(scope) {
			continue
		}
		register, _, _ := strings.Cut(scope, ":")
		warnings = append(warnings, fmt.Sprintf("%s grants nothing: the API offers no write to %s (they are changed in the engine's administration); %s:read reads them",
			scope, register, register))
	}
	return warnings
}

// help describes the offered scopes for keys create -h, by register: those
// with both scopes, then those with only :read.
func (s scopeSet) help() string {
	var both, readOnly []string
	for _, scope := range s.offered {
		register, access, _ := strings.Cut(scope, ":")
		switch {
		case access == "write":
			continue
		case slices.Contains(s.offered, register+":write"):
			both = append(both, register)
		default:
			readOnly = append(readOnly, register)
		}
	}
	slices.Sort(both)
	slices.Sort(readOnly)
	var b strings.Builder
	fmt.Fprintln(&b, "\nScopes: * for every scope, or a comma separated list of")
	fmt.Fprintln(&b, "  <register>:read and <register>:write, for")
	fmt.Fprint(&b, wrapWords(both, "    ", 78))
	fmt.Fprintln(&b, "  <register>:read only, for")
	fmt.Fprint(&b, wrapWords(readOnly, "    ", 78))
	return b.String()
}

// wrapWords joins words with ", " into lines of at most width characters,
// each starting with indent.
func wrapWords(words []string, indent string, width int) string {
	var b strings.Builder
	line := indent
	for i, w := range words {
		if i < len(words)-1 {
			w += ","
		}
		if line != indent && len(line)+1+len(w) > width {
			b.WriteString(line + "\n")
			line = indent
		}
		if line != indent {
			line += " "
		}
		line += w
	}
	if line != indent {
		b.WriteString(line + "\n")
	}
	return b.String()
}
