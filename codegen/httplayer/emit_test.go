package httplayer

import (
	"bytes"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
	"testing"

	"github.com/dave/jennifer/jen"
	"github.com/matryer/is"

	"fieldapi/catalog"
	"fieldapi/codegen/internal/modeltest"
	"fieldapi/codegen/model"
)

// renderDecl renders one construct into a file of the generated package and
// returns the Go after the package clause and imports, and the import paths
// jennifer tracked (so a missing Qual shows up as a missing import).
func renderDecl(t *testing.T, emit func(*jen.File)) (decl string, imports []string) {
	t.Helper()
	f := newFile("fieldapi/generated")
	emit(f)
	var buf bytes.Buffer
	if err := f.Render(&buf); err != nil {
		t.Fatalf("render: %v\n%#v", err, f)
	}
	src := buf.Bytes()
	fset := token.NewFileSet()
	af, err := parser.ParseFile(fset, "", src, parser.ImportsOnly)
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, src)
	}
	for _, imp := range af.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		imports = append(imports, path)
	}
	end := fset.Position(af.End()).Offset
	return strings.TrimSpace(string(src[end:])) + "\n", imports
}

// goText turns ´ into a backtick, so expected struct tags fit in raw strings.
func goText(s string) string { return strings.ReplaceAll(s, "´", "`") }

