package codegen

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
	"fieldapi/runtime"
)

// docsTemplate is the reference page: one HTML file with its CSS and a few
// lines of script inline, so it works offline and loads nothing.
//
//go:embed docs.html.tmpl
var docsTemplate string

// docsPage renders generated/docs.html, the API reference served at GET
// /docs: the general rules (authentication, idempotency, paging, writes,
// problems), then per register its fields, routes with scopes, list
// filters and examples. Everything register-specific comes from the model;
// the problem codes come from runtime.ProblemCodes, where they are defined.
//
// Every route row carries data-route="METHOD /httprouter/path", so tests can
// compare the page with the route table.
func docsPage(m *Model) ([]byte, error) {
	tmpl, err := template.New("docs").Funcs(template.FuncMap{
		"json":  highlightJSON,
		"lower": strings.ToLower,
	}).Parse(docsTemplate)
	if err != nil {
		return nil, err
	}
	view, err := newDocsView(m)
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
	ProblemGroups []docsProblemGroup
	DefaultLimit  int
	MaxLimit      int
	MaxBodyMB     int64
	ProblemBase   string
	TokenExample  string // the body of POST /v1/token
	TokenReply    string
	ListExample   string // a list envelope
	ProblemSample string // a problem body
}

// docsProblemGroup is the problem codes of one HTTP status.
type docsProblemGroup struct {
	Status int
	Text   string // Bad Request
	Codes  []runtime.ProblemCode
}

// docsRegister is one register's section of the page.
type docsRegister struct {
	*Register
	Anchor   string // reg-customers
	Fields   []docsField
	Filters  []docsFilter
	Routes   []docsRoute
	Examples []docsExample
	Notes    []template.HTML // register-wide rules: number series, requireOneOf, uncounted
}

// docsField is one row of a register's field table.
type docsField struct {
	Read     string // PascalCase, as read; "" when not in the read shape
	Write    string // camelCase, as sent; "" when never sent
	Type     string // text, number, date, bool, object, list, lines
	Access   string // read only, writable, create only
	Required bool
	Notes    []template.HTML
}

// docsFilter is one query parameter of a register's list.
type docsFilter struct {
	Param, Type, Meaning string
}

// docsRoute is one row of a route table.
type docsRoute struct {
	Method  string
	DocPath string // /v1/customers/{Nr}
	Path    string // /v1/customers/:key, as in the route table
	Scope   string // "" for public routes
	Summary string
	Body    string // the request body's fields in a line, for actions and uploads
	Anchor  string
	Public  bool // needs no key (built-in routes only)
}

// docsExample is one request and its answer, with illustrative values.
type docsExample struct {
	Title   string
	Method  string
	Path    string // with the example key filled in
	Request string // JSON body, or ""
	Status  string // 200 OK
	Reply   string // JSON body, or ""
	Text    string // the answer in words, when Reply is ""
}

// builtinSummaries describe runtime's built-in routes, which no catalog
// declares; a built-in route without one stops the generator.
var builtinSummaries = map[string]string{
	"GET /health":         "200 while the engine answers ({\"status\": \"ok\", \"engine\": \"reachable\", \"latencyMs\": …}), 503 otherwise.",
	"GET /openapi.json":   "The OpenAPI 3.1 document of every route.",
	"GET /docs":           "This page.",
	"POST /v1/token":      "Exchange a key for an access token (client credentials); no Idempotency-Key.",
	"GET /v1/whoami":      "The key's client id (integration), company (tenant) and scopes.",
	"GET /v1/field-names": "The company's labels for standard fields.",
}

func newDocsView(m *Model) (*docsView, error) {
	v := &docsView{
		DefaultLimit: runtime.DefaultLimit,
		MaxLimit:     runtime.MaxLimit,
		MaxBodyMB:    runtime.DefaultMaxBody >> 20,
		ProblemBase:  runtime.DefaultProblemBase,
		TokenExample: indentJSON(orderedJSON{{"clientId", "demo-cli"}, {"clientSecret", "mk_demo-cli_…"}, {"grantType", "client_credentials"}}),
		TokenReply:   indentJSON(orderedJSON{{"access_token", "mt_…"}, {"token_type", "Bearer"}, {"expires_in", 3600}, {"scope", "customers:read customers:write"}}),
		ListExample:  indentJSON(orderedJSON{{"items", []any{}}, {"nextCursor", "eyJrIjoiMTA0MCJ9"}, {"page", 1}, {"total", 60}}),
		ProblemSample: indentJSON(orderedJSON{
			{"type", runtime.DefaultProblemBase + "/command_failed"},
			{"title", "command_failed"},
			{"status", 422},
			{"detail", `times[0]: TimeType "Resa" does not exist`},
			{"validValues", []any{"Normaltid", "Resa, km/dag", "Semester"}},
			{"requestId", "01JD7Q6V3M2K8Z"},
		}),
	}
	for _, b := range runtime.BuiltinRoutes() {
		route := b.Method + " " + b.Path
		summary, ok := builtinSummaries[route]
		if !ok {
			return nil, fmt.Errorf("runtime's built-in route %s has no summary in builtinSummaries", route)
		}
		v.Builtins = append(v.Builtins, docsRoute{Method: b.Method, DocPath: b.Path, Path: b.Path, Public: b.Public, Summary: summary, Anchor: routeAnchor(b.Method, b.Path)})
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
		v.Registers = append(v.Registers, newDocsRegister(r, ownedBy[r.Name]))
	}
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
	owner *Register
	line  *Line
}

