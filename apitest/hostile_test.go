package apitest

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"fieldapi/generated"
)

// The hostile-input generator: from the OpenAPI document (itself generated
// from the catalog) it knows every route, path parameter, query parameter
// and body field with its type, and makes malformed and hostile values for
// each. badinput_test.go sends them.

// operation is one method on one path of the OpenAPI document.
type operation struct {
	Method, Path string   // Path as in the document: /v1/customers/{Nr}
	PathParams   []string // in path order
	Query        []string // query parameter names
	Fields       []bodyField
	HasBody      bool
}

// bodyField is one field a body may carry: top-level (lines is nil) or a
// field of one line of a line list.
type bodyField struct {
	Line string // the line list it belongs to, or ""
	Name string
	Kind string // string, number, integer, boolean, array (of strings), lines (array of objects), object
}

// schema is the part of an OpenAPI schema the generator reads.
type schema struct {
	Ref                  string             `json:"$ref"`
	Type                 any                `json:"type"` // "string" or ["string", "null"]
	Properties           map[string]*schema `json:"properties"`
	Items                *schema            `json:"items"`
	AdditionalProperties any                `json:"additionalProperties"`
	AllOf                []*schema          `json:"allOf"`
	OneOf                []*schema          `json:"oneOf"`
	AnyOf                []*schema          `json:"anyOf"`
}

type openAPIDoc struct {
	Paths      map[string]map[string]openAPIOperation `json:"paths"`
	Components struct {
		Schemas    map[string]*schema          `json:"schemas"`
		Parameters map[string]openAPIParameter `json:"parameters"`
	} `json:"components"`
}

type openAPIOperation struct {
	Parameters  []openAPIParameter `json:"parameters"`
	RequestBody *struct {
		Content map[string]struct {
			Schema *schema `json:"schema"`
		} `json:"content"`
	} `json:"requestBody"`
}

type openAPIParameter struct {
	Ref  string `json:"$ref"`
	Name string `json:"name"`
	In   string `json:"in"`
}

// operations reads every operation of the generated OpenAPI document.
func operations(t testing.TB) []operation {
	t.Helper()
	var doc openAPIDoc
	if err := json.Unmarshal(generated.API().OpenAPI, &doc); err != nil {
		t.Fatalf("the OpenAPI document: %v", err)
	}
	var ops []operation
	for _, path := range slices.Sorted(maps.Keys(doc.Paths)) {
		for _, method := range slices.Sorted(maps.Keys(doc.Paths[path])) {
			o := doc.Paths[path][method]
			op := operation{Method: strings.ToUpper(method), Path: path}
			for _, p := range o.Parameters {
				if name, found := strings.CutPrefix(p.Ref, "#/components/parameters/"); found {
					p = doc.Components.Parameters[name]
				}
				switch p.In {
				case "path":
					op.PathParams = append(op.PathParams, p.Name)
				case "query":
					op.Query = append(op.Query, p.Name)
				}
			}
			if o.RequestBody != nil {
				op.HasBody = true
				for _, c := range o.RequestBody.Content {
					op.Fields = append(op.Fields, doc.fields(c.Schema, "")...)
				}
			}
			ops = append(ops, op)
		}
	}
	if len(ops) == 0 {
		t.Fatal("the OpenAPI document has no operations")
	}
	return ops
}

// fields lists the fields of an object schema, and those of its line lists.
func (d *openAPIDoc) fields(s *schema, line string) []bodyField {
	props := d.properties(s)
	var out []bodyField
	for _, name := range slices.Sorted(maps.Keys(props)) {
		p := d.resolve(props[name])
		kind := d.kind(p)
		if kind == "array" && p.Items != nil && d.kind(d.resolve(p.Items)) == "object" {
			kind = "lines"
		}
		out = append(out, bodyField{Line: line, Name: name, Kind: kind})
		if kind == "lines" && line == "" {
			out = append(out, d.fields(p.Items, name)...)
		}
	}
	return out
}

// properties merges the properties of a schema and of its allOf, oneOf and
// anyOf parts (a generator-side union: every name some variant accepts).
func (d *openAPIDoc) properties(s *schema) map[string]*schema {
	s = d.resolve(s)
	props := map[string]*schema{}
	if s == nil {
		return props
	}
	maps.Copy(props, s.Properties)
	for _, part := range slices.Concat(s.AllOf, s.OneOf, s.AnyOf) {
		maps.Copy(props, d.properties(part))
	}
	return props
}

func (d *openAPIDoc) resolve(s *schema) *schema {
	for s != nil && s.Ref != "" {
		s = d.Components.Schemas[strings.TrimPrefix(s.Ref, "#/components/schemas/")]
	}
	return s
}

// kind is the schema's JSON type, ignoring null.
func (d *openAPIDoc) kind(s *schema) string {
	if s == nil {
		return "any"
	}
	switch ty := s.Type.(type) {
	case string:
		return ty
	case []any:
		for _, x := range ty {
			if x != "null" {
				return x.(string)
			}
		}
	}
	if len(d.properties(s)) > 0 || s.AdditionalProperties != nil {
		return "object"
	}
	return "any"
}

// mutation is one hostile value: JSON text for a body, escaped text for a
// path or query parameter.
type mutation struct {
	Text   string
	Refuse bool // must be refused with 400 wherever it is sent
}

// textRefusals are texts no field, key or parameter may carry: they are
// not valid UTF-8 (a stray byte, an overlong "/", an encoded surrogate) or
// hold NUL. As JSON string bodies.
var textRefusals = []string{
	"\"\xff\xfe\"", "\"\xc0\xaf\"", "\"caf\xe9 \xed\xa0\x80\"", `"a\u0000b"`, `"x\udc00y\ud800"`,
}

