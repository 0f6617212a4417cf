package apitest

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"fieldapi/catalog"
	"fieldapi/codegen/model"
)

// What the clients generated from the served document must show: every
// enum as a clean enum type whose values are exactly the catalog's (for a
// register's field; the document's for the others), nullable where the
// server reads null or a body may leave the field, and every double a
// float64. The oapi-codegen client is checked in TestOapiCodegenClient,
// the openapi-typescript one in TestOpenAPITypeScriptClient.

// docEnum is a property of a component schema with an enum.
type docEnum struct {
	Schema, Property string
	Values           []string // the enum's values, null left out
	Nullable         bool     // admits null
	Required         bool     // in the schema's required list
}

func (e docEnum) String() string { return e.Schema + "." + e.Property }

// shape words what an enum admits: values ["a" "b"], nullable, required.
func (e docEnum) shape() string {
	return fmt.Sprintf("values %q, nullable %v, required %v", e.Values, e.Nullable, e.Required)
}

// docEnums are the enum properties of the served document's component
// schemas, by schema and property name. A nullable enum is anyOf [values,
// null]; a null listed among the values (the wart this guards against)
// counts as nullable too, so the clients' checks see what it does to them.
func docEnums(t *testing.T, doc []byte) []docEnum {
	t.Helper()
	type schema struct {
		Type     any                `json:"type"`
		Enum     []any              `json:"enum"`
		AnyOf    []*schema          `json:"anyOf"`
		Props    map[string]*schema `json:"properties"`
		Required []string           `json:"required"`
	}
	var d struct {
		Components struct {
			Schemas map[string]*schema `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		t.Fatal(err)
	}
	isNull := func(s *schema) bool { return s.Type == "null" }
	hasNullType := func(s *schema) bool {
		list, _ := s.Type.([]any)
		return slices.Contains(list, any("null"))
	}
	var enums []docEnum
	for _, name := range slices.Sorted(maps.Keys(d.Components.Schemas)) {
		s := d.Components.Schemas[name]
		for _, prop := range slices.Sorted(maps.Keys(s.Props)) {
			p := s.Props[prop]
			e := docEnum{Schema: name, Property: prop, Required: slices.Contains(s.Required, prop), Nullable: hasNullType(p)}
			if len(p.AnyOf) == 2 && isNull(p.AnyOf[1]) {
				p, e.Nullable = p.AnyOf[0], true
			}
			if p.Enum == nil {
				continue
			}
			for _, v := range p.Enum {
				switch v := v.(type) {
				case nil:
					e.Nullable = true
				case string:
					e.Values = append(e.Values, v)
				default:
					t.Errorf("%s: enum member %v is not a string", e, v)
				}
			}
			enums = append(enums, e)
		}
	}
	if len(enums) == 0 {
		t.Fatal("the served document has no enum")
	}
	return enums
}

// catalogEnums are the enums the catalog's fields with one must have in
// the document: in the record as read, exactly the catalog's values,
// nullable unless the field is never null, required only for the key; in a create or update body,
// the values and "" where the field can be cleared, nullable (left)
// unless required; in an action body, the values.
func catalogEnums(t *testing.T, cat *catalog.Catalog) []docEnum {
	t.Helper()
	m, err := model.New(cat)
	if err != nil {
		t.Fatal(err)
	}
	var enums []docEnum
	for _, r := range m.Registers {
		for _, f := range r.Fields {
			if len(f.Enum) == 0 {
				continue
			}
			// A read's fields= may leave any field out but the key.
			enums = append(enums, docEnum{Schema: r.RecordType, Property: f.Name, Values: f.Enum, Nullable: !f.NeverNull, Required: f.Name == r.Key})
			write := f.Enum
			if f.Clearable() {
				write = append(slices.Clip(f.Enum), "")
			}
			if r.Has(catalog.Create) && slices.Contains(r.CreateNames(), f.WriteName) {
				required := slices.Contains(r.RequiredNames(), f.WriteName)
				enums = append(enums, docEnum{Schema: r.CreateSchema, Property: f.WriteName, Values: write, Nullable: !required, Required: required})
			}
			if r.Has(catalog.Update) && slices.Contains(r.UpdateNames(), f.WriteName) {
				enums = append(enums, docEnum{Schema: r.UpdateSchema, Property: f.WriteName, Values: write, Nullable: true})
			}
		}
		for _, a := range r.Actions {
			for _, f := range a.Body.Fields {
				if len(f.Enum) > 0 {
					enums = append(enums, docEnum{Schema: a.Body.Type, Property: f.WriteName, Values: f.Enum, Required: f.Required})
				}
			}
		}
	}
	if len(enums) == 0 {
		t.Fatal("the catalog has no enum field")
	}
	return enums
}

// expectedEnums are the enums the generated clients must show: the
// catalog's (catalogEnums), checked against the served document, and the
// document's other enums (problem codes, event types, ...) as it lists
// them.
func expectedEnums(t *testing.T, cat *catalog.Catalog, doc []byte) []docEnum {
	t.Helper()
	want := catalogEnums(t, cat)
	served := docEnums(t, doc)
	for _, w := range want {
		i := slices.IndexFunc(served, func(e docEnum) bool { return e.Schema == w.Schema && e.Property == w.Property })
		switch {
		case i < 0:
			t.Errorf("%s: no enum in the served document", w)
		case !slices.Equal(served[i].Values, w.Values) || served[i].Nullable != w.Nullable || served[i].Required != w.Required:
			t.Errorf("%s: the served document has %s; the catalog means %s", w, served[i].shape(), w.shape())
		}
	}
	for _, e := range served {
		if !slices.ContainsFunc(want, func(w docEnum) bool { return e.Schema == w.Schema && e.Property == w.Property }) {
			want = append(want, e)
		}
	}
	return want
}

// goName is the Go name oapi-codegen gives a schema's property: its
// words, each capitalised (token_type → TokenType, planDateType →
// PlanDateType).
func goName(property string) string {
	var b strings.Builder
	for _, word := range strings.FieldsFunc(property, func(r rune) bool { return r == '_' || r == '-' || r == '.' }) {
		b.WriteString(strings.ToUpper(word[:1]) + word[1:])
	}
	return b.String()
}

// junkName reports an identifier made of a value that is no name: the
// "<nil>" a null enum member prints as (LessThannil, ...GreaterThan).
func junkName(name string) bool {
	if name == "nil" {
		return false
	}
	lower := strings.ToLower(name)
	return strings.Contains(lower, "nil") || strings.Contains(name, "LessThan") || strings.Contains(name, "GreaterThan")
}

// checkGoClient checks the source of the client oapi-codegen generated
// from the document: no identifier or constant made of "<nil>"; for each
// enum of the document a type <Schema><Property> whose constants are
// exactly its values, held by the schema's struct as a pointer where the
// property is nullable or optional; no float32 and no plain int in a
// struct (a number or integer without its format); Attempt.LatencyMs a
// float64.
func checkGoClient(t *testing.T, src []byte, enums []docEnum) {
	t.Helper()
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "client.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal("the generated client does not parse:", err)
	}
	junk := map[string]bool{}
	consts := map[string][]string{}          // enum type → its constants' values
	fields := map[string]map[string]string{} // struct → field → type
	ast.Inspect(file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Ident:
			if junkName(n.Name) {
				junk[n.Name] = true
			}
		case *ast.BasicLit:
			if n.Kind == token.STRING && strings.Contains(n.Value, "<nil>") {
				junk[n.Value] = true
			}
		case *ast.ValueSpec:
			typ, _ := n.Type.(*ast.Ident)
			for _, v := range n.Values {
				if lit, ok := v.(*ast.BasicLit); ok && typ != nil && lit.Kind == token.STRING {
					s, err := strconv.Unquote(lit.Value)
					if err != nil {
						t.Fatal(err)
					}
					consts[typ.Name] = append(consts[typ.Name], s)
				}
			}
		case *ast.TypeSpec:
			if st, ok := n.Type.(*ast.StructType); ok {
				fields[n.Name.Name] = map[string]string{}
				for _, f := range st.Fields.List {
					typ := types.ExprString(f.Type)
					for _, name := range f.Names {
						fields[n.Name.Name][name.Name] = typ
					}
					switch strings.TrimPrefix(typ, "*") {
					case "float32", "int":
						for _, name := range f.Names {
							t.Errorf("%s.%s is a %s: a number or integer without its format", n.Name.Name, name.Name, typ)
						}
					}
				}
			}
		}
		return true
	})
	for _, name := range slices.Sorted(maps.Keys(junk)) {
		t.Errorf("junk in the generated client: %s", name)
	}
	for _, e := range enums {
		typ := e.Schema + goName(e.Property)
		got, ok := consts[typ]
		if !ok {
			t.Errorf("%s: no constants of an enum type %s", e, typ)
			continue
		}
		if !sameSet(got, e.Values) {
			t.Errorf("%s: the constants of %s are %q, want exactly %q", e, typ, slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(e.Values)))
		}
		want := typ
		if e.Nullable || !e.Required {
			want = "*" + typ
		}
		if got := fields[e.Schema][goName(e.Property)]; got != want {
			t.Errorf("%s: struct field of type %q, want %q", e, got, want)
		}
	}
	if got := fields["Attempt"]["LatencyMs"]; got != "float64" {
		t.Errorf("Attempt.LatencyMs is a %q, want float64", got)
	}
}

// sameSet reports whether a and b hold the same strings, each once.
func sameSet(a, b []string) bool {
	a, b = slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b))
	return slices.Equal(a, b) && len(slices.Compact(a)) == len(b)
}

// tsProperty is one property of a schema in openapi-typescript's output.
type tsProperty struct {
	Optional bool   // name?: ...
	Type     string // as written, without the final ;
}

var (
	tsSchemaStart = regexp.MustCompile(`^ {8}([A-Za-z_$][\w$]*): \{$`)
	tsProperty1   = regexp.MustCompile(`^ {12}("(?:[^"\\]|\\.)*"|[A-Za-z_$][\w$]*)(\?)?: (.+);$`)
	tsToken       = regexp.MustCompile(`"(?:[^"\\]|\\.)*"|[^\s|()]+`)
)

// tsSchemas reads the one-line properties of components["schemas"] from
// openapi-typescript's output, by schema and property name.
func tsSchemas(t *testing.T, ts string) map[string]map[string]tsProperty {
	t.Helper()
	lines := strings.Split(ts, "\n")
	start := slices.Index(lines, "export interface components {")
	if start < 0 || start+1 >= len(lines) || lines[start+1] != "    schemas: {" {
		t.Fatal(`no "export interface components {" followed by "    schemas: {" in the TypeScript`)
	}
	schemas := map[string]map[string]tsProperty{}
	var current map[string]tsProperty
	for _, line := range lines[start+2:] {
		if line == "    };" { // the end of schemas
			break
		}
		if m := tsSchemaStart.FindStringSubmatch(line); m != nil {
			current = map[string]tsProperty{}
			schemas[m[1]] = current
			continue
		}
		if m := tsProperty1.FindStringSubmatch(line); m != nil && current != nil {
			name := m[1]
			if strings.HasPrefix(name, `"`) {
				name, _ = strconv.Unquote(name)
			}
			current[name] = tsProperty{Optional: m[2] == "?", Type: m[3]}
		}
	}
	if len(schemas) == 0 {
		t.Fatal("no schema read from the TypeScript")
	}
	return schemas
}

// union splits a TypeScript union of string literals and null: the
// literals, whether null is a member, and any other member.
func union(typ string) (literals []string, null bool, other []string) {
	for _, tok := range tsToken.FindAllString(typ, -1) {
		switch {
		case strings.HasPrefix(tok, `"`):
			s, err := strconv.Unquote(tok)
			if err != nil {
				other = append(other, tok)
				continue
			}
			literals = append(literals, s)
		case tok == "null":
			null = true
		default:
			other = append(other, tok)
		}
	}
	return literals, null, other
}

// checkTypeScriptClient checks the types openapi-typescript generated from
// the document: no "<nil>"; each enum of the document a union of exactly
// its values, with | null where it is nullable and ? where it is
// optional; Attempt.latencyMs a number.
func checkTypeScriptClient(t *testing.T, ts string, enums []docEnum) {
	t.Helper()
	if strings.Contains(ts, "<nil>") {
		t.Error(`the TypeScript names "<nil>"`)
	}
	schemas := tsSchemas(t, ts)
	for _, e := range enums {
		p, ok := schemas[e.Schema][e.Property]
		if !ok {
			t.Errorf("%s: no one-line property in the TypeScript", e)
			continue
		}
		literals, null, other := union(p.Type)
		if len(other) > 0 || !sameSet(literals, e.Values) || null != e.Nullable {
			want := `"` + strings.Join(e.Values, `" | "`) + `"`
			if e.Nullable {
				want += " | null"
			}
			t.Errorf("%s: %s, want the union %s", e, p.Type, want)
		}
		if p.Optional == e.Required {
			t.Errorf("%s: optional %v, want %v", e, p.Optional, !e.Required)
		}
	}
	if got := schemas["Attempt"]["latencyMs"].Type; got != "number" {
		t.Errorf("Attempt.latencyMs: %q, want number", got)
	}
}
