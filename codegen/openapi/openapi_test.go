package openapi

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/matryer/is"

	"fieldapi/codegen/internal/modeltest"
	"fieldapi/codegen/model"
	"fieldapi/runtime"
)

// loadDocument renders the model's document and loads it with kin-openapi.
func loadDocument(t *testing.T, m *model.Model) *openapi3.T {
	t.Helper()
	data, err := openAPIDocument(m)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := openapi3.NewLoader().LoadFromData(data)
	if err != nil {
		t.Fatal("kin-openapi cannot load the document:", err)
	}
	return doc
}

// validateDocument is kin-openapi's validation of the document, plus each
// schema's JSON Schema 2020-12 examples against their schema (kin-openapi
// checks only the OpenAPI 3.0 keyword example).
func validateDocument(doc *openapi3.T) error {
	if err := doc.Validate(context.Background(), openapi3.EnableExamplesValidation()); err != nil {
		return fmt.Errorf("the document is not valid: %w", err)
	}
	for name, s := range doc.Components.Schemas {
		for i, ex := range s.Value.Examples {
			if err := s.Value.VisitJSON(ex, openapi3.EnableJSONSchema2020()); err != nil {
				return fmt.Errorf("schema %s: examples[%d]: %w", name, i, err)
			}
		}
	}
	return nil
}

// TestOpenAPIDocumentIsValid loads the document of the real catalog, the
// fixture catalog and the every-combination catalog with kin-openapi and
// validates it, examples included: a schema error, a dangling $ref or an
// example its schema refuses fails.
func TestOpenAPIDocumentIsValid(t *testing.T) {
	real := modeltest.Builtin(t)
	for name, m := range map[string]*model.Model{
		"builtin":          real,
		"fixture":          modeltest.Fixture(t),
		"everyCombination": modeltest.OfFS(t, modeltest.EveryCombination()),
	} {
		t.Run(name, func(t *testing.T) {
			doc := loadDocument(t, m)
			if err := validateDocument(doc); err != nil {
				t.Fatal("kin-openapi:", err)
			}
			if !doc.IsOpenAPI31OrLater() {
				t.Fatalf("openapi %q, want 3.1", doc.OpenAPI)
			}
		})
	}
}

// TestOpenAPICoversTheModel checks the document against the routes the
// model generates: every route once, under its handler's operationId, and
// no operation that is not a route (besides the built-in ones).
func TestOpenAPICoversTheModel(t *testing.T) {
	is := is.New(t)
	m := modeltest.Builtin(t)
	doc := loadDocument(t, m)
	documented := map[string]string{} // "GET /v1/customers/{Nr}" → operationId
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			documented[method+" "+path] = op.OperationID
		}
	}
	for _, r := range m.Registers {
		for _, rt := range r.Routes {
			id, ok := documented[rt.Method+" "+rt.DocPath]
			if !ok {
				t.Errorf("%s %s is not documented", rt.Method, rt.DocPath)
				continue
			}
			is.Equal(id, rt.Handler)
			delete(documented, rt.Method+" "+rt.DocPath)
			if rt.Method == "GET" { // the server answers HEAD on every GET route
				delete(documented, "HEAD "+rt.DocPath)
			}
		}
	}
	for _, rt := range runtime.BuiltinRoutes() {
		path := DocPath(rt.Path)
		if _, ok := documented[rt.Method+" "+path]; !ok {
			t.Errorf("built-in route %s %s is not documented", rt.Method, path)
		}
		delete(documented, rt.Method+" "+path)
		if rt.Method == "GET" {
			delete(documented, "HEAD "+path)
		}
	}
	for op := range documented {
		t.Errorf("%s is documented but nothing serves it", op)
	}
}

