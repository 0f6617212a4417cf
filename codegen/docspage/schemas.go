package docspage

import (
	"html/template"
	"maps"
	"slices"
	"strconv"
	"strings"

	"fieldapi/codegen/model"
	"fieldapi/codegen/openapi"
)

// The reference page describes types, bodies and answers by reading the
// OpenAPI document's schemas, so the page and the document cannot disagree.

// schemaLinks says where on the page a schema is shown: a shared shape's
// table, a register's section, the paging guide, or the example block of a
// request or reply schema.
type schemaLinks map[string]string // schema name → #anchor

func newSchemaLinks(m *model.Model, doc *openapi.Document) schemaLinks {
	links := schemaLinks{}
	for _, name := range builtinShapes {
		links[name] = "#" + shapeAnchor(name)
	}
	for _, r := range m.Registers {
		links[r.RecordType] = "#" + registerAnchor(r.Name)
		links[r.PageSchema] = "#paging"
		for _, rt := range r.Routes {
			for _, name := range []string{rt.Request, rt.Reply} {
				if s := doc.Components.Schemas[name]; s != nil && len(s.Examples) > 0 && links[name] == "" {
					links[name] = "#" + exampleAnchor(name)
				}
			}
		}
	}
	return links
}

func exampleAnchor(schema string) string { return "ex-" + schema }

// link names a schema, linked to where the page shows it.
func (l schemaLinks) link(name string) template.HTML {
	if href, ok := l[name]; ok {
		return template.HTML(`<a href="` + href + `"><code>` + template.HTMLEscapeString(name) + `</code></a>`)
	}
	return code(name)
}

// typeOf words a schema's type as the page does (text, number, integer,
// date, bool, list of …, object of …, or the linked name of a component)
// and says whether it admits null.
func (l schemaLinks) typeOf(s *openapi.Schema) (t template.HTML, nullable bool) {
	if s == nil {
		return "", false
	}
	if s.Ref != "" {
		return l.link(openapi.RefName(s.Ref)), false
	}
	if values, null := s.NonNull(); values != s { // an enum or null (orNull)
		t, _ := l.typeOf(values)
		return t, null
	}
	var words []template.HTML
	for _, name := range s.Type {
		switch name {
		case "null":
			nullable = true
		case "string":
			switch {
			case s.Pattern == openapi.DatePattern || s.Pattern == openapi.ClearableDatePattern:
				words = append(words, "date")
			case s.ContentEncoding == "base64":
				words = append(words, "base64 text")
			case s.ContentEncoding == "binary":
				words = append(words, "bytes")
			case s.Format == "uri":
				words = append(words, "URL")
			default:
				words = append(words, "text")
			}
		case "boolean":
			words = append(words, "bool")
		case "array":
			item, _ := l.typeOf(s.Items)
			words = append(words, "list of "+item)
		case "object":
			if ap := s.AdditionalProperties; ap != nil && !ap.IsNever() {
				value, _ := l.typeOf(ap)
				words = append(words, "object of "+value)
			} else {
				words = append(words, "object")
			}
		default: // number, integer
			words = append(words, text(name))
		}
	}
	var b strings.Builder
	for i, w := range words {
		if i > 0 {
			b.WriteString(" or ")
		}
		b.WriteString(string(w))
	}
	return template.HTML(b.String()), nullable
}

// maxListedValues bounds the allowed values a row lists; a longer set (the
// problem codes) is only counted.
const maxListedValues = 12

// allowedValues words a schema's enum, without the "" a clearable property
// adds; "" when it has none.
func allowedValues(s *openapi.Schema) template.HTML {
	if s == nil {
		return ""
	}
	s, _ = s.NonNull()
	var values []string
	for _, v := range s.Enum {
		if str, ok := v.(string); ok && str != "" {
			values = append(values, str)
		}
	}
	switch {
	case len(values) == 0:
		return ""
	case len(values) > maxListedValues:
		return text("One of " + strconv.Itoa(len(values)) + " values (the enum in /openapi.json).")
	}
	var b strings.Builder
	b.WriteString("One of ")
	for i, v := range values {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(string(code(v)))
	}
	b.WriteString(".")
	return template.HTML(b.String())
}

// properties are the rows of a shape's table, by property name.
func (l schemaLinks) properties(s *openapi.Schema) []docsField {
	var rows []docsField
	for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
		p := s.Properties[name]
		row := docsField{Read: name, Required: slices.Contains(s.Required, name)}
		row.Type, row.Nullable = l.typeOf(p)
		if p.Description != "" {
			row.Notes = append(row.Notes, text(p.Description))
		}
		if values := allowedValues(p); values != "" {
			row.Notes = append(row.Notes, values)
		}
		rows = append(rows, row)
	}
	return rows
}

// operationBody says in a line what an operation takes and answers, with
// links to the schemas: "Body: TaskStatusBody · 200: Task".
func (l schemaLinks) operationBody(op *openapi.Operation) template.HTML {
	var parts []string
	if op.RequestBody != nil {
		if mt := op.RequestBody.Content["application/json"]; mt != nil && mt.Schema != nil && mt.Schema.Ref != "" {
			parts = append(parts, "Body: "+string(l.link(openapi.RefName(mt.Schema.Ref))))
		}
	}
	for _, status := range slices.Sorted(maps.Keys(op.Responses)) {
		resp := op.Responses[status]
		if resp.Ref != "" || status[0] != '2' && status != "503" {
			continue // problems: listed under Errors
		}
		answer := text(resp.Description)
		if mt := resp.Content["application/json"]; mt != nil && mt.Schema != nil && mt.Schema.Ref != "" {
			answer = l.link(openapi.RefName(mt.Schema.Ref))
		}
		parts = append(parts, status+": "+string(answer))
	}
	return template.HTML(strings.Join(parts, " · "))
}

// inlineBody spells out a small request body's properties in the order
// fields gives: "status (text, required; one of …)".
func (l schemaLinks) inlineBody(s *openapi.Schema, fields []*model.Field) template.HTML {
	var parts []string
	for _, f := range fields {
		p := s.Properties[f.WriteName]
		if p == nil {
			continue
		}
		t, _ := l.typeOf(p)
		part := string(code(f.WriteName)) + " (" + string(t)
		if slices.Contains(s.Required, f.WriteName) {
			part += ", required"
		}
		part += ")"
		if values := allowedValues(p); values != "" {
			part += ": " + strings.TrimSuffix(string(values), ".")
		}
		parts = append(parts, part)
	}
	return template.HTML(strings.Join(parts, "; "))
}