func newDocsRegister(r *Register, owners []lineOwner) *docsRegister {
	d := &docsRegister{Register: r, Anchor: registerAnchor(r.Name)}
	d.Notes = registerNotes(r, owners)
	for _, f := range r.Fields {
		d.Fields = append(d.Fields, fieldRow(r, f))
	}
	if r.ExtraFields {
		d.Fields = append(d.Fields, docsField{Read: "ExtraFields", Write: "extraFields", Type: "object", Access: "writable",
			Notes: []template.HTML{"The company's extra fields, by name; " + code("GET "+r.CollectionPath+"/extra-fields") + " describes them. An unknown name or a value of the wrong type is refused (422)."}})
	}
	d.Fields = append(d.Fields, docsField{Read: "Modified", Type: "date", Access: "read only",
		Notes: []template.HTML{"When the record last changed; lists filter on it with " + code("modifiedSince") + " and " + code("modifiedBefore") + "."}})
	for _, l := range r.Lines {
		row := docsField{Write: l.Name, Type: "lines", Access: "create only",
			Notes: []template.HTML{"Lines of " + registerLink(l.Of.Name) + " created with the record, all or nothing. Each line takes the fields of a " + text(l.Of.Name+" create"+lineExclusions(l)+".")}}
		if l.Read {
			row.Read = l.ReadName
			row.Notes = append(row.Notes, "Read back as the whole "+text(l.Of.Name)+" records.")
		}
		if l.Post {
			row.Notes = append(row.Notes, "Add one later with "+code("POST "+l.DocPath)+".")
		}
		d.Fields = append(d.Fields, row)
	}
	for _, fl := range r.Filters {
		d.Filters = append(d.Filters, filterRow(r, fl))
	}
	for _, rt := range r.Routes {
		d.Routes = append(d.Routes, docsRoute{
			Method: rt.Method, DocPath: rt.DocPath, Path: rt.Path, Scope: rt.Scope,
			Summary: rt.Summary, Body: routeBody(r, rt), Anchor: routeAnchor(rt.Method, rt.DocPath),
		})
	}
	d.Examples = registerExamples(r)
	return d
}

// registerNotes are the rules that hold for the whole register; owners
// are the line lists of other registers whose lines are its records.
func registerNotes(r *Register, owners []lineOwner) []template.HTML {
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
		notes = append(notes, "Records carry documents: upload as base64 JSON, list without content, download one with the "+code("Content-Type")+" of its content.")
	}
	return notes
}

// fieldRow describes one catalog field.
func fieldRow(r *Register, f *Field) docsField {
	row := docsField{Read: f.Name, Type: string(f.Type), Required: f.Required}
	switch {
	case f.CreateOnly:
		row.Write, row.Access = f.WriteName, "create only"
	case f.Writable:
		row.Write, row.Access = f.WriteName, "writable"
	default:
		row.Access = "read only"
	}
	if row.Type == "" {
		row.Type = string(catalog.Text)
	}
	if f.Name == r.Key {
		row.Notes = append(row.Notes, "The key.")
	}
	if f.Description != "" {
		row.Notes = append(row.Notes, text(f.Description))
	}
	if f.References != "" {
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
	return row
}

// lineExclusions names what the owner sets on each of its lines.
func lineExclusions(l *Line) string {
	set := slices.Sorted(maps.Keys(l.Set))
	parts := []string{catalog.WriteName(l.Parent) + " (the owner's key)"}
	for _, name := range set {
		parts = append(parts, catalog.WriteName(name)+" (set to "+l.Set[name]+")")
	}
	return ", except " + strings.Join(parts, " and ")
}

// filterRow describes one list filter.
func filterRow(r *Register, fl *catalog.Filter) docsFilter {
	f := r.Field(fl.Field)
	row := docsFilter{Param: fl.Param, Type: string(f.Type)}
	if row.Type == "" {
		row.Type = string(catalog.Text)
	}
	switch fl.Match {
	case catalog.Contains:
		row.Meaning = fl.Field + " contains the text, ignoring case."
	case catalog.OneOf:
		row.Type, row.Meaning = "comma list", fl.Field+" is one of the values."
	case catalog.Hides:
		row.Type, row.Meaning = "bool", "Records whose "+fl.Field+" is "+strings.Join(fl.Values, " or ")+" are left out unless this is true."
	default:
		row.Meaning = fl.Field + " equals the value."
		if fl.Negate {
			row.Meaning = fl.Field + " is the opposite of the value."
		}
	}
	if fl.Default != "" {
		row.Meaning += " Absent: " + fl.Default + "."
	}
	return row
}

// routeBody is a short description of the body of a route whose body has
// no section of its own (actions, locations, uploads).
func routeBody(r *Register, rt RouteSpec) string {
	switch rt.Kind {
	case KindAction:
		for _, a := range r.Actions {
			if a.DocPath == rt.DocPath {
				var parts []string
				for _, f := range a.Body.Fields {
					part := f.WriteName + " (" + fieldType(f) + ")"
					if f.Required {
						part += ", required"
					}
					parts = append(parts, part)
				}
				return "Body: " + strings.Join(parts, "; ") + "."
			}
		}
	case KindPinLocation:
		return "Body: latitude, longitude (numbers, required); address (text)."
	case KindAddDocument:
		return "Body: name (text), contentBase64 (the file, base64), both required."
	case KindAddLine:
		for _, l := range r.Lines {
			if l.DocPath == rt.DocPath {
				return "Body: one line of " + l.Of.Name + ", as in the " + l.Name + " of a create; answers 201."
			}
		}
	case KindCreate:
		if r.CreateReply != nil {
			return "Answers 201 with a summary (see the examples)."
		}
		return "Answers 201 with the record."
	case KindUpdate:
		return "Answers 200 with the whole record."
	}
	return ""
}

func fieldType(f *Field) string {
	if f.Type == "" {
		return string(catalog.Text)
	}
	return string(f.Type)
}
