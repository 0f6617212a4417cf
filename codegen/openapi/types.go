package openapi

import (
	"maps"
	"slices"
	"strconv"
	"strings"
)

// How the document spells numbers and null, so that client generators
// (oapi-codegen, openapi-typescript) pick the types the server uses: a
// number without a format becomes a float32 in some generators and an
// integer without one an int; and a null listed among an enum's values
// becomes a constant named after "<nil>" (orNull).

// jsonNumber is the schema of a JSON number a client holds in a Go T:
//
//	float64 → {"type": "number", "format": "double"}
//	int64   → {"type": "integer", "format": "int64"}
//	int32   → {"type": "integer", "format": "int32"}
//
// T is what the server holds the value in (engine and runtime types), or
// int32 for a Go int whose values the protocol bounds (HTTP statuses,
// seconds, page sizes). Every number of the document is declared through
// it; checkTypes refuses one that is not.
func jsonNumber[T float64 | int64 | int32](desc string) *Schema {
	s := &Schema{Description: desc}
	switch any(*new(T)).(type) {
	case float64:
		s.Type, s.Format = types("number"), "double"
	case int64:
		s.Type, s.Format = types("integer"), "int64"
	case int32:
		s.Type, s.Format = types("integer"), "int32"
	}
	return s
}

// numberFormats are the formats checkTypes accepts, by JSON type.
var numberFormats = map[string][]string{"number": {"double"}, "integer": {"int32", "int64"}}

// orNull is s admitting null too, its description moved to the whole.
// Without an enum the type gains "null". With one it becomes
//
//	{"anyOf": [{"type": "string", "enum": [values]}, {"type": "null"}]}
//
// so that the enum lists only values: a null among them is valid JSON
// Schema, but generators take each member for a value (oapi-codegen made
// TaskPlanDateTypeLessThannil = "<nil>" of it), and "null" in the type
// alone would leave the enum refusing null. Both oapi-codegen (a pointer
// to the enum type) and openapi-typescript (("a" | "b") | null) read the
// anyOf as a nullable enum.
func orNull(s *Schema) *Schema {
	if s.Enum == nil {
		s.Type = append(s.Type, "null")
		return s
	}
	desc := s.Description
	s.Description = ""
	return &Schema{AnyOf: []*Schema{s, {Type: types("null")}}, Description: desc}
}

// NonNull is the schema of s's values other than null, and whether s
// admits null: the first member of an orNull anyOf, or s itself.
func (s *Schema) NonNull() (*Schema, bool) {
	if len(s.AnyOf) == 2 && len(s.AnyOf[1].Type) == 1 && s.AnyOf[1].Type[0] == "null" {
		return s.AnyOf[0], true
	}
	return s, slices.Contains(s.Type, "null")
}

// checkTypes lists, by where it is, every number of the document without
// format double, every integer without format int32 or int64, and every
// enum that lists null (orNull says why not).
func checkTypes(d *Document) []string {
	var errs []string
	d.walkSchemas(func(where string, s *Schema) {
		for _, t := range s.Type {
			if want, ok := numberFormats[t]; ok && !slices.Contains(want, s.Format) {
				errs = append(errs, where+": type "+t+" with format "+quoteOrNone(s.Format)+", want "+strings.Join(want, " or ")+" (declare it with jsonNumber)")
			}
		}
		if slices.Contains(s.Enum, nil) {
			errs = append(errs, where+": an enum lists null (make it nullable with orNull)")
		}
	})
	return errs
}

func quoteOrNone(s string) string {
	if s == "" {
		return "none"
	}
	return `"` + s + `"`
}

// walkSchemas calls visit with every schema of the document, nested ones
// included, in a fixed order, and where it is: "GET /v1/events:
// parameters/3/schema", "webhook customer.created POST: requestBody/…",
// "components/schemas/Attempt/properties/latencyMs".
func (d *Document) walkSchemas(visit func(where string, s *Schema)) {
	var schema func(where string, s *Schema)
	schema = func(where string, s *Schema) {
		if s == nil || s.never {
			return
		}
		visit(where, s)
		schema(where+"/items", s.Items)
		schema(where+"/additionalProperties", s.AdditionalProperties)
		for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
			schema(where+"/properties/"+name, s.Properties[name])
		}
		for i, sub := range s.AllOf {
			schema(where+"/allOf/"+strconv.Itoa(i), sub)
		}
		for i, sub := range s.AnyOf {
			schema(where+"/anyOf/"+strconv.Itoa(i), sub)
		}
	}
	content := func(where string, c map[string]*MediaType) {
		for _, mt := range slices.Sorted(maps.Keys(c)) {
			schema(where+"/content/"+mt+"/schema", c[mt].Schema)
		}
	}
	parameter := func(where string, p *Parameter) {
		if p != nil {
			schema(where+"/schema", p.Schema)
		}
	}
	header := func(where string, h *Header) {
		if h != nil {
			schema(where+"/schema", h.Schema)
		}
	}
	response := func(where string, r *Response) {
		if r == nil {
			return
		}
		for _, name := range slices.Sorted(maps.Keys(r.Headers)) {
			header(where+"/headers/"+name, r.Headers[name])
		}
		content(where, r.Content)
	}
	operation := func(where string, op *Operation) {
		if op == nil {
			return
		}
		for i, p := range op.Parameters {
			parameter(where+"parameters/"+strconv.Itoa(i), p)
		}
		if op.RequestBody != nil {
			content(where+"requestBody", op.RequestBody.Content)
		}
		for _, status := range slices.Sorted(maps.Keys(op.Responses)) {
			response(where+"responses/"+status, op.Responses[status])
		}
	}
	items := func(items map[string]*PathItem, name func(key, method string) string) {
		for _, key := range slices.Sorted(maps.Keys(items)) {
			item := items[key]
			for _, method := range []string{"GET", "HEAD", "PUT", "POST", "PATCH", "DELETE"} {
				op := item.Method(method)
				if method == "HEAD" {
					op = item.Head
				}
				operation(name(key, method)+": ", op)
			}
		}
	}
	items(d.Paths, func(path, method string) string { return method + " " + path })
	items(d.Webhooks, func(event, method string) string { return "webhook " + event + " " + method })
	c := d.Components
	for _, name := range slices.Sorted(maps.Keys(c.Schemas)) {
		schema("components/schemas/"+name, c.Schemas[name])
	}
	for _, name := range slices.Sorted(maps.Keys(c.Parameters)) {
		parameter("components/parameters/"+name, c.Parameters[name])
	}
	for _, name := range slices.Sorted(maps.Keys(c.Headers)) {
		header("components/headers/"+name, c.Headers[name])
	}
	for _, name := range slices.Sorted(maps.Keys(c.Responses)) {
		response("components/responses/"+name, c.Responses[name])
	}
}