// TestOpenAPISchemasByIntent checks the shapes integrators generate from:
// an update has no required list and no create-only field, a nested line
// has neither its parent key nor the fields its owner sets, numbers are
// doubles, and keys are required and never null in the read shape.
func TestOpenAPISchemasByIntent(t *testing.T) {
	is := is.New(t)
	m := modeltest.Builtin(t)
	doc, err := NewDocument(m)
	is.NoErr(err)
	schemas := doc.Components.Schemas

	task := schemas["TaskUpdate"]
	is.Equal(len(task.Required), 0)
	is.True(task.Properties["customerNr"] == nil) // create only
	is.True(task.Properties["userSigns"] != nil)
	is.True(slices.Contains(schemas["TaskCreate"].Required, "customerNr"))

	contact := schemas["CustomerContactsItem"]
	is.True(contact.Properties["customerNr"] == nil) // the owner's key
	is.True(slices.Contains(contact.Required, "name"))
	material := schemas["TaskMaterialsItem"]
	is.True(material.Properties["ownerNr"] == nil && material.Properties["ownerType"] == nil)
	is.Equal(doc.Paths["/v1/tasks/{Nr}/materials"].Post.RequestBody.Content["application/json"].Schema.Ref, "#/components/schemas/TaskMaterialsItem")
	is.Equal(schemas["CustomerCreate"].Properties["contacts"].Items.Ref, "#/components/schemas/CustomerContactsItem")

	price := schemas["OrderLine"].Properties["Price"]
	is.Equal(price.Format, "double")
	is.Equal([]string(schemas["OrderLineUpdate"].Properties["price"].Type), []string{"number", "null"})
	nr := schemas["Task"].Properties["Nr"]
	is.Equal([]string(nr.Type), []string{"string"})
	is.True(slices.Contains(schemas["Task"].Required, "Nr"))
	is.Equal(schemas["Task"].Properties["Status"].Enum, []any{"Planned", "Sent", "Received", "InProgress", "Finished", "Archived"})
	is.Equal(schemas["TaskStatusBody"].Properties["status"].Enum, schemas["Task"].Properties["Status"].Enum)

	for name, s := range schemas {
		if s.Type != nil && s.Type[0] == "array" && s.Items == nil {
			t.Errorf("schema %s is an array without items", name)
		}
		for prop, p := range s.Properties {
			if slices.Contains(p.Type, "array") && p.Items == nil {
				t.Errorf("%s.%s is an array without items", name, prop)
			}
		}
	}
}

// TestEveryRouteDeclaresWhatTheServerSends: 415 and 429 on every write,
// 503 and 504 on every register route, X-Request-Id on every response,
// Location on every 201.
func TestEveryRouteDeclaresWhatTheServerSends(t *testing.T) {
	m := modeltest.Builtin(t)
	doc := loadDocument(t, m)
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			want := []int{}
			if strings.HasPrefix(path, "/v1/") {
				want = append(want, 401, 429, 503, 504)
			}
			if method != "GET" && method != "HEAD" && method != "DELETE" { // a DELETE reads no body
				want = append(want, 400, 413, 415)
			}
			if method == "GET" && item.Head == nil {
				t.Errorf("GET %s has no HEAD", path)
			}
			if method == "HEAD" {
				for code, resp := range op.Responses.Map() {
					if len(resp.Value.Content) > 0 {
						t.Errorf("HEAD %s %s declares a body", path, code)
					}
				}
			}
			for _, status := range want {
				if op.Responses.Status(status) == nil {
					t.Errorf("%s %s: no %d response", method, path, status)
				}
			}
			for code, resp := range op.Responses.Map() {
				if resp.Value.Headers[runtime.HeaderRequestID] == nil {
					t.Errorf("%s %s %s: X-Request-Id is not declared", method, path, code)
				}
				if code == "201" && resp.Value.Headers[runtime.HeaderLocation] == nil {
					t.Errorf("%s %s: 201 without Location", method, path)
				}
				if (code == "429" || code == "503") && resp.Value.Headers[runtime.HeaderRetryAfter] == nil {
					t.Errorf("%s %s %s: Retry-After is not declared", method, path, code)
				}
			}
		}
	}
}

