package docspage

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"html"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/matryer/is"

	"fieldapi/codegen/internal/modeltest"
	"fieldapi/codegen/model"
	"fieldapi/codegen/openapi"
	"fieldapi/runtime"
)

// realDocs renders the reference page of the real catalog.
func realDocs(t *testing.T) (*model.Model, string) {
	t.Helper()
	m := modeltest.Builtin(t)
	return m, renderDocs(t, m)
}

// renderDocs renders a model's reference page from its OpenAPI document.
func renderDocs(t *testing.T, m *model.Model) string {
	t.Helper()
	page, err := Page(m, mustDocument(t, m))
	if err != nil {
		t.Fatal(err)
	}
	return string(page)
}

func mustDocument(t *testing.T, m *model.Model) *openapi.Document {
	t.Helper()
	doc, err := openapi.NewDocument(m)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

var dataRoute = regexp.MustCompile(`data-route="([^"]+)"`)

// pageRoutes are the routes the page documents, as "METHOD /path" in the
// route table's syntax.
func pageRoutes(page string) []string {
	var routes []string
	for _, m := range dataRoute.FindAllStringSubmatch(page, -1) {
		routes = append(routes, html.UnescapeString(m[1]))
	}
	return routes
}

// TestDocsCoverEveryRoute: every built-in route, and every route of every
// register of the real catalog, has a row on the page (a register's with
// its scope), and each register its section and sidebar entry.
func TestDocsCoverEveryRoute(t *testing.T) {
	m, page := realDocs(t)
	documented := pageRoutes(page)
	for _, b := range runtime.BuiltinRoutes() {
		if !slices.Contains(documented, b.Method+" "+b.Path) {
			t.Errorf("runtime's built-in route %s %s is not on the page", b.Method, b.Path)
		}
	}
	for _, r := range m.Registers {
		if !strings.Contains(page, `<section id="`+registerAnchor(r.Name)+`">`) || !strings.Contains(page, `<a href="#`+registerAnchor(r.Name)+`">`) {
			t.Errorf("register %s has no section or no sidebar entry", r.Name)
		}
		for _, rt := range r.Routes {
			route := rt.Method + " " + rt.Path
			if !slices.Contains(documented, route) {
				t.Errorf("route %s is not on the page", route)
				continue
			}
			row := page[strings.Index(page, `data-route="`+route+`"`):]
			row, _, _ = strings.Cut(row, "</tr>")
			if !strings.Contains(row, `<td class="scope">`+rt.Scope+`</td>`) || !strings.Contains(row, html.EscapeString(rt.DocPath)) {
				t.Errorf("route %s: row without its scope %s or path %s: %s", route, rt.Scope, rt.DocPath, row)
			}
		}
	}
}

// TestDocsListEveryProblemCode reads runtime's source, where every problem
// code is declared as a ProblemCode literal, and finds each code on the
// page: a code added to runtime cannot be left out of the page.
func TestDocsListEveryProblemCode(t *testing.T) {
	is := is.New(t)
	_, page := realDocs(t)
	codes := runtimeProblemCodes(t)
	is.True(len(codes) >= 20) // the parser found the table
	for _, code := range codes {
		if !strings.Contains(page, `data-problem="`+code+`"`) {
			t.Errorf("problem code %s is not on the page", code)
		}
	}
}

// runtimeProblemCodes are the codes of every ProblemCode composite literal
// in runtime's non-test Go files.
func runtimeProblemCodes(t *testing.T) []string {
	t.Helper()
	fset := token.NewFileSet()
	dir := filepath.Join("..", "..", "runtime")
	var codes []string
	err := fs.WalkDir(os.DirFS(dir), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, path), nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.CompositeLit)
			if !ok {
				return true
			}
			if id, ok := lit.Type.(*ast.Ident); !ok || id.Name != "ProblemCode" || len(lit.Elts) < 2 {
				return true
			}
			code := lit.Elts[1]
			if kv, ok := code.(*ast.KeyValueExpr); ok {
				code = kv.Value
			}
			if s, ok := code.(*ast.BasicLit); ok && s.Kind == token.STRING {
				unquoted, err := strconv.Unquote(s.Value)
				if err == nil {
					codes = append(codes, unquoted)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return codes
}

// TestDocsLoadNothing: the page works offline. It names no stylesheet,
// script, image, font or frame to fetch, and the only links that leave the
// page go to this server's own paths.
func TestDocsLoadNothing(t *testing.T) {
	_, page := realDocs(t)
	for _, tag := range []string{"link", "img", "iframe", "object", "embed", "video", "audio", "source"} {
		if strings.Contains(page, "<"+tag) {
			t.Errorf("the page has a <%s> element", tag)
		}
	}
	for _, bad := range []string{" src=", "@import", "url(", "@font-face"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page contains %q", bad)
		}
	}
	for _, m := range regexp.MustCompile(`href="([^"]*)"`).FindAllStringSubmatch(page, -1) {
		if !strings.HasPrefix(m[1], "#") && !strings.HasPrefix(m[1], "/") {
			t.Errorf("link %q leaves the server", m[1])
		}
	}
}

// partsExamples give the small catalog's registers their example records.
const (
	partsExample = "example: {Nr: '1001', Name: Pump seal, Price: 12.5, Serial: S-77, Stocked: true, Modified: '2026-05-04T10:15:00Z', ExtraFields: {Colour: red}}\n"
	notesExample = "example: {Id: '7', PartNr: '1001', Text: Check the seal yearly., Modified: '2026-05-04T10:15:00Z'}\n"
)

// TestDocsRegisterDetails checks one register's section against its
// catalog: both names of a field, its type, nullability and access as the
// OpenAPI schemas state them, a description, a reference link, the list
// filters and the examples drawn from the catalog's example.
func TestDocsRegisterDetails(t *testing.T) {
	is := is.New(t)
	m := modeltest.Of(t, map[string]string{"parts.yaml": modeltest.PartsYAML + partsExample, "notes.yaml": modeltest.NotesYAML + notesExample})
	page := renderDocs(t, m)
	section := page[strings.Index(page, `<section id="reg-parts">`):]
	section, _, _ = strings.Cut(section, "</section>")

	has := func(s string) {
		t.Helper()
		if !strings.Contains(section, s) {
			t.Errorf("the parts section lacks %q", s)
		}
	}
	has(`<td class="fname"><code>Nr</code></td><td class="wname" data-label="write"><code>nr</code></td><td class="type">text</td>`) // the key is never null
	has(`<td class="fname"><code>Name</code></td><td class="wname" data-label="write"><code>name</code></td><td class="type">text <span class="nullable">or null</span></td><td class="nowrap"><span class="access a-writable">writable</span><span class="req">required</span></td><td>What the part is called.</td>`)
	has(`<td class="fname"><code>Price</code></td><td class="wname" data-label="write"><code>price</code></td><td class="type">number <span class="nullable">or null</span></td>`)
	has(`<td class="fname"><code>Serial</code></td><td class="wname" data-label="write"><code>serial</code></td><td class="type">text <span class="nullable">or null</span></td><td class="nowrap"><span class="access a-create">create only</span>`)
	has(`<td class="fname"><code>Stocked</code></td><td class="wname no-write" data-label="write"><span class="none">—</span></td><td class="type">bool <span class="nullable">or null</span></td><td class="nowrap"><span class="access a-read">read only</span>`)
	has(`<td class="fname"><code>ExtraFields</code></td><td class="wname" data-label="write"><code>extraFields</code></td><td class="type">object of text</td>`)
	has(`Lines of <a href="#reg-notes"><code>notes</code></a> created with the record, all or nothing.`)
	has(`<td><code>name</code></td><td class="type">text</td><td>Name contains the text, ignoring case.</td>`)
	has(`<td><code>outOfStock</code></td><td class="type">bool</td><td>Stocked is the opposite of the value.</td>`)
	has(`Body: <a href="#ex-PartCreate"><code>PartCreate</code></a> · 201: <a href="#reg-parts"><code>Part</code></a>`)
	has(`<span class="method m-post">POST</span><span class="path">/v1/parts</span>`)
	has(`<span class="method m-patch">PATCH</span><span class="path">/v1/parts/1001</span>`) // the example's key
	has(`<pre id="ex-PartCreate" data-example="PartCreate"><code>{
  <span class="j-k">"name"</span>: <span class="j-s">"Pump seal"</span>,`) // the catalog's order; the numbered key is left to the series
	has(`<span class="j-k">"notes"</span>: [
    {
      <span class="j-k">"text"</span>: <span class="j-s">"Check the seal yearly."</span>`) // a line without its parent key
	has(`From the demo data`)

	notes := page[strings.Index(page, `<section id="reg-notes">`):]
	is.True(strings.Contains(notes, `Key of a record in <a href="#reg-parts"><code>parts</code></a>`))                                                                               // a reference links its register
	is.True(strings.Contains(notes, `Created only as lines of their owner (create-only fields are sent there): <code>notes</code> of <a href="#reg-parts"><code>parts</code></a>.`)) // a line register names its owner

	bare := renderDocs(t, modeltest.Of(t, map[string]string{"parts.yaml": modeltest.PartsYAML, "notes.yaml": modeltest.NotesYAML}))
	is.True(strings.Contains(bare, "The catalog gives no example of this register.")) // no invented values instead
	is.True(!strings.Contains(bare, "data-example=\"Part"))
}

// examplePre is one example block of the page: its schema and its JSON.
var examplePre = regexp.MustCompile(`(?s)<pre[^>]* data-example="([^"]+)"><code>(.*?)</code></pre>`)

var htmlTag = regexp.MustCompile(`<[^>]+>`)

// TestDocsExamplesAreTheDocuments: every example the page shows is, value
// for value, the example the OpenAPI document gives the same schema, and
// every register schema with an example in the document is shown.
func TestDocsExamplesAreTheDocuments(t *testing.T) {
	is := is.New(t)
	m, page := realDocs(t)
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Examples []any `json:"examples"`
			} `json:"schemas"`
		} `json:"components"`
	}
	data, err := openapi.Marshal(mustDocument(t, m))
	is.NoErr(err)
	is.NoErr(json.Unmarshal(data, &doc))

	shown := map[string]bool{}
	for _, match := range examplePre.FindAllStringSubmatch(page, -1) {
		schema, body := match[1], html.UnescapeString(htmlTag.ReplaceAllString(match[2], ""))
		var got any
		if err := json.Unmarshal([]byte(body), &got); err != nil {
			t.Errorf("example of %s is not JSON: %v\n%s", schema, err, body)
			continue
		}
		want := doc.Components.Schemas[schema].Examples
		if len(want) == 0 {
			t.Errorf("the page shows an example of %s, which has none in the document", schema)
			continue
		}
		if !reflect.DeepEqual(got, want[0]) {
			t.Errorf("example of %s differs from the document's:\npage     %v\ndocument %v", schema, got, want[0])
		}
		shown[schema] = true
	}
	is.True(len(shown) > 2*len(m.Registers)) // reads, creates, updates, lines, actions, replies, shapes
	for _, r := range m.Registers {
		names := []string{r.RecordType, r.CreateSchema, r.UpdateSchema}
		for _, l := range r.Lines {
			if l.Post {
				names = append(names, l.Schema)
			}
		}
		for _, a := range r.Actions {
			names = append(names, a.Body.Type)
		}
		for _, rp := range r.Replies() {
			names = append(names, rp.Type)
		}
		for _, name := range names {
			if len(doc.Components.Schemas[name].Examples) > 0 && !shown[name] {
				t.Errorf("the document's example of %s is not on the page", name)
			}
		}
	}
	for _, name := range builtinShapes {
		if len(doc.Components.Schemas[name].Examples) > 0 && !shown[name] {
			t.Errorf("the document's example of %s is not on the page", name)
		}
	}
}

