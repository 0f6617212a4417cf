package apitest

import (
	"bytes"
	"html"
	"maps"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/matryer/is"

	"fieldapi/generated"
	"fieldapi/runtime"
)

var documentedRoute = regexp.MustCompile(`data-route="([A-Z]+) ([^"]+)"`)

// TestDocsServed: GET /docs needs no key and answers 200 with the generated
// page as text/html. Every route the server has (runtime's built-in ones
// and the generated route table) has a row on it, and every route the page
// documents is served: a call to it is never answered "no such path".
func TestDocsServed(t *testing.T) {
	is := is.New(t)
	env := Start(t, Backends(t)[0], runtime.Config{})

	resp := env.Do(Request{Method: http.MethodGet, Path: "/docs"})
	is.Equal(resp.Status, http.StatusOK)
	is.Equal(resp.Header.Get(runtime.HeaderContentType), "text/html; charset=utf-8")
	is.True(strings.Contains(resp.Header.Get(runtime.HeaderContentSecurityPolicy), "default-src 'none'")) // the browser loads nothing for it
	generatedPage, err := os.ReadFile("../generated/docs.html")
	is.NoErr(err)
	is.True(bytes.Equal(resp.Body, generatedPage)) // the page generated from the catalog, as is

	documented := map[string]bool{}
	for _, m := range documentedRoute.FindAllStringSubmatch(string(resp.Body), -1) {
		documented[m[1]+" "+html.UnescapeString(m[2])] = true
	}
	for _, route := range append(runtime.BuiltinRoutes(), generated.Routes()...) {
		if !documented[route.Method+" "+route.Path] {
			t.Errorf("route %s %s of the route table is not on /docs", route.Method, route.Path)
		}
	}
	for _, route := range slices.Sorted(maps.Keys(documented)) {
		method, path, _ := strings.Cut(route, " ")
		path = strings.NewReplacer(":key", "1", ":id", "1").Replace(path)
		// An empty body is enough to tell a served route from an unserved
		// one; it is no valid request, so only the answer is validated.
		got := env.Do(Request{Method: method, Path: path, Key: env.Key, Body: "{}", SkipRequestValidation: true})
		if got.Status == http.StatusNotFound && strings.Contains(string(got.Body), "no such path") || got.Status == http.StatusMethodNotAllowed {
			t.Errorf("/docs documents %s, which is not served: %d %s", route, got.Status, got.Body)
		}
	}
}
