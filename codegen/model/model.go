// Package model is the generator's one view of the register catalog: every
// Go name, JSON name, route, scope, OpenAPI schema name and example of each
// register, worked out once by New. The emitters (the HTTP layer, the
// OpenAPI document, the reference page, the Go client and the engine's
// names package) only read it. New also refuses a catalog whose generated
// names would collide.
package model

import (
	"fmt"
	"slices"
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

	Plural     string // Customers, SupplierContacts: the register name cased like the record
	RecordType string // Customer: the PascalCase read shape
	WriteType  string // CustomerWrite: the camelCase request body
	ViewFunc   string // viewCustomer: engine record → read shape

	FiltersVar     string // customerFilters
	SortableVar    string // customerSortable: its sortable fields, when it has some
	CreateShapeVar string // customerCreateShape
	UpdateShapeVar string // customerUpdateShape
	UpsertShapeVar string // customerUpsertShape, with a PUT by key or lookup key

	// OpenAPI schema names, one per intent (the read shape is RecordType).
	CreateSchema string // CustomerCreate: the body of POST /v1/customers
	UpdateSchema string // CustomerUpdate: the body of PATCH /v1/customers/{Nr}
	UpsertSchema string // CustomerUpsert: the body of PUT /v1/customers/{Nr}
	PageSchema   string // CustomerPage: one page of GET /v1/customers

	ListFunc        string // listCustomers
	GetFunc         string // getCustomer
	CreateFunc      string // createCustomer
	UpdateFunc      string // updateCustomer
	UpsertFunc      string // upsertCustomer, when PUT /v1/customers/{Nr} creates or updates (catalog Register.Upserts)
	ExtraFieldsFunc string // customerExtraFields
	RoutesFunc      string // customerRoutes

	CollectionPath string // /v1/customers
	ItemPath       string // /v1/customers/:key
	ItemDocPath    string // /v1/customers/{Nr}

	Fields    []*Field
	Lines     []*Line
	ReadLines []*Line     // line lists the read shape carries
	Actions   []*Action   // named commands on one record
	Routes    []RouteSpec // in the order they are emitted and documented
	HasWrites bool        // offers create or update
	HasBody   bool        // has a request body type: writes, or it is another register's line
	Body      *Body       // the request body type when HasBody

	CreateReply *Reply // the summary a create answers with; nil: the record

	ChangesFunc       string // listCustomerChanges, with writes: GET …/{key}/changes
	GetLocationFunc   string // getCustomerLocation, with a location
	PinLocationFunc   string // pinCustomerLocation
	AddDocumentFunc   string // addTaskDocument, with documents
	ListDocumentsFunc string // listTaskDocuments
	GetDocumentFunc   string // getTaskDocument

	Lookups []*Lookup // the lookup keys, each a second way to address a record

	ReadShapeVar string       // customerReadShape: what fields= and expand= may name (shape.go)
	JSONVar      string       // customerJSON: the read shape written straight from a record (shape.go)
	Expansions   []*Expansion // the relations a read may expand

	Names *RegisterNames // its constants in the engine's names package (names.go)
}

// Lookup is a field declared a lookup key (catalog lookupKey: true) and the
// routes that address a record by it.
type Lookup struct {
	Field      *Field
	Path       string // /v1/products/by-barcode/:key
	DocPath    string // /v1/products/by-barcode/{barcode}
	GetFunc    string // getProductByBarcode
	UpsertFunc string // upsertProductByBarcode; "" when the register cannot upsert by it
}

// Upserts reports whether the register has a PUT that creates or updates:
// by its key, or by a lookup key.
func (r *Register) Upserts() bool {
	if r.UpsertFunc != "" {
		return true
	}
	for _, lk := range r.Lookups {
		if lk.UpsertFunc != "" {
			return true
		}
	}
	return false
}

// KeyDocName is the name of the path parameter of an OpenAPI path: the
// record's key ({Nr}), or a lookup key's camelCase name ({barcode}).
func KeyDocName(docPath string) string {
	_, rest, ok := strings.Cut(docPath, "{")
	if !ok {
		return ""
	}
	name, _, _ := strings.Cut(rest, "}")
	return name
}

