package model

import "fmt"

// The engine's names package (engine/names): a constant for every register,
// field, line list and action name of the catalog, so the engine's rules
// name what they read and write by a Go identifier instead of a string. A
// field renamed or removed in the catalog then breaks the rules' build at
// generation, and the engine's start-up check (engine/rules.Check) catches
// a catalog that changed without regenerating.

// RegisterNames are the constants emitted for one register.
type RegisterNames struct {
	Register NameConst   // Tasks = "tasks"
	Fields   []NameConst // TaskStatus = "Status", in catalog order
	Lines    []NameConst // TaskMaterialsLine = "materials"
	Actions  []NameConst // TaskStatusAction = "status"; TaskNotesLog = "note", the change-log action of an action that declares log
}

// NameConst is one constant: its Go name, its value and a short comment.
type NameConst struct {
	Ident string
	Value string
	Doc   string
}

func newRegisterNames(r *Register) *RegisterNames {
	rec := r.RecordType
	n := &RegisterNames{Register: NameConst{
		Ident: r.Plural,
		Value: r.Name,
		Doc:   fmt.Sprintf("%s is the register %s (%s).", r.Plural, r.Name, r.Source),
	}}
	for _, f := range r.Fields {
		doc := string(f.Type)
		if f.References != "" {
			doc += ", references " + f.References
		}
		n.Fields = append(n.Fields, NameConst{Ident: rec + f.Name, Value: f.Name, Doc: doc})
	}
	for _, l := range r.Lines {
		n.Lines = append(n.Lines, NameConst{Ident: rec + l.GoName + "Line", Value: l.Name, Doc: "lines of " + l.Register})
	}
	for _, a := range r.Actions {
		n.Actions = append(n.Actions, NameConst{Ident: rec + Exported(a.Name) + "Action", Value: a.Name, Doc: "POST " + a.DocPath})
		if a.Log != "" {
			n.Actions = append(n.Actions, NameConst{Ident: rec + Exported(a.Name) + "Log", Value: a.Log, Doc: "its change-log entries: GET " + a.DocPath})
		}
	}
	return n
}

// all lists every constant of the register, register first.
func (n *RegisterNames) all() []NameConst {
	out := []NameConst{n.Register}
	out = append(out, n.Fields...)
	out = append(out, n.Lines...)
	return append(out, n.Actions...)
}

// checkEngineNames refuses a catalog whose constants would collide in the
// names package (record Order with field LineNr beside record OrderLine
// with field Nr).
func (m *Model) checkEngineNames() error {
	owner := map[string]string{}
	for _, r := range m.Registers {
		for _, c := range r.Names.all() {
			if prev, taken := owner[c.Ident]; taken {
				return fmt.Errorf("%s: the engine's name constant %s is already used by %s; rename the field or record", r.Source, c.Ident, prev)
			}
			owner[c.Ident] = r.Source + " " + c.Value
		}
	}
	return nil
}