// TestConditionalRequestsAreDeclared: a GET of one record declares
// If-None-Match, 304 and the ETag; PATCH, actions and line posts declare
// If-Match, 412 and the ETag of what they answer; a create its ETag.
func TestConditionalRequestsAreDeclared(t *testing.T) {
	m := modeltest.Builtin(t)
	doc := loadDocument(t, m)
	hasParam := func(op *openapi3.Operation, name string) bool {
		for _, p := range op.Parameters {
			if p.Value != nil && p.Value.Name == name {
				return true
			}
		}
		return false
	}
	checked := 0
	for _, r := range m.Registers {
		for _, rt := range r.Routes {
			op := doc.Paths.Find(rt.DocPath).GetOperation(rt.Method)
			var param, status, okStatus string
			switch rt.Kind {
			case model.KindGet:
				param, status, okStatus = runtime.HeaderIfNoneMatch, "304", "200"
			case model.KindUpdate, model.KindAction:
				param, status, okStatus = runtime.HeaderIfMatch, "412", "200"
			case model.KindAddLine:
				param, status, okStatus = runtime.HeaderIfMatch, "412", "201"
			case model.KindCreate:
				okStatus = "201"
			default:
				continue
			}
			checked++
			if param != "" && !hasParam(op, param) {
				t.Errorf("%s %s: %s is not declared", rt.Method, rt.DocPath, param)
			}
			if status != "" && op.Responses.Value(status) == nil {
				t.Errorf("%s %s: no %s response", rt.Method, rt.DocPath, status)
			}
			if op.Responses.Value(okStatus).Value.Headers[runtime.HeaderETag] == nil {
				t.Errorf("%s %s %s: ETag is not declared", rt.Method, rt.DocPath, okStatus)
			}
			for _, h := range []string{runtime.HeaderRateLimit, runtime.HeaderRateLimitPolicy, runtime.HeaderCacheControl} {
				if op.Responses.Value(okStatus).Value.Headers[h] == nil {
					t.Errorf("%s %s %s: %s is not declared", rt.Method, rt.DocPath, okStatus, h)
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no record route was checked")
	}
}

// TestDatePatternMatchesRuntime: the documented date pattern admits the
// shapes runtime.ValidDate accepts, and refuses the ones it refuses.
func TestDatePatternMatchesRuntime(t *testing.T) {
	pattern := regexp.MustCompile(DatePattern)
	for _, s := range []string{
		"2026-05-01", "2026-05-01T08:00", "2026-05-01T08:00:00", "2026-05-01T08:00:00Z", "2026-05-01T08:00:00.123456789+02:00",
		"2026-05-01T08:00:00.1234567890Z", "2026-5-1", "2026-05-01 08:00", "20260501", "2026-05-01T08", "", "2026-05-01Z",
	} {
		if pattern.MatchString(s) != runtime.ValidDate(s) {
			t.Errorf("%q: the document's pattern says %v, runtime.ValidDate %v", s, pattern.MatchString(s), runtime.ValidDate(s))
		}
	}
}

// TestOpenAPIExamplesAreChecked: an example its schema refuses fails the
// validation TestOpenAPIDocumentIsValid runs, so the catalog's examples
// are held to the schemas.
func TestOpenAPIExamplesAreChecked(t *testing.T) {
	for name, example := range map[string]string{
		"wrong type":  `{Nr: "7", Plate: 12, Status: InService, Modified: "2026-05-01T08:00:00Z"}`,
		"key missing": `{Plate: AB 123, Status: InService, Modified: "2026-05-01T08:00:00Z"}`,
		"not a date":  `{Nr: "7", Plate: AB 123, Status: InService, InspectionDate: "May 1", Modified: "2026-05-01T08:00:00Z"}`,
	} {
		t.Run(name, func(t *testing.T) {
			files := map[string]string{}
			fixtureDir := modeltest.FixtureDir(t)
			fixtures, err := os.ReadDir(fixtureDir)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range fixtures {
				data, err := os.ReadFile(fixtureDir + "/" + f.Name())
				if err != nil {
					t.Fatal(err)
				}
				files[f.Name()] = string(data)
			}
			// In place of the fixture's own example.
			files["vehicles.yaml"] = regexp.MustCompile(`(?m)^example: .*\n`).ReplaceAllString(files["vehicles.yaml"], "") + "example: " + example + "\n"
			doc := loadDocument(t, modeltest.Of(t, files))
			if err := validateDocument(doc); err == nil {
				t.Fatal("an example its schema refuses passed validation")
			}
		})
	}
}