// RouteSpec is one route of a register.
type RouteSpec struct {
	Method  string    // GET, POST, PATCH, PUT
	Path    string    // httprouter syntax: /v1/customers/:key
	DocPath string    // OpenAPI syntax: /v1/customers/{Nr}
	Scope   string    // customers:read
	Handler string    // Go name of the handler: getCustomer
	Summary string    // one line for the OpenAPI document
	Kind    RouteKind // what the route does, for the OpenAPI document
	Request string    // OpenAPI schema of the request body, if any: CustomerCreate, CustomerUpdate, TaskMaterialsItem, TaskStatusBody
	Reply   string    // schema of the answer, if a record or reply type
}

// The change-log schemas of the OpenAPI document: one entry, and the list
// of a record's (the answer of its changes and action-log routes).
const (
	ChangeSchema     = "Change"
	ChangeListSchema = "ChangeList"
)

// RouteKind is what a route does.
type RouteKind string

// The route kinds.
const (
	KindList          RouteKind = "list"
	KindExtraFields   RouteKind = "extraFields"
	KindGet           RouteKind = "get"
	KindCreate        RouteKind = "create"
	KindUpdate        RouteKind = "update"
	KindUpsert        RouteKind = "upsert" // PUT by key or lookup key: creates or updates
	KindGetBy         RouteKind = "getBy"  // GET by a lookup key
	KindAddLine       RouteKind = "addLine"
	KindAction        RouteKind = "action"
	KindGetLocation   RouteKind = "getLocation"
	KindPinLocation   RouteKind = "pinLocation"
	KindAddDocument   RouteKind = "addDocument"
	KindListDocuments RouteKind = "listDocuments"
	KindGetDocument   RouteKind = "getDocument"
	KindChanges       RouteKind = "changes"   // the record's change log
	KindActionLog     RouteKind = "actionLog" // the change-log entries an action wrote
)

// Field is one catalog field with its generated names.
type Field struct {
	*catalog.Field
	GoName string // Go field name of both shapes
	// NeverNull: the server never reads the field as null. It is the key,
	// marked notNull, or set by the engine on create when omitted (defaults).
	NeverNull bool
}

// Clearable reports whether a body may send "" for the field. "" clears a
// field to null, except plain text, where "" is itself the value; a field
// that is never null refuses a clear that would make it null.
func (f *Field) Clearable() bool {
	return !f.NeverNull || f.plainText()
}

// ClearsToNull reports whether "" on the field stores null rather than the
// text "": every type but plain text, including text from an enum (""
// is not one of its values).
func (f *Field) ClearsToNull() bool { return !f.plainText() }

func (f *Field) plainText() bool { return f.Type == catalog.Text && len(f.Enum) == 0 }

// Line is a line list of a create, with the register of its lines.
type Line struct {
	*catalog.Line
	Of       *Register
	GoName   string // Contacts
	ShapeVar string // customerContactsShape: the body of one line
	Schema   string // CustomerContactsItem: OpenAPI schema of one line, nested in the owner's create or posted alone
	PostFunc string // addTaskMaterials, when one line can be posted
	Path     string // /v1/tasks/:key/materials
	DocPath  string // /v1/tasks/{Nr}/materials
	Reply    *Reply // the answer to that POST; nil: the whole line
}

// New builds the model of a catalog. The registers are sorted by name
// whatever order the catalog holds them in, so the output never depends on
// the order files were read. It refuses a catalog whose generated names would
// collide in the Go package (the catalog loader cannot see Go names).
func New(cat *catalog.Catalog) (*Model, error) {
	m := &Model{}
	byName := map[string]*Register{}
	for _, cr := range cat.Registers {
		r := newRegister(cr)
		m.Registers = append(m.Registers, r)
		byName[r.Name] = r
	}
	slices.SortFunc(m.Registers, func(a, b *Register) int { return strings.Compare(a.Name, b.Name) })
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
				GoName:   Exported(cl.Name),
				ShapeVar: Unexported(r.RecordType) + Exported(cl.Name) + "Shape",
				Schema:   r.RecordType + Exported(cl.Name) + "Item",
			})
		}
	}
	for _, r := range m.Registers {
		r.completeCommands()
		r.completeShape(byName)
		r.Names = newRegisterNames(r)
	}
	if err := m.checkNames(); err != nil {
		return nil, err
	}
	if err := m.checkEngineNames(); err != nil {
		return nil, err
	}
	return m, nil
}