// TestEmitters renders each construct alone for the small parts/notes
// catalog and compares it with the Go it must produce.
func TestEmitters(t *testing.T) {
	m, parts, notes := modeltest.Parts(t)
	cases := []struct {
		name    string
		emit    func(*jen.File)
		imports []string
		want    string
	}{
		{
			name: "recordStruct",
			emit: func(f *jen.File) { recordStruct(f, parts) },
			want: `// Part is a record of the parts register as read, with PascalCase names (catalog/parts.yaml).
// Spare parts in stock.
type Part struct {
	Nr          *string           ´json:"Nr"´
	Name        *string           ´json:"Name"´ // What the part is called.
	Price       *float64          ´json:"Price"´
	Serial      *string           ´json:"Serial"´
	Stocked     *bool             ´json:"Stocked"´
	Modified    *string           ´json:"Modified"´    // when the record last changed; read only
	ExtraFields map[string]string ´json:"ExtraFields"´ // the company's own fields; every defined key, values as strings
}
`,
		},
		{
			name: "recordStruct without extra fields or description",
			emit: func(f *jen.File) { recordStruct(f, notes) },
			want: `// Note is a record of the notes register as read, with PascalCase names (catalog/notes.yaml).
type Note struct {
	Id       *string ´json:"Id"´
	PartNr   *string ´json:"PartNr"´
	Text     *string ´json:"Text"´
	Modified *string ´json:"Modified"´ // when the record last changed; read only
}
`,
		},
		{
			name:    "viewFunc",
			emit:    func(f *jen.File) { viewFunc(f, parts) },
			imports: []string{"fieldapi/engine"},
			want: `// viewPart maps an engine record to its read shape.
func viewPart(rec engine.Record) Part {
	return Part{
		Nr:          rec.Text("Nr"),
		Name:        rec.Text("Name"),
		Price:       rec.Number("Price"),
		Serial:      rec.Text("Serial"),
		Stocked:     rec.Bool("Stocked"),
		Modified:    rec.Text("Modified"),
		ExtraFields: rec.Object("ExtraFields"),
	}
}
`,
		},
		{
			name:    "writeStruct",
			emit:    func(f *jen.File) { writeStruct(f, parts.Body) },
			imports: []string{"fieldapi/runtime"},
			want: `// PartWrite is a camelCase request body of the parts register (catalog/parts.yaml).
// Only the fields present are written; null leaves a field untouched and "" clears it.
type PartWrite struct {
	Nr          runtime.Optional[string]            ´json:"nr"´
	Name        runtime.Optional[string]            ´json:"name"´
	Price       runtime.Optional[float64]           ´json:"price"´
	Serial      runtime.Optional[string]            ´json:"serial"´ // create only
	ExtraFields runtime.Optional[map[string]string] ´json:"extraFields"´
	Notes       []NoteWrite                         ´json:"notes"´ // notes lines created with the record, all or nothing
}
`,
		},
		{
			name:    "decodeFieldMethod",
			emit:    func(f *jen.File) { decodeFieldMethod(f, parts.Body) },
			imports: []string{"encoding/json", "fieldapi/runtime"},
			want: `// DecodeField decodes one member of the body; the shape has checked the name.
func (w *PartWrite) DecodeField(name string, raw json.RawMessage) (err error) {
	switch name {
	case "nr":
		return w.Nr.Decode(raw)
	case "name":
		return w.Name.Decode(raw)
	case "price":
		return w.Price.Decode(raw)
	case "serial":
		return w.Serial.Decode(raw)
	case "extraFields":
		return w.ExtraFields.Decode(raw)
	case "notes":
		w.Notes, err = runtime.DecodeLines[NoteWrite](raw, "notes", partNotesShape)
		return err
	}
	return runtime.UnknownField(name, nil)
}
`,
		},
		{
			name:    "inputMethod",
			emit:    func(f *jen.File) { inputMethod(f, parts.Body) },
			imports: []string{"fieldapi/engine", "fieldapi/runtime"},
			want: `// Input maps the body to the engine's PascalCase input.
func (w *PartWrite) Input() engine.Input {
	in := engine.NewInput()
	w.Nr.Put(in.Values, "Nr")
	w.Name.Put(in.Values, "Name")
	w.Price.Put(in.Values, "Price")
	w.Serial.Put(in.Values, "Serial")
	if w.ExtraFields.Presence == runtime.Set {
		in.Extra = w.ExtraFields.Value
	}
	for i := range w.Notes {
		in.AddLine("notes", w.Notes[i].Input())
	}
	return in
}
`,
		},
		{
			name:    "inputMethod of a line register",
			emit:    func(f *jen.File) { inputMethod(f, notes.Body) },
			imports: []string{"fieldapi/engine"},
			want: `// Input maps the body to the engine's PascalCase input.
func (w *NoteWrite) Input() engine.Input {
	in := engine.NewInput()
	w.PartNr.Put(in.Values, "PartNr")
	w.Text.Put(in.Values, "Text")
	return in
}
`,
		},
		{
			name:    "createShapeVar",
			emit:    func(f *jen.File) { createShapeVar(f, parts) },
			imports: []string{"fieldapi/runtime"},
			want: `// partCreateShape is what POST /v1/parts accepts.
var partCreateShape = runtime.Shape{
	Writable: []string{"nr", "name", "price", "serial", "extraFields", "notes"},
	ReadOnly: []string{"stocked", "modified"},
	Required: []string{"name"},
}
`,
		},
		{
			name:    "updateShapeVar refuses create-only names and line lists",
			emit:    func(f *jen.File) { updateShapeVar(f, parts) },
			imports: []string{"fieldapi/runtime"},
			want: `// partUpdateShape is what PATCH /v1/parts/{Nr} accepts.
var partUpdateShape = runtime.Shape{
	Writable: []string{"nr", "name", "price", "extraFields"},
	ReadOnly: []string{"modified", "notes", "serial", "stocked"},
	Required: nil,
}
`,
		},
		{
			name:    "lineShapeVar leaves out the parent key",
			emit:    func(f *jen.File) { lineShapeVar(f, parts, parts.Lines[0]) },
			imports: []string{"fieldapi/runtime"},
			want: `// partNotesShape is what one line of notes accepts in POST /v1/parts.
var partNotesShape = runtime.Shape{
	Writable: []string{"text"},
	ReadOnly: []string{"id", "modified", "partNr"},
	Required: nil,
}
`,
		},
		{
			name:    "filtersVar",
			emit:    func(f *jen.File) { filtersVar(f, parts) },
			imports: []string{"fieldapi/runtime"},
			want: `// partFilters are the query filters of GET /v1/parts.
var partFilters = []runtime.Filter{
	{Param: "name", Field: "Name", Kind: runtime.KindText, Match: runtime.Contains},
	{Param: "outOfStock", Field: "Stocked", Kind: runtime.KindBool, Match: runtime.Equals, Negate: true},
}
`,
		},
		{
			name:    "filtersVar without filters",
			emit:    func(f *jen.File) { filtersVar(f, notes) },
			imports: []string{"fieldapi/runtime"},
			want: `// noteFilters are the query filters of GET /v1/notes.
var noteFilters = []runtime.Filter{}
`,
		},
		{
			name:    "listHandler",
			emit:    func(f *jen.File) { listHandler(f, parts) },
			imports: []string{"fieldapi/runtime"},
			want: `// listParts serves GET /v1/parts.
func listParts(c *runtime.Call) error {
	return runtime.List(c, "parts", partFilters, partReadShape, viewPart)
}
`,
		},
		{
			name:    "createHandler",
			emit:    func(f *jen.File) { createHandler(f, parts) },
			imports: []string{"fieldapi/runtime"},
			want: `// createPart serves POST /v1/parts.
func createPart(c *runtime.Call) error {
	return runtime.Create[PartWrite](c, "parts", partCreateShape, viewPart)
}
`,
		},
		{
			name:    "updateHandler",
			emit:    func(f *jen.File) { updateHandler(f, parts) },
			imports: []string{"fieldapi/runtime"},
			want: `// updatePart serves PATCH /v1/parts/{Nr}.
func updatePart(c *runtime.Call) error {
	return runtime.Update[PartWrite](c, "parts", partUpdateShape, viewPart)
}
`,
		},
		{
			name:    "routesFunc",
			emit:    func(f *jen.File) { routesFunc(f, parts) },
			imports: []string{"fieldapi/runtime", "net/http"},
			want: `// partRoutes are the routes of the parts register with the scope each needs.
func partRoutes() []runtime.Route {
	return []runtime.Route{
		{Method: http.MethodGet, Path: "/v1/parts", Scope: "parts:read", Handler: listParts},
		{Method: http.MethodGet, Path: "/v1/parts/extra-fields", Scope: "parts:read", Handler: partExtraFields},
		{Method: http.MethodGet, Path: "/v1/parts/:key", Scope: "parts:read", Handler: getPart},
		{Method: http.MethodPost, Path: "/v1/parts", Scope: "parts:write", Handler: createPart, Created: &runtime.Created{Member: "Nr"}},
		{Method: http.MethodPatch, Path: "/v1/parts/:key", Scope: "parts:write", Handler: updatePart},
		{Method: http.MethodPut, Path: "/v1/parts/:key", Scope: "parts:write", Handler: upsertPart, Created: &runtime.Created{
			Base:   "/v1/parts",
			Member: "Nr",
		}},
		{Method: http.MethodGet, Path: "/v1/parts/:key/changes", Scope: "parts:read", Handler: listPartChanges},
	}
}
`,
		},
		{
			name:    "changesHandler",
			emit:    func(f *jen.File) { changesHandler(f, parts) },
			imports: []string{"fieldapi/runtime"},
			want: `// listPartChanges serves GET /v1/parts/{Nr}/changes.
func listPartChanges(c *runtime.Call) error {
	return runtime.Changes(c, "parts")
}
`,
		},
		{
			name: "actionLogHandler",
			emit: func(f *jen.File) {
				actionLogHandler(f, parts, &model.Action{Action: &catalog.Action{Name: "inspect", Log: "inspected"}, LogFunc: "listPartInspect", DocPath: "/v1/parts/{Nr}/inspect"})
			},
			imports: []string{"fieldapi/runtime"},
			want: `// listPartInspect serves GET /v1/parts/{Nr}/inspect.
func listPartInspect(c *runtime.Call) error {
	return runtime.ActionLog(c, "parts", "inspected")
}
`,
		},
		{
			name:    "routesFunc of a read-only register",
			emit:    func(f *jen.File) { routesFunc(f, notes) },
			imports: []string{"fieldapi/runtime", "net/http"},
			want: `// noteRoutes are the routes of the notes register with the scope each needs.
func noteRoutes() []runtime.Route {
	return []runtime.Route{
		{Method: http.MethodGet, Path: "/v1/notes", Scope: "notes:read", Handler: listNotes},
		{Method: http.MethodGet, Path: "/v1/notes/:key", Scope: "notes:read", Handler: getNote},
	}
}
`,
		},
		{
			name:    "allRoutesFunc",
			emit:    func(f *jen.File) { allRoutesFunc(f, m) },
			imports: []string{"fieldapi/runtime"},
			want: `// Routes is every route of the catalog with the scope it needs.
func Routes() []runtime.Route {
	var routes []runtime.Route
	routes = append(routes, noteRoutes()...)
	routes = append(routes, partRoutes()...)
	return routes
}
`,
		},
		{
			name: "scopesFunc",
			emit: func(f *jen.File) { scopesFunc(f, m) },
			want: `// Scopes is every scope a key may hold: read and write of each register.
func Scopes() []string {
	return []string{
		"notes:read",
		"notes:write",
		"parts:read",
		"parts:write",
	}
}
`,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			got, imports := renderDecl(t, tc.emit)
			if want := goText(tc.want); got != want {
				t.Errorf("got:\n%s\nwant:\n%s", got, want)
			}
			is.Equal(imports, tc.imports) // imports tracked through Qual
		})
	}
}
