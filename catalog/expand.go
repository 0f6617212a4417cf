package catalog

import "fmt"

// Expansion is a relation a read may expand (expand=<Name>): the record a
// reference field names, or a line list the owner's read shape does not
// carry. Expansions go one level deep: an expanded record is read as its
// own GET reads it, without expansions of its own.
type Expansion struct {
	Name     string // PascalCase, the member it is read under (Customer, Contacts)
	Register string // the register of the expanded records
	Field    *Field // the reference field; nil for a line list
	Line     *Line  // the line list; nil for a reference
}

// Expansions are the register's expansions: its reference fields marked
// expand, then its line lists marked expand, in catalog order.
func (r *Register) Expansions() []Expansion {
	var out []Expansion
	for _, f := range r.Fields {
		if f.Expand != "" {
			out = append(out, Expansion{Name: f.Expand, Register: f.References, Field: f})
		}
	}
	for _, l := range r.Lines {
		if l.Expand {
			out = append(out, Expansion{Name: l.ReadName, Register: l.Register, Line: l})
		}
	}
	return out
}

// Expansion returns the register's expansion of that name, or nil.
func (r *Register) Expansion(name string) *Expansion {
	for _, x := range r.Expansions() {
		if x.Name == name {
			return &x
		}
	}
	return nil
}

// validateExpansions checks the expand marks: a reference field of one
// record names a PascalCase member no field or line list of the register
// uses; a line list is expanded only where the read shape leaves it out.
func (r *Register) validateExpansions() error {
	taken := map[string]string{}
	for _, f := range r.Fields {
		taken[f.Name] = "field " + f.Name
	}
	for _, name := range reservedFields {
		taken[name] = "the service's " + name
	}
	for _, l := range r.Lines {
		taken[l.ReadName] = "line list " + l.Name
	}
	for _, f := range r.Fields {
		switch {
		case f.Expand == "":
			continue
		case f.References == "":
			return fmt.Errorf("field %s: expand needs a reference field (references: <register>)", f.Name)
		case f.Type != Text:
			return fmt.Errorf("field %s: expand needs a reference to one record; %s is %s", f.Name, f.Name, f.Type)
		case !goName.MatchString(f.Expand):
			return fmt.Errorf("field %s: expand %q must be a PascalCase name, such as %s", f.Name, f.Expand, r.Record)
		case taken[f.Expand] != "":
			return fmt.Errorf("field %s: expand %q is the name of %s", f.Name, f.Expand, taken[f.Expand])
		}
		taken[f.Expand] = "the expansion of field " + f.Name
	}
	for _, l := range r.Lines {
		if l.Expand && l.Read {
			return fmt.Errorf("line %s: expand: the read shape carries the lines already (read: true)", l.Name)
		}
	}
	return nil
}
