package openapi

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/matryer/is"

	"fieldapi/codegen/internal/modeltest"
	"fieldapi/codegen/model"
	"fieldapi/engine"
	"fieldapi/runtime"
)

// jsonSchemas calls visit with every object of a rendered document that
// has a string or list "type" or an "enum": the schemas, found without
// walkSchemas, so a schema it would miss is still seen (a security
// scheme's type is "http", which no check here looks for).
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
			_, enum := v["enum"]
			switch v["type"].(type) {
			case string, []any:
				visit(where, v)
			default:
				if enum {
					visit(where, v)
				}
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
	for name, m := range map[string]*model.Model{
		"builtin":          modeltest.Builtin(t),
		"fixture":          modeltest.Fixture(t),
		"everyCombination": modeltest.OfFS(t, modeltest.EveryCombination()),
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
	doc, err := NewDocument(modeltest.Builtin(t))
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
		"ChangeList":     runtime.Collection[any]{},
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

// TestChangeSchemaIsTheEngines: the Change schema has exactly the
// members of engine.Change as the runtime sends it, each always present,
// with the JSON type of its Go field.
func TestChangeSchemaIsTheEngines(t *testing.T) {
	is := is.New(t)
	doc, err := NewDocument(modeltest.Builtin(t))
	is.NoErr(err)
	s := doc.Components.Schemas[model.ChangeSchema]
	typ := reflect.TypeOf(engine.Change{})
	var names []string
	for i := range typ.NumField() {
		f := typ.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		names = append(names, name)
		p := s.Properties[name]
		if p == nil {
			t.Errorf("Change.%s (Go %s) is not in the schema", name, f.Name)
			continue
		}
		want := map[reflect.Kind]string{reflect.String: "string", reflect.Bool: "boolean"}[f.Type.Kind()]
		is.Equal([]string(p.Type), []string{want}) // the JSON type of the Go field
	}
	slices.Sort(names)
	is.Equal(s.Required, names)             // every member, always present
	is.Equal(len(s.Properties), len(names)) // and no other
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
				"kind":  {Type: types("string", "null"), Enum: []any{"a", "b", nil}},
				"fine":  orNull(&Schema{Type: types("string"), Enum: []any{"a", "b"}}),
			}},
		}},
	}
	got := checkTypes(doc)
	for _, want := range []string{
		"GET /v1/things: parameters/0/schema: type integer",
		"components/schemas/Thing/properties/ms: type number",
		"components/schemas/Thing/properties/n: type integer",
		"components/schemas/Thing/properties/items/items: type number",
		"components/schemas/Thing/properties/kind: an enum lists null",
	} {
		if !slices.ContainsFunc(got, func(e string) bool { return strings.HasPrefix(e, want) }) {
			t.Errorf("no error %q in %q", want, got)
		}
	}
	if len(got) != 5 {
		t.Errorf("%d errors, want 5: %q", len(got), got)
	}
}

// TestOpenAPIEnumsAreTheCatalogs: an enum field's schemas list exactly the
// catalog's values (a body's, when the field can be cleared, also ""),
// and admit null, through anyOf, where the server reads null or a body
// may leave the field; no enum of the rendered document lists null.
func TestOpenAPIEnumsAreTheCatalogs(t *testing.T) {
	for name, m := range map[string]*model.Model{ // every combination has no enum
		"builtin": modeltest.Builtin(t),
		"fixture": modeltest.Fixture(t),
	} {
		t.Run(name, func(t *testing.T) {
			doc, err := NewDocument(m)
			if err != nil {
				t.Fatal(err)
			}
			check := func(where string, p *Schema, want []string, nullable bool) {
				t.Helper()
				if p == nil {
					t.Errorf("%s: no such property", where)
					return
				}
				values, null := p.NonNull()
				var got []string
				for _, v := range values.Enum {
					s, ok := v.(string)
					if !ok {
						t.Errorf("%s: enum member %#v is not a string", where, v)
					}
					got = append(got, s)
				}
				if !slices.Equal(got, want) {
					t.Errorf("%s: enum %q, want %q", where, got, want)
				}
				if null != nullable {
					t.Errorf("%s: admits null %v, want %v", where, null, nullable)
				}
				if null && len(p.AnyOf) != 2 {
					rendered, _ := json.Marshal(p)
					t.Errorf("%s: a nullable enum is not anyOf [values, null]: %s", where, rendered)
				}
			}
			checked := 0
			for _, r := range m.Registers {
				for _, f := range r.Fields {
					if len(f.Enum) == 0 {
						continue
					}
					checked++
					check(r.RecordType+"."+f.Name, doc.Components.Schemas[r.RecordType].Properties[f.Name], f.Enum, readNullable(f))
					write := f.Enum
					if f.Clearable() {
						write = append(slices.Clip(f.Enum), "")
					}
					for _, body := range []string{r.CreateSchema, r.UpdateSchema} {
						s := doc.Components.Schemas[body]
						if s == nil || s.Properties[f.WriteName] == nil {
							continue
						}
						check(body+"."+f.WriteName, s.Properties[f.WriteName], write, !slices.Contains(s.Required, f.WriteName))
					}
				}
			}
			if checked == 0 {
				t.Fatal("no enum field in the catalog")
			}
			data, err := Marshal(doc)
			if err != nil {
				t.Fatal(err)
			}
			jsonSchemas(t, data, func(where string, s map[string]any) {
				if enum, _ := s["enum"].([]any); slices.Contains(enum, nil) {
					t.Errorf("%s: the enum lists null: %v", where, enum)
				}
			})
		})
	}
}

// TestNullableEnumsValidate: kin-openapi, which the contract tests check
// every exchange with, reads an orNull enum as the server means it: null,
// the catalog's values and (in a body, where the field can be cleared) ""
// pass; anything else fails.
func TestNullableEnumsValidate(t *testing.T) {
	doc := loadDocument(t, modeltest.Builtin(t))
	for _, tc := range []struct {
		schema, property string
		pass, fail       []any
	}{
		{"Task", "PlanDateType", []any{nil, "Day", "Fixed"}, []any{"", "Planned", "day", 1}},
		{"TaskUpdate", "planDateType", []any{nil, "", "FromTo"}, []any{"Sent", "<nil>"}},
		{"TaskCreate", "status", []any{nil, "Planned"}, []any{"", "Day"}},
		{"Time", "OwnerType", []any{nil, "task", "contract"}, []any{"", "customer"}},
	} {
		p := doc.Components.Schemas[tc.schema].Value.Properties[tc.property].Value
		for _, v := range tc.pass {
			if err := p.VisitJSON(v, openapi3.EnableJSONSchema2020()); err != nil {
				t.Errorf("%s.%s: %#v refused: %v", tc.schema, tc.property, v, err)
			}
		}
		for _, v := range tc.fail {
			if err := p.VisitJSON(v, openapi3.EnableJSONSchema2020()); err == nil {
				t.Errorf("%s.%s: %#v passed", tc.schema, tc.property, v)
			}
		}
	}
}
