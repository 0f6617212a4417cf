package docspage

import (
	"bytes"
	"encoding/json"
	"html/template"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"fieldapi/catalog"
	"fieldapi/codegen/model"
	"fieldapi/codegen/openapi"
)

// The reference page shows the examples the OpenAPI document carries (the
// model's example builders, drawn from the catalog's demo records), with
// their members in the catalog's order rather than sorted.

// member is one name and value of a JSON object.
type member struct {
	Name  string
	Value any
}

// orderedJSON is a JSON object that keeps its members in the order given
// (the catalog's field order), where a map would sort them.
type orderedJSON []member

// MarshalJSON writes the members in order.
func (o orderedJSON) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			buf.WriteByte(',')
		}
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(m.Name); err != nil {
			return nil, err
		}
		buf.WriteByte(':')
		if err := enc.Encode(m.Value); err != nil {
			return nil, err
		}
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// indentJSON renders a value as indented JSON, keeping non-ASCII text as is.
func indentJSON(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		panic(err) // only values built here are encoded
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// inOrder is an example object with the members names gives first, in
// that order, then any others sorted, so nothing of the example is lost.
// nested orders the objects inside a member's list (line records).
func inOrder(example map[string]any, names []string, nested map[string]func(map[string]any) orderedJSON) orderedJSON {
	var o orderedJSON
	add := func(name string) {
		v, ok := example[name]
		if !ok || slices.ContainsFunc(o, func(m member) bool { return m.Name == name }) {
			return
		}
		if list, isList := v.([]any); isList && nested[name] != nil {
			order := nested[name]
			items := make([]any, len(list))
			for i, item := range list {
				items[i] = item
				if obj, ok := item.(map[string]any); ok {
					items[i] = order(obj)
				}
			}
			v = items
		}
		o = append(o, member{name, v})
	}
	for _, name := range names {
		add(name)
	}
	for _, name := range slices.Sorted(maps.Keys(example)) {
		add(name)
	}
	return o
}

// readOrder orders a read example: the fields, Modified, ExtraFields, then
// the line lists, each line as its register reads.
func readOrder(r *model.Register) func(map[string]any) orderedJSON {
	return func(example map[string]any) orderedJSON {
		names := []string{}
		for _, f := range r.Fields {
			names = append(names, f.Name)
		}
		names = append(names, "Modified", "ExtraFields")
		nested := map[string]func(map[string]any) orderedJSON{}
		for _, l := range r.ReadLines {
			names = append(names, l.ReadName)
			nested[l.ReadName] = readOrder(l.Of)
		}
		return inOrder(example, names, nested)
	}
}

// writeOrder orders a request body: the body fields, extraFields, then the
// line lists of lines (none for a line itself).
func writeOrder(r *model.Register, lines []*model.Line) func(map[string]any) orderedJSON {
	return func(example map[string]any) orderedJSON {
		names := []string{}
		for _, f := range r.BodyFields() {
			names = append(names, f.WriteName)
		}
		names = append(names, "extraFields")
		nested := map[string]func(map[string]any) orderedJSON{}
		for _, l := range lines {
			names = append(names, l.Name)
			nested[l.Name] = writeOrder(l.Of, nil)
		}
		return inOrder(example, names, nested)
	}
}

// replyOrder orders a reply: its fields, then its line lists.
func replyOrder(rp *model.Reply) func(map[string]any) orderedJSON {
	return func(example map[string]any) orderedJSON {
		var names []string
		for _, f := range rp.Fields {
			names = append(names, f.WriteName)
		}
		nested := map[string]func(map[string]any) orderedJSON{}
		for _, rl := range rp.Lines {
			names = append(names, rl.Name)
			var lineNames []string
			for _, f := range rl.Fields {
				lineNames = append(lineNames, f.WriteName)
			}
			nested[rl.Name] = func(item map[string]any) orderedJSON { return inOrder(item, lineNames, nil) }
		}
		return inOrder(example, names, nested)
	}
}

// schemaExample is the example the document gives schema, ordered by order
// (nil: sorted); nil when the schema has none. anchor is set where the
// page's routes link to the example.
func schemaExample(schemas map[string]*openapi.Schema, schema, anchor string, order func(map[string]any) orderedJSON) *docsJSON {
	s := schemas[schema]
	if s == nil || len(s.Examples) == 0 {
		return nil
	}
	v := s.Examples[0]
	if obj, ok := v.(map[string]any); ok && order != nil {
		v = order(obj)
	}
	return &docsJSON{Schema: schema, JSON: indentJSON(v), Anchor: anchor}
}

// lookupExamplePath is a lookup key's path with the example's value in it.
func lookupExamplePath(r *model.Register, lk *model.Lookup) string {
	if v, ok := r.Example[lk.Field.Name].(string); ok && v != "" {
		return strings.Replace(lk.DocPath, "{"+lk.Field.WriteName+"}", v, 1)
	}
	return lk.DocPath
}

// examplePath is a record's path with the example's key in it.
func examplePath(r *model.Register, docPath string) string {
	if key, ok := r.Example[r.Key].(string); ok {
		return strings.Replace(docPath, "{"+r.Key+"}", key, 1)
	}
	return docPath
}

// registerExamples are a read, a create and an update of a register, and a
// call of each line post and action: the examples of the OpenAPI schemas
// of those routes. A route whose body schema has no example is left out.
func registerExamples(r *model.Register, schemas map[string]*openapi.Schema) []docsExample {
	item := examplePath(r, r.ItemDocPath)
	ok, created := statusLine(http.StatusOK), statusLine(http.StatusCreated)
	var examples []docsExample
	if read := schemaExample(schemas, r.RecordType, "", readOrder(r)); read != nil {
		examples = append(examples, docsExample{Title: "Read one", Method: "GET", Path: item, Status: ok, Reply: read})
	}
	if r.Has(catalog.Create) {
		if body := schemaExample(schemas, r.CreateSchema, exampleAnchor(r.CreateSchema), writeOrder(r, r.Lines)); body != nil {
			ex := docsExample{Title: "Create", Method: "POST", Path: r.CollectionPath, Request: body, Status: created,
				Text: "The record as written, in the read shape above."}
			if rp := r.CreateReply; rp != nil {
				ex.Reply = schemaExample(schemas, rp.Type, exampleAnchor(rp.Type), replyOrder(rp))
			}
			examples = append(examples, ex)
		}
	}
	if r.Has(catalog.Update) {
		if body := schemaExample(schemas, r.UpdateSchema, exampleAnchor(r.UpdateSchema), writeOrder(r, nil)); body != nil {
			examples = append(examples, docsExample{Title: "Change", Method: "PATCH", Path: item, Request: body, Status: ok,
				Text: "The whole record after the change. Fields not sent, and fields sent as null, are left as they were; \"\" clears a field."})
		}
	}
	if r.Upserts() {
		if body := schemaExample(schemas, r.UpsertSchema, exampleAnchor(r.UpsertSchema), writeOrder(r, r.Lines)); body != nil {
			// A key no record has: the example creates, lines and all.
			path := strings.Replace(r.ItemDocPath, "{"+r.Key+"}", "ERP-4711", 1)
			if r.UpsertFunc == "" { // by a lookup key only
				for _, lk := range r.Lookups {
					if lk.UpsertFunc != "" {
						path = lookupExamplePath(r, lk)
						break
					}
				}
			}
			examples = append(examples, docsExample{Title: "Create or change by key", Method: "PUT", Path: path, Request: body, Status: created,
				Text: "When no record has the key, it is created with it: 201, Location, the answer of the create above. When one has it, the fields sent change as with PATCH: 200 and the whole record."})
		}
	}
	for _, l := range r.Lines {
		if !l.Post {
			continue
		}
		body := schemaExample(schemas, l.Schema, exampleAnchor(l.Schema), writeOrder(l.Of, nil))
		if body == nil {
			continue
		}
		ex := docsExample{Title: "Add one line to " + l.Name, Method: "POST", Path: examplePath(r, l.DocPath), Request: body, Status: created,
			Text: "The line as written, in the read shape of " + l.Of.Name + "."}
		if l.Reply != nil {
			ex.Reply = schemaExample(schemas, l.Reply.Type, exampleAnchor(l.Reply.Type), replyOrder(l.Reply))
		}
		examples = append(examples, ex)
	}
	for _, a := range r.Actions {
		body := schemaExample(schemas, a.Body.Type, exampleAnchor(a.Body.Type), writeOrder(&model.Register{Fields: a.Body.Fields}, nil))
		if body == nil {
			continue
		}
		examples = append(examples, docsExample{Title: model.Exported(a.Name), Method: "POST", Path: examplePath(r, a.DocPath), Request: body, Status: ok,
			Text: "The whole record after the engine carried it out."})
	}
	return examples
}

func statusLine(status int) string { return strconv.Itoa(status) + " " + http.StatusText(status) }

// escapeText escapes text for an HTML element's content; quotes may stay.
var escapeText = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace

// highlightJSON marks up indented JSON for the page: names, strings,
// numbers and literals get a class each. The text itself is escaped.
func highlightJSON(src string) template.HTML {
	var b strings.Builder
	span := func(class, s string) {
		b.WriteString(`<span class="j-` + class + `">` + escapeText(s) + `</span>`)
	}
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '"':
			j := i + 1
			for j < len(src) && src[j] != '"' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			j++ // the closing quote
			s := src[i:j]
			if strings.HasPrefix(src[j:], ":") {
				span("k", s)
			} else {
				span("s", s)
			}
			i = j
		case c == '-' || c >= '0' && c <= '9':
			j := i + 1
			for j < len(src) && strings.IndexByte("0123456789.eE+-", src[j]) >= 0 {
				j++
			}
			span("n", src[i:j])
			i = j
		case strings.HasPrefix(src[i:], "true"), strings.HasPrefix(src[i:], "null"):
			span("l", src[i:i+4])
			i += 4
		case strings.HasPrefix(src[i:], "false"):
			span("l", src[i:i+5])
			i += 5
		default:
			b.WriteString(escapeText(string(c)))
			i++
		}
	}
	return template.HTML(b.String())
}