// sharedNames are declared once per package by api_gen.go.
var sharedNames = []string{"API", "Routes", "Scopes", "openAPIDocument", "docsHTML"}

// bodyMethods are the methods of every request body type; a field of the
// same Go name cannot live beside them.
var bodyMethods = []string{"DecodeField", "Input"}

// EventTypes are the event types of every register, in register name
// order: the feed's schemas, the webhooks section and the reference page
// list them so.
func (m *Model) EventTypes() []catalog.EventType {
	var types []catalog.EventType
	for _, r := range m.Registers {
		types = append(types, r.EventTypes()...)
	}
	return types
}

// Scopes are the read and write scopes of every register, sorted. A
// read-only register still has a write scope (spec 4.7).
func (m *Model) Scopes() []string {
	var scopes []string
	for _, r := range m.Registers {
		scopes = append(scopes, r.ReadScope, r.WriteScope)
	}
	slices.Sort(scopes)
	return scopes
}

// checkNames reports two generated package-level declarations with one
// name (two registers with the same record, or a record named Routes), and
// a body field that would shadow a method of its body type.
func (m *Model) checkNames() error {
	owner := map[string]string{}
	for _, name := range sharedNames {
		owner[name] = "api_gen.go"
	}
	declare := func(r *Register, name string) error {
		if prev, taken := owner[name]; taken {
			return fmt.Errorf("%s: generated name %s is already used by %s; choose another record name", r.Source, name, prev)
		}
		owner[name] = r.Source
		return nil
	}
	for _, r := range m.Registers {
		for _, name := range r.declNames() {
			if err := declare(r, name); err != nil {
				return err
			}
		}
		if !r.HasBody {
			continue
		}
		for _, f := range r.BodyFields() {
			if slices.Contains(bodyMethods, f.GoName) {
				return fmt.Errorf("%s: field %s: the name is taken by the method %s.%s; rename the field", r.Source, f.Name, r.WriteType, f.GoName)
			}
		}
	}
	return nil
}

// declNames are the package-level Go names registerFile declares for r.
func (r *Register) declNames() []string {
	names := []string{r.RecordType, r.ViewFunc, r.FiltersVar, r.ReadShapeVar, r.ListFunc, r.GetFunc, r.RoutesFunc}
	if r.HasBody {
		names = append(names, r.WriteType)
	}
	if len(r.SortableFields()) > 0 {
		names = append(names, r.SortableVar)
	}
	if r.Has(catalog.Create) {
		names = append(names, r.CreateShapeVar, r.CreateFunc)
	}
	if r.Has(catalog.Update) {
		names = append(names, r.UpdateShapeVar, r.UpdateFunc)
	}
	if r.UpsertFunc != "" {
		names = append(names, r.UpsertFunc)
	}
	if r.Upserts() {
		names = append(names, r.UpsertShapeVar)
	}
	for _, lk := range r.Lookups {
		names = append(names, lk.GetFunc)
		if lk.UpsertFunc != "" {
			names = append(names, lk.UpsertFunc)
		}
	}
	if r.ExtraFields {
		names = append(names, r.ExtraFieldsFunc)
	}
	for _, l := range r.Lines {
		names = append(names, l.ShapeVar)
		if l.Post {
			names = append(names, l.PostFunc)
		}
		if l.Reply != nil {
			names = append(names, l.Reply.Type, l.Reply.ViewFunc)
		}
	}
	for _, a := range r.Actions {
		names = append(names, a.Body.Type, a.ShapeVar, a.Func)
		if a.LogFunc != "" {
			names = append(names, a.LogFunc)
		}
	}
	if r.ChangesFunc != "" {
		names = append(names, r.ChangesFunc)
	}
	if rp := r.CreateReply; rp != nil {
		names = append(names, rp.Type, rp.ViewFunc)
		for _, rl := range rp.Lines {
			names = append(names, rl.ItemType)
		}
	}
	if r.Location {
		names = append(names, r.GetLocationFunc, r.PinLocationFunc)
	}
	if r.Documents {
		names = append(names, r.AddDocumentFunc, r.ListDocumentsFunc, r.GetDocumentFunc)
	}
	return names
}

