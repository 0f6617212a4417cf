package codegen

import (
	"go/ast"
	"go/parser"
	"go/token"
	"html"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/matryer/is"

	"fieldapi/catalog"
	"fieldapi/runtime"
)

// realDocs renders the reference page of the real catalog.
func realDocs(t *testing.T) (*Model, string) {
	t.Helper()
	m := builtinModel(t)
	page, err := docsPage(m)
	if err != nil {
		t.Fatal(err)
	}
	return m, string(page)
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
	dir := filepath.Join("..", "runtime")
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

// TestDocsRegisterDetails checks one register's section against its
// catalog: both names of a field, its access, a description, a reference
// link, the list filters and the examples.
func TestDocsRegisterDetails(t *testing.T) {
	is := is.New(t)
	m, _, _ := partsModel(t)
	page, err := docsPage(m)
	is.NoErr(err)
	section := string(page)
	section = section[strings.Index(section, `<section id="reg-parts">`):]
	section, _, _ = strings.Cut(section, "</section>")

	has := func(s string) {
		t.Helper()
		if !strings.Contains(section, s) {
			t.Errorf("the parts section lacks %q", s)
		}
	}
	has(`<td class="fname"><code>Name</code></td><td class="wname" data-label="write"><code>name</code></td><td class="type">text</td><td class="nowrap"><span class="access a-writable">writable</span><span class="req">required</span></td><td>What the part is called.</td>`)
	has(`<td class="fname"><code>Serial</code></td><td class="wname" data-label="write"><code>serial</code></td><td class="type">text</td><td class="nowrap"><span class="access a-create">create only</span>`)
	has(`<td class="fname"><code>Stocked</code></td><td class="wname no-write" data-label="write"><span class="none">—</span></td><td class="type">bool</td><td class="nowrap"><span class="access a-read">read only</span>`)
	has(`<code>extraFields</code>`)
	has(`Lines of <a href="#reg-notes"><code>notes</code></a> created with the record, all or nothing.`)
	has(`<td><code>name</code></td><td class="type">text</td><td>Name contains the text, ignoring case.</td>`)
	has(`<td><code>outOfStock</code></td><td class="type">bool</td><td>Stocked is the opposite of the value.</td>`)
	has(`<span class="method m-post">POST</span><span class="path">/v1/parts</span>`)
	has(`<span class="method m-patch">PATCH</span><span class="path">/v1/parts/1001</span>`)
	has(`<span class="j-k">"name"</span>: <span class="j-s">"Name"</span>`) // the required field leads the create body
	has(`Illustrative values`)

	notes := string(page)[strings.Index(string(page), `<section id="reg-notes">`):]
	is.True(strings.Contains(notes, `Key of a record in <a href="#reg-parts"><code>parts</code></a>`))                                                                               // a reference links its register
	is.True(strings.Contains(notes, `Created only as lines of their owner (create-only fields are sent there): <code>notes</code> of <a href="#reg-parts"><code>parts</code></a>.`)) // a line register names its owner
}

func TestExampleValues(t *testing.T) {
	is := is.New(t)
	is.Equal(exampleValue(&catalog.Field{Name: "Status", Description: "Planned, Sent or Finished; applied last."}), "Planned")
	is.Equal(exampleValue(&catalog.Field{Name: "PlanDateType", Description: "FromTo, Day, Week, Month or Fixed; inferred when omitted."}), "FromTo")
	is.Equal(exampleValue(&catalog.Field{Name: "Note", Description: "Free text, kept as sent."}), "Note") // not a list of values
	is.Equal(exampleValue(&catalog.Field{Name: "CustomerNr"}), "1001")
	is.Equal(exampleValue(&catalog.Field{Name: "AddressLine1"}), "Address line 1")
	is.Equal(exampleValue(&catalog.Field{Name: "Price", Type: catalog.Number}), 1234.5)
	is.Equal(exampleValue(&catalog.Field{Name: "Done", Type: catalog.Bool}), true)
	is.Equal(indentJSON(orderedJSON{{"b", 1}, {"a", "x<y"}}), "{\n  \"b\": 1,\n  \"a\": \"x<y\"\n}") // catalog order, not sorted
	is.Equal(string(highlightJSON(`{"a": "<b>", "n": -1.5, "t": true}`)),
		`{<span class="j-k">"a"</span>: <span class="j-s">"&lt;b&gt;"</span>, <span class="j-k">"n"</span>: <span class="j-n">-1.5</span>, <span class="j-k">"t"</span>: <span class="j-l">true</span>}`)
}
