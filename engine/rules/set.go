package rules

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"fieldapi/catalog"
	"fieldapi/engine"
)

// Set is the rule modules bound to a catalog, by register. The engine calls
// its hooks; a register without modules passes every hook untouched.
type Set struct {
	byRegister map[string][]Module
}

// Bind checks modules against the catalog and binds them. It refuses, naming
// the YAML file, the module and the field, a module whose register the
// catalog no longer declares (renamed or removed), a field it needs that is
// missing or of another type, an action the catalog and the rules do not
// both declare.
func Bind(cat *catalog.Catalog, modules ...Module) (*Set, error) {
	s := &Set{byRegister: map[string][]Module{}}
	for _, m := range modules {
		if err := check(cat, m); err != nil {
			return nil, err
		}
		s.byRegister[m.Register()] = append(s.byRegister[m.Register()], m)
	}
	for _, r := range cat.Registers {
		actions := s.actions(r.Name)
		for _, a := range r.Actions {
			if actions[a.Name] == nil {
				return nil, catalogErrorf("%s: action %s has no rule in the engine (engine/rules)", catalog.FileFor(r.Name), a.Name)
			}
		}
	}
	return s, nil
}

// check compares one module's needs and actions with the catalog.
func check(cat *catalog.Catalog, m Module) error {
	reg := cat.Register(m.Register())
	if reg == nil {
		return catalogErrorf("%s: %s need register %s, which the catalog does not declare (renamed or removed?)",
			catalog.FileFor(m.Register()), m.Name(), m.Register())
	}
	for _, n := range m.Needs() {
		r := cat.Register(n.Register)
		if r == nil {
			return catalogErrorf("%s: %s need register %s, which the catalog does not declare (renamed or removed?)",
				catalog.FileFor(n.Register), m.Name(), n.Register)
		}
		if n.Line != "" {
			if !slices.ContainsFunc(r.Lines, func(l *catalog.Line) bool { return l.Name == n.Line }) {
				return catalogErrorf("%s: %s need line list %s", catalog.FileFor(n.Register), m.Name(), n.Line)
			}
			continue
		}
		f := r.Field(n.Field)
		if f == nil {
			return catalogErrorf("%s: %s need field %s (%s)", catalog.FileFor(n.Register), m.Name(), n.Field, n.Type)
		}
		if f.Type != n.Type {
			return catalogErrorf("%s: %s need field %s (%s), not %s", catalog.FileFor(n.Register), m.Name(), n.Field, n.Type, f.Type)
		}
		if n.Enum != nil && !slices.Equal(f.Enum, n.Enum) {
			return catalogErrorf("%s: %s need field %s to take exactly [%s], not [%s]", catalog.FileFor(n.Register), m.Name(), n.Field,
				strings.Join(n.Enum, ", "), strings.Join(f.Enum, ", "))
		}
	}
	if a, ok := m.(Actor); ok {
		for _, name := range slices.Sorted(maps.Keys(a.Actions())) {
			if !slices.ContainsFunc(reg.Actions, func(ca *catalog.Action) bool { return ca.Name == name }) {
				return catalogErrorf("%s: %s carry out action %s, which the catalog does not declare", catalog.FileFor(reg.Name), m.Name(), name)
			}
		}
	}
	return nil
}

// CatalogError is a catalog the rules cannot run on: the text names the
// YAML file, the rule and the field.
type CatalogError struct{ text string }

func (e *CatalogError) Error() string { return e.text }

func catalogErrorf(format string, args ...any) error {
	return &CatalogError{text: fmt.Sprintf(format, args...)}
}

// each runs the register's modules that implement the hook H, in order,
// and stops at the first error.
func each[H any](s *Set, register string, run func(H) error) error {
	for _, m := range s.byRegister[register] {
		if h, ok := m.(H); ok {
			if err := run(h); err != nil {
				return err
			}
		}
	}
	return nil
}

// PrepareCreate runs the register's CreatePreparer hooks.
func (s *Set) PrepareCreate(ctx context.Context, tx Tx, register string, values Values) error {
	return each(s, register, func(h CreatePreparer) error { return h.PrepareCreate(ctx, tx, values) })
}

// PrepareUpdate runs the register's UpdatePreparer hooks.
func (s *Set) PrepareUpdate(ctx context.Context, tx Tx, register string, current engine.Record, values Values) error {
	return each(s, register, func(h UpdatePreparer) error { return h.PrepareUpdate(ctx, tx, current, values) })
}

// PrepareLine runs the owner register's LinePreparer hooks.
func (s *Set) PrepareLine(ctx context.Context, tx Tx, owner string, ownerValues Values, line string, values Values) error {
	return each(s, owner, func(h LinePreparer) error { return h.PrepareLine(ctx, tx, ownerValues, line, values) })
}

// AfterCreate runs the register's CreateFinisher hooks.
func (s *Set) AfterCreate(ctx context.Context, tx Tx, register string, c Created, values Values) error {
	return each(s, register, func(h CreateFinisher) error { return h.AfterCreate(ctx, tx, c, values) })
}

// AfterUpdate runs the register's UpdateFinisher hooks.
func (s *Set) AfterUpdate(ctx context.Context, tx Tx, register string, before, after engine.Record) error {
	return each(s, register, func(h UpdateFinisher) error { return h.AfterUpdate(ctx, tx, before, after) })
}

// Action returns the register's named action, or nil.
func (s *Set) Action(register, name string) Action {
	return s.actions(register)[name]
}

func (s *Set) actions(register string) map[string]Action {
	all := map[string]Action{}
	for _, m := range s.byRegister[register] {
		if a, ok := m.(Actor); ok {
			maps.Copy(all, a.Actions())
		}
	}
	return all
}

// ListCondition passes one list condition through the register's
// ListConditioner hooks.
func (s *Set) ListCondition(register string, c engine.Condition) (engine.Condition, error) {
	err := each(s, register, func(h ListConditioner) error {
		var err error
		c, err = h.ListCondition(c)
		return err
	})
	return c, err
}

// ValidKeys lists the register's valid keys for a refusal; ok is false
// when no module offers them (registers too large or private to list).
func (s *Set) ValidKeys(ctx context.Context, tx Tx, register string) (keys []string, ok bool, err error) {
	for _, m := range s.byRegister[register] {
		if h, isLister := m.(KeyLister); isLister {
			keys, err = h.ValidKeys(ctx, tx)
			return keys, true, err
		}
	}
	return nil, false, nil
}