// bodyMutations are the values sent for one body field of a kind: those
// every route must refuse (bad text, numbers beyond float64, deep nesting,
// the wrong JSON type), then hostile values that may well be accepted.
func bodyMutations(kind string) []mutation {
	var out []mutation
	refuse := func(texts ...string) {
		for _, s := range texts {
			out = append(out, mutation{Text: s, Refuse: true})
		}
	}
	accept := func(texts ...string) {
		for _, s := range texts {
			out = append(out, mutation{Text: s})
		}
	}
	refuse(textRefusals...)
	refuse(`-1e400`, strings.Repeat("[", 200)+strings.Repeat("]", 200))
	switch kind {
	case "object", "lines":
		refuse(`""`)
	default:
		accept(`""`) // clears the field, or is refused where it always has a value
	}
	switch kind {
	case "string":
		refuse(`12`, `{}`)
		accept(`"' OR '1'='1'; DROP TABLE customers; --"`, `"../../etc/passwd %00 \\ud800 Za\u0301 😀"`,
			`"`+strings.Repeat("x", 20_000)+`"`)
	case "number", "integer":
		refuse(`"12"`, `true`)
		accept(`1e308`, `-1.7976931348623157e308`, `5e-324`)
	case "boolean":
		refuse(`"true"`, `1`)
	case "array":
		refuse(`"x"`, `[1]`, "[\"\xff\"]", `["\u0000"]`)
		accept(`["' OR 1=1 --", "../.."]`, `[]`)
	case "lines":
		refuse(`"x"`, `[1]`, `[null]`)
		accept(`[{}]`)
	case "object":
		refuse(`"x"`, `{"a": 1}`, "{\"a\xff\": \"x\"}", `{"a": "\u0000"}`)
		accept(`{"' OR 1=1 --": "../.."}`, `{"`+strings.Repeat("k", 5000)+`": "v"}`)
	}
	return out
}

// bodyWith is a body carrying value (JSON text) for the field.
func bodyWith(f bodyField, value string) string {
	member := quoteName(f.Name) + ": " + value
	if f.Line == "" {
		return "{" + member + "}"
	}
	return "{" + quoteName(f.Line) + ": [{" + member + "}]}"
}

func quoteName(name string) string {
	b, _ := json.Marshal(name)
	return string(b)
}

// wholeBodies are malformed bodies of any write: not one object, broken
// JSON, a byte-order mark, nesting past the decoder's limit, a name sent
// twice, a name too long to be a field, and the hostile bodies of earlier
// rounds.
func wholeBodies(op operation) []string {
	bodies := slices.Clone(badBodies)
	bodies = append(bodies,
		"\xef\xbb\xbf{}", `{"a" 1}`, `{"a":1,}`, `{'a': 1}`, "{\"a\":\x00}",
		strings.Repeat("[", 20_000), strings.Repeat(`{"a":`, 20_000),
		`{"`+strings.Repeat("n", 10_000)+`": 1}`, "{\"\xff\": 1}", `{"\u0000": 1}`,
	)
	if len(op.Fields) > 0 {
		name := quoteName(op.Fields[0].Name)
		bodies = append(bodies, `{`+name+`: null, `+name+`: null}`)
	}
	return bodies
}

// keyMutations are hostile record keys, path-escaped. Refused ones are not
// valid UTF-8 or hold NUL once unescaped: 400, or 404 (no such key exists).
var keyMutations = []mutation{
	{Text: "%FF%FE", Refuse: true}, {Text: "10%0064", Refuse: true}, {Text: "%C0%AF", Refuse: true}, {Text: "%ED%A0%80", Refuse: true},
	{Text: "..%2F..%2Fetc%2Fpasswd"}, {Text: "1'%20OR%20'1'%3D'1"}, {Text: "%2E%2E"}, {Text: strings.Repeat("9", 5000)},
	{Text: "-1"}, {Text: "1e308"}, {Text: "%25FF%F0%9F%98%80"},
}

// queryMutations are hostile query values, escaped. Refused ones are not
// valid UTF-8, hold NUL or are malformed percent-escapes: 400
// invalid_parameter on every route that reads parameters.
var queryMutations = []mutation{
	{Text: "%FF", Refuse: true}, {Text: "a%00b", Refuse: true}, {Text: "%C0%AF%ED%A0%80", Refuse: true},
	{Text: "%zz", Refuse: true}, {Text: "a%2", Refuse: true}, {Text: "%", Refuse: true}, // malformed escapes, never dropped
	{Text: ""}, {Text: strings.Repeat("x", 10_000)}, {Text: "1e400"}, {Text: "NaN"}, {Text: "-1"},
	{Text: "'%20OR%201%3D1--%20..%2F..%2Fetc"}, {Text: "a,,b"}, {Text: "2026-13-45"},
}

// fillPath puts values into the path's parameters.
func fillPath(path string, values map[string]string) string {
	for name, v := range values {
		path = strings.Replace(path, "{"+name+"}", v, 1)
	}
	return path
}

// pascal is the read name of a camelCase body field.
func pascal(name string) string {
	if name == "" {
		return name
	}
	return strings.ToUpper(name[:1]) + name[1:]
}

// sentValue is the value a JSON text carries, for comparing with what was
// stored; ok is false for values the comparison does not cover.
func sentValue(text string) (any, bool) {
	var v any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		return nil, false
	}
	switch v.(type) {
	case string, float64:
		return v, true
	}
	return nil, false
}

// countingName says how a request is labelled in failures.
func label(method, path, body string) string {
	if len(path) > 120 {
		path = path[:120] + "…(" + strconv.Itoa(len(path)) + " bytes)"
	}
	return method + " " + path + " " + strconv.QuoteToASCII(truncate(body, 100))
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
