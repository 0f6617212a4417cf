package model

import "fieldapi/catalog"

// Expansion is a relation the reads of a register may expand (expand=),
// with the register of the expanded records.
type Expansion struct {
	catalog.Expansion
	Of    *Register
	Const string // TaskExpandCustomer: the client's typed name of it
}

// Lines reports whether the expansion is a line list (else one record).
func (x *Expansion) Lines() bool { return x.Line != nil }

// completeShape sets the names of what fields= and expand= may name.
func (r *Register) completeShape(byName map[string]*Register) {
	r.ReadShapeVar = Unexported(r.RecordType) + "ReadShape"
	r.JSONVar = Unexported(r.RecordType) + "JSON"
	for _, cx := range r.Register.Expansions() {
		r.Expansions = append(r.Expansions, &Expansion{Expansion: cx, Of: byName[cx.Register], Const: r.RecordType + "Expand" + cx.Name})
	}
}

// ReadNames are the members of the read shape, in the order records are
// read: the fields, the line lists it carries, Modified, ExtraFields.
func (r *Register) ReadNames() []string {
	var names []string
	for _, f := range r.Fields {
		names = append(names, f.Name)
	}
	for _, l := range r.ReadLines {
		names = append(names, l.ReadName)
	}
	names = append(names, "Modified")
	if r.ExtraFields {
		names = append(names, "ExtraFields")
	}
	return names
}