func newRegister(cr *catalog.Register) *Register {
	rec := cr.Record
	plural := pluralName(cr.Name, rec)
	r := &Register{
		Register:        cr,
		Source:          "catalog/" + cr.File,
		OutFile:         cr.Name + "_gen.go",
		Plural:          plural,
		RecordType:      rec,
		WriteType:       rec + "Write",
		ViewFunc:        "view" + rec,
		FiltersVar:      Unexported(rec) + "Filters",
		SortableVar:     Unexported(rec) + "Sortable",
		CreateShapeVar:  Unexported(rec) + "CreateShape",
		UpdateShapeVar:  Unexported(rec) + "UpdateShape",
		UpsertShapeVar:  Unexported(rec) + "UpsertShape",
		UpsertSchema:    rec + "Upsert",
		CreateSchema:    rec + "Create",
		UpdateSchema:    rec + "Update",
		PageSchema:      rec + "Page",
		ListFunc:        "list" + plural,
		GetFunc:         "get" + rec,
		CreateFunc:      "create" + rec,
		UpdateFunc:      "update" + rec,
		ExtraFieldsFunc: Unexported(rec) + "ExtraFields",
		RoutesFunc:      Unexported(rec) + "Routes",
		CollectionPath:  "/v1/" + cr.Name,
		ItemPath:        "/v1/" + cr.Name + "/:key",
		ItemDocPath:     "/v1/" + cr.Name + "/{" + cr.Key + "}",
		HasWrites:       len(cr.Methods) > 0,
	}
	r.HasBody = r.HasWrites
	for _, cf := range cr.Fields {
		_, defaulted := cr.Defaults[cf.Name]
		r.Fields = append(r.Fields, &Field{Field: cf, GoName: cf.Name, NeverNull: cf.Name == cr.Key || cf.NotNull || defaulted})
	}
	if cr.Upserts(cr.KeyField()) {
		r.UpsertFunc = "upsert" + rec
	}
	for _, f := range r.Fields {
		if !f.LookupKey {
			continue
		}
		segment := "by-" + f.WriteName
		lk := &Lookup{
			Field:   f,
			Path:    r.CollectionPath + "/" + segment + "/:key",
			DocPath: r.CollectionPath + "/" + segment + "/{" + f.WriteName + "}",
			GetFunc: "get" + rec + "By" + f.Name,
		}
		if cr.Upserts(f.Field) {
			lk.UpsertFunc = "upsert" + rec + "By" + f.Name
		}
		r.Lookups = append(r.Lookups, lk)
	}
	return r
}

// pluralName is the Go spelling of a register name: the record's casing
// when the name is the record's plural (suppliercontacts + SupplierContact →
// SupplierContacts, addresses + Address → Addresses), else the name with a
// capital (objects1 → Objects1).
func pluralName(name, record string) string {
	for _, suffix := range []string{"s", "es"} {
		if strings.EqualFold(name, record+suffix) {
			return record + suffix
		}
	}
	return Exported(name)
}