// TestDocsShowSharedShapes: every built-in schema of the document has its
// table on the page, one row per property, marked required as the schema
// says.
func TestDocsShowSharedShapes(t *testing.T) {
	m, page := realDocs(t)
	doc := mustDocument(t, m)
	for name := range openapi.BuiltinSchemas() {
		start := strings.Index(page, `data-schema="`+name+`"`)
		if start < 0 {
			t.Errorf("shape %s is not on the page", name)
			continue
		}
		shape, _, _ := strings.Cut(page[start:], `<div class="shape"`)
		s := doc.Components.Schemas[name]
		for prop := range s.Properties {
			row := `<td class="fname"><code>` + prop + `</code>`
			if slices.Contains(s.Required, prop) {
				row += `<span class="req">required</span>`
			}
			if !strings.Contains(shape, row+"</td>") {
				t.Errorf("shape %s: no row %s", name, row)
			}
		}
	}
	// Allowed values and nullability come from the schema.
	location := page[strings.Index(page, `data-schema="Location"`):]
	for _, want := range []string{
		`<code>Latitude</code><span class="req">required</span></td><td class="type">number <span class="nullable">or null</span></td>`,
		"One of <code>Found</code>, <code>Pending</code>",
	} {
		if !strings.Contains(location, want) {
			t.Errorf("the Location shape lacks %q", want)
		}
	}
}

