package codegen

import (
	"bytes"
	"encoding/json"
	"html/template"
	"net/http"
	"strconv"
	"strings"
	"unicode"

	"fieldapi/catalog"
)

// The reference page's examples are made from the field types and names
// alone, so every register has them the moment it is declared. The page
// marks them illustrative: the values are plausible, not demo data.

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

// exampleKey is the key used in example paths.
func exampleKey(r *Register) string {
	return exampleText(r.KeyField())
}

// exampleValue is an illustrative value of a field, by its type and name.
func exampleValue(f *catalog.Field) any {
	switch f.Type {
	case catalog.Number:
		switch {
		case containsAny(f.Name, "Price", "Cost", "Amount"):
			return 1234.5
		case strings.HasSuffix(f.Name, "Pct"):
			return 10
		case containsAny(f.Name, "Quantity", "Hours", "Time"):
			return 2.5
		}
		return 1
	case catalog.Date:
		if strings.HasPrefix(f.Name, "Plan") {
			return "2026-05-04T08:00:00"
		}
		return "2026-05-04"
	case catalog.Bool:
		return true
	case catalog.List:
		if strings.HasSuffix(f.Name, "Signs") {
			return []string{"ANLI", "MASV"}
		}
		return []string{"First", "Second"}
	case catalog.Object:
		if strings.Contains(f.Name, "Status") {
			return orderedJSON{{"ANLI", "Planned"}}
		}
		return orderedJSON{{"Key", "value"}}
	}
	return exampleText(f)
}

// exampleText is an illustrative text value: numbers for keys and
// references, a signature for signs, an address for e-mail, otherwise the
// field's name in words.
func exampleText(f *catalog.Field) string {
	if v, ok := firstListedValue(f.Description); ok {
		return v
	}
	name := f.Name
	switch {
	case strings.HasSuffix(name, "Nr"):
		return "1001"
	case name == "Id" || strings.HasSuffix(name, "Id"):
		return "17"
	case strings.HasSuffix(name, "Sign"):
		return "ANLI"
	case strings.Contains(name, "Email"):
		return "kari@example.com"
	case containsAny(name, "Phone", "Mobile", "Fax"):
		return "+47 55 12 34 56"
	case name == "Status":
		return "Active"
	case name == "City":
		return "Bergen"
	case name == "Country":
		return "NO"
	case name == "PostalCode":
		return "5003"
	}
	return words(name)
}

// firstListedValue is the first of the values a description opens with,
// as in "Planned, Sent, Received or Finished; ...".
func firstListedValue(description string) (string, bool) {
	head, _, _ := strings.Cut(description, ";")
	head, _, _ = strings.Cut(head, ".")
	values := strings.Split(strings.ReplaceAll(head, " or ", ", "), ", ")
	if len(values) < 2 {
		return "", false
	}
	for _, v := range values {
		if v == "" || !unicode.IsUpper(rune(v[0])) || strings.ContainsFunc(v, func(c rune) bool { return !unicode.IsLetter(c) && !unicode.IsDigit(c) }) {
			return "", false
		}
	}
	return values[0], true
}

// words spells a PascalCase name as words: AddressLine1 → "Address line 1".
func words(name string) string {
	var b strings.Builder
	for i, c := range name {
		prev := rune(0)
		if i > 0 {
			prev = rune(name[i-1])
		}
		switch {
		case i > 0 && unicode.IsUpper(c) && !unicode.IsUpper(prev):
			b.WriteByte(' ')
			b.WriteRune(unicode.ToLower(c))
		case i > 0 && unicode.IsDigit(c) && !unicode.IsDigit(prev):
			b.WriteByte(' ')
			b.WriteRune(c)
		default:
			b.WriteRune(c)
		}
	}
	return b.String()
}

