// Package codegen turns the register catalog into the generated HTTP layer:
// one Go file per register, a route table and an OpenAPI document.
//
// It first builds a model in which every Go name, JSON name, route and scope
// is computed once; the emitters only read the model.
package codegen

import (
	"fmt"
	"strings"

	"fieldapi/catalog"
)

// Model is the catalog with every generated name worked out.
type Model struct {
	Registers []*Register // sorted by register name
}

// Register is one register and the names of everything emitted for it.
type Register struct {
	*catalog.Register
	Source  string // catalog/customers.yaml
	OutFile string // customers_gen.go

	RecordType string // Customer: the PascalCase read shape
	WriteType  string // CustomerWrite: the camelCase request body
	ViewFunc   string // viewCustomer: engine record → read shape

	FiltersVar     string // customerFilters
	CreateShapeVar string // customerCreateShape
	UpdateShapeVar string // customerUpdateShape

	ListFunc        string // listCustomers
	GetFunc         string // getCustomer
	CreateFunc      string // createCustomer
	UpdateFunc      string // updateCustomer
	ExtraFieldsFunc string // customerExtraFields
	RoutesFunc      string // customerRoutes

	CollectionPath string // /v1/customers
	ItemPath       string // /v1/customers/:key
	ItemDocPath    string // /v1/customers/{Nr}

	Fields    []*Field
	Lines     []*Line
	HasWrites bool // offers create or update
	HasBody   bool // has a request body type: writes, or it is another register's line
}

// Field is one catalog field with its generated names.
type Field struct {
	*catalog.Field
	GoName string // Go field name of both shapes
}

// Line is a line list of a create, with the register of its lines.
type Line struct {
	*catalog.Line
	Of       *Register
	GoName   string // Contacts
	ShapeVar string // customerContactsShape: the body of one line
}

// NewModel builds the model of a catalog.
func NewModel(cat *catalog.Catalog) (*Model, error) {
	m := &Model{}
	byName := map[string]*Register{}
	for _, cr := range cat.Registers {
		r := newRegister(cr)
		m.Registers = append(m.Registers, r)
		byName[r.Name] = r
	}
	for _, r := range m.Registers {
		for _, cl := range r.Register.Lines {
			of := byName[cl.Register]
			if of == nil {
				return nil, fmt.Errorf("%s: line %s: unknown register %s", r.Source, cl.Name, cl.Register)
			}
			of.HasBody = true
			r.Lines = append(r.Lines, &Line{
				Line:     cl,
				Of:       of,
				GoName:   exported(cl.Name),
				ShapeVar: unexported(r.RecordType) + exported(cl.Name) + "Shape",
			})
		}
	}
	return m, nil
}

func newRegister(cr *catalog.Register) *Register {
	rec := cr.Record
	plural := exported(cr.Name)
	r := &Register{
		Register:        cr,
		Source:          "catalog/" + cr.File,
		OutFile:         cr.Name + "_gen.go",
		RecordType:      rec,
		WriteType:       rec + "Write",
		ViewFunc:        "view" + rec,
		FiltersVar:      unexported(rec) + "Filters",
		CreateShapeVar:  unexported(rec) + "CreateShape",
		UpdateShapeVar:  unexported(rec) + "UpdateShape",
		ListFunc:        "list" + plural,
		GetFunc:         "get" + rec,
		CreateFunc:      "create" + rec,
		UpdateFunc:      "update" + rec,
		ExtraFieldsFunc: unexported(rec) + "ExtraFields",
		RoutesFunc:      unexported(rec) + "Routes",
		CollectionPath:  "/v1/" + cr.Name,
		ItemPath:        "/v1/" + cr.Name + "/:key",
		ItemDocPath:     "/v1/" + cr.Name + "/{" + cr.Key + "}",
		HasWrites:       len(cr.Methods) > 0,
	}
	r.HasBody = r.HasWrites
	for _, cf := range cr.Fields {
		r.Fields = append(r.Fields, &Field{Field: cf, GoName: cf.Name})
	}
	return r
}

// BodyFields are the fields a request body can carry: create or update.
func (r *Register) BodyFields() []*Field {
	var out []*Field
	for _, f := range r.Fields {
		if f.Writable || f.CreateOnly {
			out = append(out, f)
		}
	}
	return out
}

// CreateNames are the camelCase names a create accepts.
func (r *Register) CreateNames() []string {
	var names []string
	for _, f := range r.BodyFields() {
		names = append(names, f.WriteName)
	}
	if r.ExtraFields {
		names = append(names, "extraFields")
	}
	for _, l := range r.Lines {
		names = append(names, l.Name)
	}
	return names
}

// UpdateNames are the camelCase names a PATCH accepts.
func (r *Register) UpdateNames() []string {
	var names []string
	for _, f := range r.BodyFields() {
		if !f.CreateOnly {
			names = append(names, f.WriteName)
		}
	}
	if r.ExtraFields {
		names = append(names, "extraFields")
	}
	return names
}

// ReadOnlyNames are the camelCase names of fields that are never written,
// so a request that sends one is told so rather than "unknown".
func (r *Register) ReadOnlyNames() []string {
	var names []string
	for _, f := range r.Fields {
		if !f.Writable && !f.CreateOnly {
			names = append(names, f.WriteName)
		}
	}
	return append(names, "modified")
}

// CreateOnlyNames are sent on create only; a PATCH naming one is refused as read only.
func (r *Register) CreateOnlyNames() []string {
	var names []string
	for _, f := range r.Fields {
		if f.CreateOnly {
			names = append(names, f.WriteName)
		}
	}
	for _, l := range r.Lines {
		names = append(names, l.Name)
	}
	return names
}

// RequiredNames must be sent on create.
func (r *Register) RequiredNames() []string {
	var names []string
	for _, f := range r.Fields {
		if f.Required {
			names = append(names, f.WriteName)
		}
	}
	return names
}

// LineNames are the names one line of a list accepts: the line register's
// create names less the parent and fixed fields the owner sets.
func (l *Line) LineNames() []string {
	var names []string
	for _, f := range l.Of.BodyFields() {
		if f.Name == l.Parent || l.Set[f.Name] != "" {
			continue
		}
		names = append(names, f.WriteName)
	}
	if l.Of.ExtraFields {
		names = append(names, "extraFields")
	}
	return names
}

// LineReadOnly are the names one line refuses as read only.
func (l *Line) LineReadOnly() []string {
	names := l.Of.ReadOnlyNames()
	names = append(names, catalog.WriteName(l.Parent))
	for name := range l.Set {
		names = append(names, catalog.WriteName(name))
	}
	return sortedUnique(names)
}

// LineRequired are the names one line must carry.
func (l *Line) LineRequired() []string {
	var names []string
	for _, f := range l.Of.Fields {
		if f.Required && f.Name != l.Parent && l.Set[f.Name] == "" {
			names = append(names, f.WriteName)
		}
	}
	return names
}

func exported(s string) string   { return strings.ToUpper(s[:1]) + s[1:] }
func unexported(s string) string { return strings.ToLower(s[:1]) + s[1:] }