// TestDocsLinksResolve: every link within the page leads to an element of
// the page.
func TestDocsLinksResolve(t *testing.T) {
	_, page := realDocs(t)
	ids := map[string]bool{}
	for _, m := range regexp.MustCompile(` id="([^"]+)"`).FindAllStringSubmatch(page, -1) {
		if ids[m[1]] {
			t.Errorf("id %q is used twice", m[1])
		}
		ids[m[1]] = true
	}
	for _, m := range regexp.MustCompile(`href="#([^"]+)"`).FindAllStringSubmatch(page, -1) {
		if !ids[m[1]] {
			t.Errorf("link to #%s leads nowhere", m[1])
		}
	}
}

func TestDocsJSON(t *testing.T) {
	is := is.New(t)
	is.Equal(indentJSON(orderedJSON{{"b", 1}, {"a", "x<y"}}), "{\n  \"b\": 1,\n  \"a\": \"x<y\"\n}")                                        // catalog order, not sorted
	is.Equal(indentJSON(inOrder(map[string]any{"z": 1, "b": 2, "a": 3}, []string{"b"}, nil)), "{\n  \"b\": 2,\n  \"a\": 3,\n  \"z\": 1\n}") // the order given, then the rest sorted
	is.Equal(string(highlightJSON(`{"a": "<b>", "n": -1.5, "t": true}`)),
		`{<span class="j-k">"a"</span>: <span class="j-s">"&lt;b&gt;"</span>, <span class="j-k">"n"</span>: <span class="j-n">-1.5</span>, <span class="j-k">"t"</span>: <span class="j-l">true</span>}`)
}