func containsAny(s string, parts ...string) bool {
	for _, p := range parts {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}

// exampleFields is an object of every field given, each under the name
// the shape uses (Field.Name read, Field.WriteName written).
func exampleFields(fields []*Field, name func(*Field) string) orderedJSON {
	var o orderedJSON
	for _, f := range fields {
		o = append(o, member{name(f), exampleValue(f.Field)})
	}
	return o
}

func readName(f *Field) string  { return f.Name }
func writeName(f *Field) string { return f.WriteName }

// exampleRecord is the read shape of a register with every field.
func exampleRecord(r *Register) orderedJSON {
	o := exampleFields(r.Fields, readName)
	for _, l := range r.ReadLines {
		o = append(o, member{l.ReadName, []any{exampleLineRecord(l)}})
	}
	if r.ExtraFields {
		o = append(o, member{"ExtraFields", orderedJSON{{"Visit.Type", "Service"}}})
	}
	return append(o, member{"Modified", "2026-05-04T10:15:00Z"})
}

// exampleLineRecord is a line as its owner reads it: its key, the owner's
// key and the fields a line must be created with.
func exampleLineRecord(l *Line) orderedJSON {
	o := orderedJSON{{l.Of.Key, exampleValue(l.Of.KeyField())}}
	for _, f := range l.Of.Fields {
		if f.Name == l.Parent || l.Set[f.Name] != "" {
			value := exampleValue(f.Field)
			if v := l.Set[f.Name]; v != "" {
				value = v
			}
			o = append(o, member{f.Name, value})
		}
	}
	for _, f := range l.Of.Fields {
		if f.Required && f.Name != l.Parent {
			o = append(o, member{f.Name, exampleValue(f.Field)})
		}
	}
	return o
}

// maxExampleFields bounds the optional fields an example body shows, so a
// register of forty fields still has a short example.
const maxExampleFields = 4

// exampleBody is a request body: the required fields, then the first few
// others the body accepts (skipping the key, which a number series fills).
func exampleBody(fields []*Field, skip func(*Field) bool) orderedJSON {
	var o orderedJSON
	for _, f := range fields {
		if f.Required && !skip(f) {
			o = append(o, member{f.WriteName, exampleValue(f.Field)})
		}
	}
	optional := 0
	for _, f := range fields {
		if f.Required || skip(f) || optional == maxExampleFields {
			continue
		}
		o = append(o, member{f.WriteName, exampleValue(f.Field)})
		optional++
	}
	return o
}

// exampleCreate is a create body, with one line of each line list.
func exampleCreate(r *Register) orderedJSON {
	o := exampleBody(r.BodyFields(), func(f *Field) bool { return f.Name == r.Key && r.NumberSeries })
	for _, l := range r.Lines {
		line := exampleBody(l.Of.BodyFields(), func(f *Field) bool { return f.Name == l.Parent || l.Set[f.Name] != "" || f.Name == l.Of.Key })
		o = append(o, member{l.Name, []any{line}})
	}
	return o
}

// exampleUpdate is a PATCH body: two fields set and, when there is a
// third text field, one cleared with "".
func exampleUpdate(r *Register) orderedJSON {
	var o orderedJSON
	for _, f := range r.BodyFields() {
		if f.CreateOnly || f.Name == r.Key {
			continue
		}
		switch {
		case len(o) < 2:
			o = append(o, member{f.WriteName, exampleValue(f.Field)})
		case len(o) == 2 && (f.Type == catalog.Text || f.Type == ""):
			return append(o, member{f.WriteName, ""})
		}
	}
	return o
}

// exampleReply is a reply summary in camelCase.
func exampleReply(rp *Reply) orderedJSON {
	o := exampleFields(rp.Fields, writeName)
	for _, rl := range rp.Lines {
		o = append(o, member{rl.Name, []any{exampleFields(rl.Fields, writeName)}})
	}
	return o
}

// registerExamples are a read, a create and an update of a register, and a
// call of each line post and action.
func registerExamples(r *Register) []docsExample {
	key := exampleKey(r)
	item := strings.Replace(r.ItemDocPath, "{"+r.Key+"}", key, 1)
	ok, created := statusLine(http.StatusOK), statusLine(http.StatusCreated)
	examples := []docsExample{{Title: "Read one", Method: "GET", Path: item, Status: ok, Reply: indentJSON(exampleRecord(r))}}
	if r.Has(catalog.Create) {
		ex := docsExample{Title: "Create", Method: "POST", Path: r.CollectionPath, Request: indentJSON(exampleCreate(r)), Status: created}
		if r.CreateReply != nil {
			ex.Reply = indentJSON(exampleReply(r.CreateReply))
		} else {
			ex.Text = "The record as written, in the read shape above."
		}
		examples = append(examples, ex)
	}
	if r.Has(catalog.Update) {
		examples = append(examples, docsExample{Title: "Change", Method: "PATCH", Path: item, Request: indentJSON(exampleUpdate(r)), Status: ok,
			Text: "The whole record after the change. Fields not sent, and fields sent as null, are left as they were; \"\" clears a field."})
	}
	for _, l := range r.Lines {
		if !l.Post {
			continue
		}
		body := exampleBody(l.Of.BodyFields(), func(f *Field) bool { return f.Name == l.Parent || l.Set[f.Name] != "" || f.Name == l.Of.Key })
		ex := docsExample{Title: "Add one line to " + l.Name, Method: "POST", Path: strings.Replace(l.DocPath, "{"+r.Key+"}", key, 1), Request: indentJSON(body), Status: created}
		if l.Reply != nil {
			ex.Reply = indentJSON(exampleReply(l.Reply))
		} else {
			ex.Text = "The line as written, in the read shape of " + l.Of.Name + "."
		}
		examples = append(examples, ex)
	}
	for _, a := range r.Actions {
		body := exampleFields(a.Body.Fields, writeName)
		examples = append(examples, docsExample{Title: exported(a.Name), Method: "POST", Path: strings.Replace(a.DocPath, "{"+r.Key+"}", key, 1), Request: indentJSON(body), Status: ok,
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
