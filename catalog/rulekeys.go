package catalog

import (
	"fmt"
	"strings"
)

// Declarative keys for what used to be register rules written in Go:
//
//   - Line.Inherit: fields a line takes from its owner unless it gives its
//     own (an order line's price list, delivery date and supplier).
//   - Field.DefaultFrom: a create that leaves the field empty takes it from
//     the record a reference field points to (an order line's Unit from
//     its product). Unlike a lookup, the field stays the client's to set.
//   - Register.LocateFrom: the reference fields a record without an address
//     of its own is located from, most specific first (a task: its objects,
//     then its customer). Unset: every reference field, in catalog order.

// validateRuleKeys checks the declarative keys of r; fields are r's fields
// by name.
func (r *Register) validateRuleKeys(c *Catalog, fields map[string]*Field) error {
	for _, f := range r.Fields {
		if f.DefaultFrom == "" {
			continue
		}
		if f.Lookup != "" {
			return fmt.Errorf("field %s: lookup and defaultFrom exclude each other (a lookup is always copied)", f.Name)
		}
		if !f.Writable && !f.CreateOnly {
			return fmt.Errorf("field %s: defaultFrom needs a writable field; a read-only copy is a lookup", f.Name)
		}
		ref, source, ok := strings.Cut(f.DefaultFrom, ".")
		rf := fields[ref]
		if !ok || rf == nil || rf.References == "" || rf.ReferencesBy != "" || rf.Type != Text {
			return fmt.Errorf("field %s: defaultFrom %q must be Ref.Field where Ref is a text reference field of this register, by key", f.Name, f.DefaultFrom)
		}
		if c.Register(rf.References).Field(source) == nil {
			return fmt.Errorf("field %s: defaultFrom %q: %s has no field %s", f.Name, f.DefaultFrom, rf.References, source)
		}
	}
	for _, l := range r.Lines {
		lr := c.Register(l.Register)
		for _, name := range l.Inherit {
			if fields[name] == nil {
				return fmt.Errorf("line %s: inherit field %q is not declared in %s", l.Name, name, r.File)
			}
			if lr.Field(name) == nil {
				return fmt.Errorf("line %s: inherit field %q is not declared in %s", l.Name, name, lr.File)
			}
			if _, set := l.Set[name]; set || name == l.Parent {
				return fmt.Errorf("line %s: inherit field %q is set by the owner already (parent or set)", l.Name, name)
			}
		}
	}
	for _, name := range r.LocateFrom {
		f := fields[name]
		if f == nil {
			return fmt.Errorf("locateFrom: field %q is not declared", name)
		}
		if f.References == "" || f.ReferencesBy != "" || f.Type != Text {
			return fmt.Errorf("locateFrom: field %s is not a text reference field by key", name)
		}
	}
	return nil
}
