package codegen

import (
	"encoding/json"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"fieldapi/engine"
	"fieldapi/runtime"
)

// jsonSchemas calls visit with every object of a rendered document that
// has a string or list "type": the schemas, found without walkSchemas, so
// a schema it would miss is still seen (a security scheme's type is
// "http", which no check here looks for).
func jsonSchemas(t *testing.T, data []byte, visit func(where string, s map[string]any)) {
	t.Helper()
	var doc any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	var walk func(where string, v any)
	walk = func(where string, v any) {
		switch v := v.(type) {
		case map[string]any:
			switch v["type"].(type) {
			case string, []any:
				visit(where, v)
			}
			for k, sub := range v {
				walk(where+"/"+k, sub)
			}
		case []any:
			for _, sub := range v {
				walk(where+"/[]", sub)
			}
		}
	}
	walk("", doc)
}

// typesOf is a rendered schema's type as a list.
func typesOf(s map[string]any) []string {
	switch t := s["type"].(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, x := range t {
			out = append(out, x.(string))
		}
		return out
	}
	return nil
}

// TestOpenAPINumbersHaveFormats: in the rendered document of the real
// catalog, the fixture and every combination, every number has format
// double (a float64 in Go; without it generators pick float32) and every
// integer format int32 or int64.
func TestOpenAPINumbersHaveFormats(t *testing.T) {
	for name, m := range map[string]*Model{
		"builtin":          builtinModel(t),
		"fixture":          modelOfFS(t, os.DirFS(fixtureDir)),
		"everyCombination": modelOfFS(t, everyCombination()),
	} {
		t.Run(name, func(t *testing.T) {
			data, err := openAPIDocument(m)
			if err != nil {
				t.Fatal(err)
			}
			numbers := 0
			jsonSchemas(t, data, func(where string, s map[string]any) {
				for _, typ := range typesOf(s) {
					if want, ok := numberFormats[typ]; ok {
						numbers++
						if format, _ := s["format"].(string); !slices.Contains(want, format) {
							t.Errorf("%s: type %s, format %q; want %s", where, typ, format, strings.Join(want, " or "))
						}
					}
				}
			})
			if numbers == 0 {
				t.Fatal("no number found: the walk is broken")
			}
		})
	}
}

// TestOpenAPINumbersMatchGoTypes: the schemas of what the server answers
// with Go structs give each numeric field the format of its Go type:
// float64 → double, int64 → int64, int → int32 or int64. Attempt is the
// webhook delivery attempt whose latencyMs came out as a float32.
func TestOpenAPINumbersMatchGoTypes(t *testing.T) {
	doc, err := NewDocument(builtinModel(t))
	if err != nil {
		t.Fatal(err)
	}
	formats := map[reflect.Kind][]string{reflect.Float64: {"double"}, reflect.Int64: {"int64"}, reflect.Int: {"int32", "int64"}, reflect.Int32: {"int32"}}
	for schema, value := range map[string]any{
		"Attempt":        engine.Attempt{},
		"Delivery":       engine.Delivery{},
		"DocumentInfo":   engine.DocumentInfo{},
		"Problem":        runtime.Problem{},
		"TaskPage":       runtime.ListEnvelope[any]{},
		"ExtraFieldList": runtime.Collection[any]{},
		"DocumentList":   runtime.Collection[any]{},
	} {
		s := doc.Components.Schemas[schema]
		if s == nil {
			t.Errorf("no schema %s", schema)
			continue
		}
		checked := 0
		typ := reflect.TypeOf(value)
		for i := range typ.NumField() {
			f := typ.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			kind := f.Type.Kind()
			if kind == reflect.Pointer {
				kind = f.Type.Elem().Kind()
			}
			want, numeric := formats[kind]
			if name == "" || name == "-" || !numeric {
				continue
			}
			checked++
			p := s.Properties[name]
			if p == nil {
				t.Errorf("%s.%s (Go %s) is not in the schema", schema, name, f.Type)
				continue
			}
			if !slices.Contains(want, p.Format) {
				t.Errorf("%s.%s is a Go %s: format %q, want %s", schema, name, f.Type, p.Format, strings.Join(want, " or "))
			}
		}
		if checked == 0 {
			t.Errorf("%s: no numeric field checked", schema)
		}
	}
}

// TestCheckTypesRefuses: the document is not generated while a number
// lacks its format; the error says where.
func TestCheckTypesRefuses(t *testing.T) {
	doc := &Document{
		Paths: map[string]*PathItem{"/v1/things": {Get: &Operation{Parameters: []*Parameter{{Name: "limit", In: "query", Schema: &Schema{Type: types("integer")}}}}}},
		Components: Components{Schemas: map[string]*Schema{
			"Thing": {Type: types("object"), Properties: map[string]*Schema{
				"ms":    {Type: types("number")},
				"n":     {Type: types("integer", "null"), Format: "int16"},
				"ok":    jsonNumber[float64](""),
				"items": {Type: types("array"), Items: &Schema{Type: types("number"), Format: "float"}},
			}},
		}},
	}
	got := checkTypes(doc)
	for _, want := range []string{
		"GET /v1/things: parameters/0/schema: type integer",
		"components/schemas/Thing/properties/ms: type number",
		"components/schemas/Thing/properties/n: type integer",
		"components/schemas/Thing/properties/items/items: type number",
	} {
		if !slices.ContainsFunc(got, func(e string) bool { return strings.HasPrefix(e, want) }) {
			t.Errorf("no error %q in %q", want, got)
		}
	}
	if len(got) != 4 {
		t.Errorf("%d errors, want 4: %q", len(got), got)
	}
}