// routes lists the routes of a register in a fixed order: list, extra
// fields, get, create, update, PUT by key, line posts, actions (each
// followed by the GET of its entries when it declares log), the change
// log, location, documents, then GET and PUT by each lookup key.
func (r *Register) routes() []RouteSpec {
	read, write := r.ReadScope, r.WriteScope
	routes := []RouteSpec{
		{"GET", r.CollectionPath, r.CollectionPath, read, r.ListFunc, "List " + r.Name + ", newest first", KindList, "", r.RecordType},
	}
	if r.ExtraFields {
		path := r.CollectionPath + "/extra-fields"
		routes = append(routes, RouteSpec{"GET", path, path, read, r.ExtraFieldsFunc, "Describe the extra fields of " + r.Name, KindExtraFields, "", ""})
	}
	routes = append(routes, RouteSpec{"GET", r.ItemPath, r.ItemDocPath, read, r.GetFunc, "Read one record of " + r.Name, KindGet, "", r.RecordType})
	if r.Has(catalog.Create) {
		reply := r.RecordType
		if r.CreateReply != nil {
			reply = r.CreateReply.Type
		}
		routes = append(routes, RouteSpec{"POST", r.CollectionPath, r.CollectionPath, write, r.CreateFunc, "Create a record of " + r.Name, KindCreate, r.CreateSchema, reply})
	}
	if r.Has(catalog.Update) {
		routes = append(routes, RouteSpec{"PATCH", r.ItemPath, r.ItemDocPath, write, r.UpdateFunc, "Change the fields sent of a record of " + r.Name, KindUpdate, r.UpdateSchema, r.RecordType})
	}
	if r.UpsertFunc != "" {
		routes = append(routes, RouteSpec{"PUT", r.ItemPath, r.ItemDocPath, write, r.UpsertFunc,
			"Create the record with this " + r.Key + ", or change the fields sent of the one that has it", KindUpsert, r.UpsertSchema, r.RecordType})
	}
	for _, l := range r.Lines {
		if l.Post {
			reply := l.Of.RecordType
			if l.Reply != nil {
				reply = l.Reply.Type
			}
			routes = append(routes, RouteSpec{"POST", l.Path, l.DocPath, write, l.PostFunc, "Add one line to " + l.Name, KindAddLine, l.Schema, reply})
		}
	}
	for _, a := range r.Actions {
		summary := a.Description
		if summary == "" {
			summary = "Run " + a.Name + " on a record of " + r.Name
		}
		routes = append(routes, RouteSpec{"POST", a.Path, a.DocPath, write, a.Func, summary, KindAction, a.Body.Type, r.RecordType})
		if a.LogFunc != "" {
			routes = append(routes, RouteSpec{"GET", a.Path, a.DocPath, read, a.LogFunc,
				"List the record's " + a.Log + " entries (what POST " + a.DocPath + " wrote), newest first", KindActionLog, "", ChangeListSchema})
		}
	}
	if r.ChangesFunc != "" {
		routes = append(routes, RouteSpec{"GET", r.ItemPath + "/changes", r.ItemDocPath + "/changes", read, r.ChangesFunc,
			"List the record's change log, newest first", KindChanges, "", ChangeListSchema})
	}
	if r.Location {
		routes = append(routes,
			RouteSpec{"GET", r.ItemPath + "/location", r.ItemDocPath + "/location", read, r.GetLocationFunc, "Read the stored position; locate=true recalculates it first", KindGetLocation, "", ""},
			RouteSpec{"PUT", r.ItemPath + "/location", r.ItemDocPath + "/location", write, r.PinLocationFunc, "Pin a fixed position that geocoding never overwrites", KindPinLocation, "", ""})
	}
	if r.Documents {
		routes = append(routes,
			RouteSpec{"POST", r.ItemPath + "/documents", r.ItemDocPath + "/documents", write, r.AddDocumentFunc, "Upload a document", KindAddDocument, "", ""},
			RouteSpec{"GET", r.ItemPath + "/documents", r.ItemDocPath + "/documents", read, r.ListDocumentsFunc, "List documents without content", KindListDocuments, "", ""},
			RouteSpec{"GET", r.ItemPath + "/documents/:id", r.ItemDocPath + "/documents/{id}", read, r.GetDocumentFunc, "Download a document's content", KindGetDocument, "", ""})
	}
	// By lookup key, after every route of the key: the server asks the
	// routes a conflict puts apart latest first (runtime Server.handle).
	for _, lk := range r.Lookups {
		routes = append(routes, RouteSpec{"GET", lk.Path, lk.DocPath, read, lk.GetFunc, "Read one record of " + r.Name + " by its " + lk.Field.Name, KindGetBy, "", r.RecordType})
		if lk.UpsertFunc != "" {
			routes = append(routes, RouteSpec{"PUT", lk.Path, lk.DocPath, write, lk.UpsertFunc,
				"Create the record with this " + lk.Field.Name + ", or change the fields sent of the one that has it", KindUpsert, r.UpsertSchema, r.RecordType})
		}
	}
	return routes
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

// UpdateReadOnlyNames are the names a PATCH refuses as read only: the
// read-only ones, and those sent on create only (fields and line lists).
func (r *Register) UpdateReadOnlyNames() []string {
	return sortedUnique(append(r.ReadOnlyNames(), r.CreateOnlyNames()...))
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

// Exported is s with its first letter upper-cased (status → Status): the
// spelling of an exported Go name.
func Exported(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

// Unexported is s with its first letter lower-cased (Customer → customer).
func Unexported(s string) string { return strings.ToLower(s[:1]) + s[1:] }

func sortedUnique(xs []string) []string {
	out := slices.Clone(xs)
	slices.Sort(out)
	return slices.Compact(out)
}
