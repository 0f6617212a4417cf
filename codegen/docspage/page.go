// Package docspage renders the API reference page served at GET /docs
// (generated/docs.html): one self-contained HTML file, a second view of
// the OpenAPI document. Types, nullability, required fields, allowed
// values and examples are read from the document's schemas; the register
// rules in prose from the model; the problem codes from runtime.
package docspage

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"maps"
	"net/http"
	"slices"
	"strings"

	"fieldapi/catalog"
	"fieldapi/codegen/model"
	"fieldapi/codegen/openapi"
	"fieldapi/runtime"
	"fieldapi/runtime/batch"
)

// docsTemplate is the reference page: one HTML file with its CSS and a few
// lines of script inline, so it works offline and loads nothing.
//
//go:embed docs.html.tmpl
var docsTemplate string

// Page renders generated/docs.html, the API reference served at GET
// /docs: the general rules (authentication, idempotency, paging, writes,
// problems), the built-in routes and the shapes they share, then per
// register its fields, routes with scopes, list filters and examples.
//
// The page is a second view of the OpenAPI document doc, built from the same
// model: types, nullability, required fields, allowed values, examples and
// the shared shapes are read from doc's schemas, never worked out again
// here. The register rules in prose come from the model; the problem codes
// from runtime.ProblemCodes, where they are defined.
//
// Every route row carries data-route="METHOD /httprouter/path", so tests can
// compare the page with the route table; every example carries
// data-example="<schema>", the OpenAPI schema whose example it shows.
func Page(m *model.Model, doc *openapi.Document) ([]byte, error) {
	tmpl, err := template.New("docs").Funcs(template.FuncMap{
		"json":  highlightJSON,
		"lower": strings.ToLower,
	}).Parse(docsTemplate)
	if err != nil {
		return nil, err
	}
	view, err := newDocsView(m, doc)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := tmpl.Execute(&buf, view); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// docsView is what the template reads.
type docsView struct {
	Registers     []*docsRegister
	Builtins      []docsRoute
	Shapes        []docsShape
	ProblemGroups []docsProblemGroup
	EventTypes    []catalog.EventType // every event the registers emit
	DefaultLimit  int
	MaxLimit      int
	MaxBodyMB     int64
	ProblemBase   string
	TokenCall     docsExample // POST /v1/token
	BatchCall     docsExample // POST /v1/batch
	BatchFailure  *docsJSON   // an atomic batch's failure
	MaxOperations int
	ListExample   string    // a list envelope, items left out
	ProblemSample *docsJSON // a problem body
	ChangeSample  *docsJSON // a change log as read
	ActionLogs    []docsActionLog
}

// docsActionLog is an action whose change-log entries GET on its path lists.
type docsActionLog struct {
	Register string
	DocPath  string // /v1/tasks/{Nr}/notes
	Anchor   string // the GET's route row
	Log      string // note
}

// docsProblemGroup is the problem codes of one HTTP status.
type docsProblemGroup struct {
	Status int
	Text   string // Bad Request
	Codes  []runtime.ProblemCode
}

// docsRegister is one register's section of the page.
type docsRegister struct {
	*model.Register
	Anchor   string // reg-customers
	Fields   []docsField
	Filters  []docsFilter
	Shaping  docsReadShape // fields= and expand= (shape.go)
	Routes   []docsRoute
	Examples []docsExample
	Notes    []template.HTML // register-wide rules: number series, requireOneOf, uncounted
}

// docsField is one row of a register's field table.
type docsField struct {
	Read     string        // PascalCase, as read; "" when not in the read shape
	Write    string        // camelCase, as sent; "" when never sent
	Type     template.HTML // as the read schema states it: text, number, date, list of text ...
	Nullable bool          // the read schema admits null
	Access   string        // read only, writable, create only
	Required bool          // a create body's schema requires it
	Notes    []template.HTML
}

// docsFilter is one query parameter of a register's list.
type docsFilter struct {
	Param   string
	Type    template.HTML
	Meaning string
}

// docsRoute is one row of a route table.
type docsRoute struct {
	Method  string
	DocPath string // /v1/customers/{Nr}
	Path    string // /v1/customers/:key, as in the route table
	Scope   string // "" for public routes
	Summary string
	Body    template.HTML // what it takes and answers, with links to the shapes
	Anchor  string
	Public  bool // needs no key (built-in routes only)
}

// docsExample is one request and its answer.
type docsExample struct {
	Title   string
	Method  string
	Path    string    // with the example's key filled in
	Request *docsJSON // nil: no body
	Status  string    // 200 OK
	Reply   *docsJSON // nil: Text says what comes back
	Text    string
}

// docsJSON is an example body: the example of one OpenAPI schema, as JSON.
type docsJSON struct {
	Schema string // CustomerCreate
	JSON   string // indented, members in the catalog's order
	Anchor string // ex-CustomerCreate where routes link to it; "" otherwise
}

// docsShape is one of the schemas runtime's built-in parts share (the
// location, document, extra-field, token, health and problem bodies).
type docsShape struct {
	Name        string
	Anchor      string // schema-Location
	Description string
	Props       []docsField // Read holds the property's name
	Example     *docsJSON
}

// builtinShapes are the built-in schemas in the order the page shows them;
// one missing here stops the generator.
var builtinShapes = []string{
	"Location", "LocationPin", "ExtraFieldList", "ExtraFieldDef", "DocumentList", "DocumentInfo",
	"DocumentUpload", "DocumentCreated", model.ChangeListSchema, model.ChangeSchema, "FieldNameList", "FieldName", "Whoami", "TokenRequest", "Token",
	"Health", "Problem",
}

func shapeAnchor(name string) string { return "schema-" + name }

// problemOrder shows a problem's members in the order of RFC 9457.
// The batch examples show an operation and a result as their schemas
// declare them, and a failure as a problem with its batch members last.
func batchRequestOrder(example map[string]any) orderedJSON {
	return inOrder(example, []string{"atomic", "operations"}, map[string]func(map[string]any) orderedJSON{"operations": func(op map[string]any) orderedJSON {
		return inOrder(op, []string{"id", "method", "path", "body"}, nil)
	}})
}

func batchResponseOrder(example map[string]any) orderedJSON {
	return inOrder(example, nil, map[string]func(map[string]any) orderedJSON{"results": func(r map[string]any) orderedJSON {
		return inOrder(r, []string{"id", "status", "etag", "body"}, nil)
	}})
}

func batchFailureOrder(example map[string]any) orderedJSON {
	return inOrder(example, []string{"type", "title", "status", "detail", "requestId", "index", "id", "problem", "notExecuted"}, nil)
}

func problemOrder(example map[string]any) orderedJSON {
	return inOrder(example, []string{"type", "title", "status", "detail"}, nil)
}

// changeOrder shows a change-log entry as engine.Change declares it: when,
// what, then who.
func changeOrder(example map[string]any) orderedJSON {
	return inOrder(example, []string{"At", "Action", "Detail", "Sign", "ClientId", "ViaApi"}, nil)
}

// changeListOrder shows the entries before their count, each in changeOrder.
func changeListOrder(example map[string]any) orderedJSON {
	return inOrder(example, []string{"items", "count"}, map[string]func(map[string]any) orderedJSON{"items": changeOrder})
}

// shapeOrder orders the examples of shapes whose members have a
// conventional order; the others are shown sorted.
var shapeOrder = map[string]func(map[string]any) orderedJSON{"Problem": problemOrder, model.ChangeSchema: changeOrder, model.ChangeListSchema: changeListOrder}

func newDocsView(m *model.Model, doc *openapi.Document) (*docsView, error) {
	schemas := doc.Components.Schemas
	v := &docsView{
		DefaultLimit:  runtime.DefaultLimit,
		MaxLimit:      runtime.MaxLimit,
		MaxBodyMB:     runtime.DefaultMaxBody >> 20,
		ProblemBase:   runtime.DefaultProblemBase,
		ListExample:   indentJSON(orderedJSON{{"items", []any{}}, {"nextCursor", "eyJrIjoiMTA0MCJ9"}, {"page", 1}, {"total", 60}}),
		ProblemSample: schemaExample(schemas, "Problem", "", problemOrder),
		ChangeSample:  schemaExample(schemas, model.ChangeListSchema, "", changeListOrder),
		TokenCall: docsExample{Method: "POST", Path: "/v1/token", Status: statusLine(http.StatusOK),
			Request: schemaExample(schemas, "TokenRequest", "", nil), Reply: schemaExample(schemas, "Token", "", nil)},
		BatchCall: docsExample{Method: "POST", Path: batch.Path, Status: statusLine(http.StatusOK),
			Request: schemaExample(schemas, "BatchRequest", "", batchRequestOrder), Reply: schemaExample(schemas, "BatchResponse", "", batchResponseOrder)},
		BatchFailure:  schemaExample(schemas, openapi.BatchFailureSchema, "", batchFailureOrder),
		MaxOperations: batch.MaxOperations,
	}
	links := newSchemaLinks(m, doc)
	for _, b := range runtime.BuiltinRoutes() {
		op := doc.Operation(b.Method, openapi.DocPath(b.Path))
		if op == nil {
			return nil, fmt.Errorf("runtime's built-in route %s %s is not in the OpenAPI document", b.Method, b.Path)
		}
		summary := op.Summary
		if op.Description != "" {
			summary += ". " + op.Description
		}
		v.Builtins = append(v.Builtins, docsRoute{Method: b.Method, DocPath: openapi.DocPath(b.Path), Path: b.Path, Public: b.Public,
			Scope: b.Scope, Summary: summary, Body: links.operationBody(op), Anchor: routeAnchor(b.Method, b.Path)})
	}
	for _, name := range slices.Sorted(maps.Keys(openapi.BuiltinSchemas())) {
		if !slices.Contains(builtinShapes, name) {
			return nil, fmt.Errorf("built-in schema %s has no place in builtinShapes", name)
		}
	}
	for _, name := range builtinShapes {
		s := schemas[name]
		if s == nil {
			return nil, fmt.Errorf("builtinShapes names %s, which the OpenAPI document lacks", name)
		}
		v.Shapes = append(v.Shapes, docsShape{Name: name, Anchor: shapeAnchor(name), Description: s.Description,
			Props: links.properties(s), Example: schemaExample(schemas, name, "", shapeOrder[name])})

	}
	for _, pc := range runtime.ProblemCodes() {
		if n := len(v.ProblemGroups); n == 0 || v.ProblemGroups[n-1].Status != pc.Status {
			v.ProblemGroups = append(v.ProblemGroups, docsProblemGroup{Status: pc.Status, Text: http.StatusText(pc.Status)})
		}
		g := &v.ProblemGroups[len(v.ProblemGroups)-1]
		g.Codes = append(g.Codes, pc)
	}
	ownedBy := map[string][]lineOwner{} // line register → the line lists holding its records
	for _, r := range m.Registers {
		for _, l := range r.Lines {
			ownedBy[l.Of.Name] = append(ownedBy[l.Of.Name], lineOwner{r, l})
		}
	}
	for _, r := range m.Registers {
		for _, a := range r.Actions {
			if a.Log != "" {
				v.ActionLogs = append(v.ActionLogs, docsActionLog{Register: r.Name, DocPath: a.DocPath, Anchor: routeAnchor("GET", a.DocPath), Log: a.Log})
			}
		}
		d, err := newDocsRegister(r, ownedBy[r.Name], doc, links)
		if err != nil {
			return nil, err
		}
		v.Registers = append(v.Registers, d)
	}
	v.EventTypes = m.EventTypes()
	return v, nil
}

func registerAnchor(name string) string { return "reg-" + name }

// routeAnchor is a route's id on the page: GET /v1/tasks/{Nr} → get-v1-tasks-nr.
func routeAnchor(method, docPath string) string {
	words := strings.FieldsFunc(strings.ToLower(method+" "+docPath), func(c rune) bool {
		return (c < 'a' || c > 'z') && (c < '0' || c > '9')
	})
	return strings.Join(words, "-")
}

// registerLink links to a register's section.
func registerLink(name string) template.HTML {
	return template.HTML(`<a href="#` + registerAnchor(name) + `"><code>` + template.HTMLEscapeString(name) + `</code></a>`)
}

func code(s string) template.HTML {
	return template.HTML("<code>" + template.HTMLEscapeString(s) + "</code>")
}

func text(s string) template.HTML { return template.HTML(template.HTMLEscapeString(s)) }

// lineOwner is a register and one of its line lists.
type lineOwner struct {
	owner *model.Register
	line  *model.Line
}

func newDocsRegister(r *model.Register, owners []lineOwner, doc *openapi.Document, links schemaLinks) (*docsRegister, error) {
	schemas := doc.Components.Schemas
	read := schemas[r.RecordType]
	if read == nil {
		return nil, fmt.Errorf("register %s: the OpenAPI document has no schema %s", r.Name, r.RecordType)
	}
	// A field is required where a create body's schema says so: the
	// register's own create, or a line of an owner.
	var required []string
	if c := schemas[r.CreateSchema]; c != nil && r.Has(catalog.Create) {
		required = append(required, c.Required...)
	}
	for _, o := range owners {
		required = append(required, schemas[o.line.Schema].Required...)
	}
	d := &docsRegister{Register: r, Anchor: registerAnchor(r.Name), Shaping: shapeDocs(r)}
	d.Notes = registerNotes(r, owners)
	row := func(readName string, prop *openapi.Schema) docsField {
		t, nullable := links.typeOf(prop)
		return docsField{Read: readName, Type: t, Nullable: nullable}
	}
	for _, f := range r.Fields {
		d.Fields = append(d.Fields, fieldRow(r, f, row(f.Name, read.Properties[f.Name]), slices.Contains(required, f.WriteName)))
	}
	if r.ExtraFields {
		ef := row("ExtraFields", read.Properties["ExtraFields"])
		ef.Write, ef.Access = "extraFields", "writable"
		ef.Notes = []template.HTML{"The company's extra fields, by name; " + code("GET "+r.CollectionPath+"/extra-fields") + " describes them (" + links.link("ExtraFieldList") + "). An unknown name or a value of the wrong type is refused (422)."}
		d.Fields = append(d.Fields, ef)
	}
	modified := row("Modified", read.Properties["Modified"])
	modified.Access = "read only"
	modified.Notes = []template.HTML{"When the record last changed; lists filter on it with " + code("modifiedSince") + " and " + code("modifiedBefore") + "."}
	d.Fields = append(d.Fields, modified)
	for _, l := range r.Lines {
		// Sent as a list of line bodies; read back, when it is, as records.
		line := docsField{Type: "list of lines"}
		if l.Read {
			line = row(l.ReadName, read.Properties[l.ReadName])
		}
		line.Write, line.Access = l.Name, "create only"
		line.Notes = []template.HTML{"Lines of " + registerLink(l.Of.Name) + " created with the record, all or nothing. Each line takes the fields of a " + text(l.Of.Name+" create"+lineExclusions(l)+".")}
		if l.Read {
			line.Notes = append(line.Notes, "Read back as the whole "+text(l.Of.Name)+" records.")
		}
		if l.Post {
			line.Notes = append(line.Notes, "Add one later with "+code("POST "+l.DocPath)+".")
		}
		d.Fields = append(d.Fields, line)
	}
	list := doc.Operation("GET", r.CollectionPath)
	for _, fl := range r.Filters {
		d.Filters = append(d.Filters, filterRow(r, fl, list, links))
		d.Filters = append(d.Filters, opFilterRows(r, fl, list, links)...)
	}
	d.Filters = append(d.Filters, sortRows(r)...)
	for _, rt := range r.Routes {
		route := docsRoute{Method: rt.Method, DocPath: rt.DocPath, Path: rt.Path, Scope: rt.Scope,
			Summary: rt.Summary, Anchor: routeAnchor(rt.Method, rt.DocPath)}
		if op := doc.Operation(rt.Method, rt.DocPath); op != nil {
			route.Body = links.operationBody(op)
		}
		for _, a := range r.Actions {
			if rt.Kind == model.KindAction && a.DocPath == rt.DocPath {
				route.Body += "<br>" + links.inlineBody(schemas[a.Body.Type], a.Body.Fields)
			}
		}
		d.Routes = append(d.Routes, route)
	}
	d.Examples = registerExamples(r, schemas)
	return d, nil
}

// registerNotes are the rules that hold for the whole register; owners
// are the line lists of other registers whose lines are its records.
func registerNotes(r *model.Register, owners []lineOwner) []template.HTML {
	var notes []template.HTML
	notes = append(notes, "Records are addressed by "+code(r.Key)+": "+code(r.ItemDocPath)+".")
	if len(owners) > 0 {
		var where []string
		for _, o := range owners {
			where = append(where, "<code>"+template.HTMLEscapeString(o.line.Name)+"</code> of "+string(registerLink(o.owner.Name)))
		}
		how := "Also created as lines of their owner: "
		if !r.Has(catalog.Create) {
			how = "Created only as lines of their owner (create-only fields are sent there): "
		}
		notes = append(notes, template.HTML(how+strings.Join(where, ", ")+"."))
	}
	if r.NumberSeries {
		notes = append(notes, "A create that omits "+code(catalog.WriteName(r.Key))+" is given the next number of the engine's number series.")
	}
	if r.EngineKeyed() {
		notes = append(notes, "The engine assigns "+code(r.Key)+"; it is never sent.")
	}
	if len(r.RequireOneOf) > 0 {
		var names []string
		for _, n := range r.RequireOneOf {
			names = append(names, "<code>"+template.HTMLEscapeString(catalog.WriteName(n))+"</code>")
		}
		notes = append(notes, template.HTML("A create must send at least one of "+strings.Join(names, ", ")+"."))
	}
	if !r.HasWrites {
		notes = append(notes, "Read only here: changed in the engine's administration. Writes answer 405 "+code("method_not_allowed")+"; the scope "+code(r.WriteScope)+" exists but grants nothing.")
	}
	if r.Uncounted {
		notes = append(notes, "Lists answer "+code(`"total": null`)+": the engine does not count this register.")
	}
	if r.Location {
		notes = append(notes, "Records carry a position: "+code("GET "+r.ItemDocPath+"/location")+" reads it ("+code("locate=true")+" recalculates it first, "+code("force=true")+" even when one exists); "+code("PUT")+" pins a position that geocoding never overwrites.")
	}
	if r.Documents {
		notes = append(notes, "Records carry documents: upload as base64 JSON, list without content, download one with the "+code(runtime.HeaderContentType)+" of its content.")
	}
	if r.HasWrites {
		whose := "the record's"
		if len(owners) > 0 {
			whose = "the record's, and its owner's"
		}
		notes = append(notes, "Every write leaves an entry in "+text(whose)+" change log: "+code("GET "+r.ItemDocPath+"/changes")+
			" lists a record's, newest first (see <a href=\"#changes\">Change log</a>).")
	}
	for _, a := range r.Actions {
		if a.Log != "" {
			notes = append(notes, code("GET "+a.DocPath)+" lists the entries "+code("POST "+a.DocPath)+" wrote, action "+code(a.Log)+", newest first.")
		}
	}
	return notes
}

// fieldRow completes the row of one catalog field, whose type the read
// schema gave, with its access and notes.
func fieldRow(r *model.Register, f *model.Field, row docsField, required bool) docsField {
	row.Required = required
	switch {
	case f.CreateOnly:
		row.Write, row.Access = f.WriteName, "create only"
	case f.Writable:
		row.Write, row.Access = f.WriteName, "writable"
	default:
		row.Access = "read only"
	}
	if f.Name == r.Key {
		row.Notes = append(row.Notes, "The key.")
	}
	if f.LookupKey {
		row.Notes = append(row.Notes, "A lookup key: unique in the company (409 already_exists), and "+code("/by-"+f.WriteName+"/{"+f.WriteName+"}")+" addresses the record by it.")
	}
	if f.Description != "" {
		row.Notes = append(row.Notes, text(f.Description))
	}
	if f.References != "" && f.ReferencesBy != "" {
		row.Notes = append(row.Notes, code(f.ReferencesBy)+" (a lookup key) of a record in "+registerLink(f.References)+"; the engine refuses an unknown one (422).")
	} else if f.References != "" {
		row.Notes = append(row.Notes, "Key of a record in "+registerLink(f.References)+"; the engine refuses an unknown one (422).")
	}
	if ref, field, ok := strings.Cut(f.Lookup, "."); ok {
		row.Notes = append(row.Notes, "Copied from the "+code(field)+" of the record "+code(ref)+" points to.")
	}
	// A description that speaks of omission already tells the default.
	if def, ok := r.Defaults[f.Name]; ok && !strings.Contains(strings.ToLower(f.Description), "omitted") {
		when := template.HTML("Omitted on create: ")
		if row.Access == "read only" {
			when = "Set on create: "
		}
		switch def {
		case "$today":
			row.Notes = append(row.Notes, when+"today, in the company's time zone.")
		case "$sign":
			row.Notes = append(row.Notes, when+"the key's own signature.")
		default:
			row.Notes = append(row.Notes, when+code(def)+".")
		}
	}
	if row.Write != "" && !f.Clearable() {
		row.Notes = append(row.Notes, "Always has a value: "+code(`""`)+" is refused (400 "+code("invalid_field")+").")
	}
	return row
}

// lineExclusions names what the owner sets on each of its lines.
func lineExclusions(l *model.Line) string {
	set := slices.Sorted(maps.Keys(l.Set))
	parts := []string{catalog.WriteName(l.Parent) + " (the owner's key)"}
	for _, name := range set {
		parts = append(parts, catalog.WriteName(name)+" (set to "+l.Set[name]+")")
	}
	return ", except " + strings.Join(parts, " and ")
}

// filterRow describes one list filter; its type is the list operation's
// parameter schema.
func filterRow(r *model.Register, fl *catalog.Filter, list *openapi.Operation, links schemaLinks) docsFilter {
	row := docsFilter{Param: fl.Param, Type: "text"}
	if list != nil {
		for _, p := range list.Parameters {
			if p.Name == fl.Param && p.In == "query" {
				row.Type, _ = links.typeOf(p.Schema)
			}
		}
	}
	switch fl.Match {
	case catalog.Contains:
		row.Meaning = fl.Field + " contains the text, ignoring case."
	case catalog.OneOf:
		row.Meaning = fl.Field + " is one of the values, separated by commas."
	case catalog.Hides:
		row.Meaning = "Records whose " + fl.Field + " is " + strings.Join(fl.Values, " or ") + " are left out unless this is true."
	default:
		row.Meaning = fl.Field + " equals the value."
		if fl.Negate {
			row.Meaning = fl.Field + " is the opposite of the value."
		}
	}
	if fl.Default != "" {
		row.Meaning += " Absent: " + fl.Default + "."
	}
	if f := r.Field(fl.Field); f != nil && len(f.Enum) > 0 {
		row.Meaning += " Values: " + strings.Join(f.Enum, ", ") + "."
	}
	return row
}
