// Package readshape is query shaping (issue 23): fields= narrows the
// records a list or get answers with, expand= adds the related records the
// catalog lets a read expand. A read without either answers as it always
// has; the projection is applied to the typed view as it is encoded, so
// the default read pays nothing for it.
package readshape

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"fieldapi/engine"
	"fieldapi/runtime/auth"
	"fieldapi/runtime/fieldname"
	"fieldapi/runtime/problem"
	"fieldapi/runtime/recordjson"
	"fieldapi/runtime/textcheck"
)

// MaxExpandedLines is how many lines an expanded line list may carry per
// record: a record with more is refused (400 naming expand), and its lines
// are read by their own list instead.
const MaxExpandedLines = 100

// Shape is what fields= and expand= may name on the reads of one
// register (generated from the catalog).
type Shape struct {
	Key    string      // the key: every shaped record carries it
	Fields []string    // the members of the read shape, PascalCase, in order
	Lines  []LineList  // the line lists among Fields, whose lines fields= may narrow
	Expand []Expansion // the relations a read may expand, in catalog order
	// JSON writes a record's read shape straight from the record; nil:
	// the view of each record is encoded.
	JSON *recordjson.Record
}

// LineList is a line list the read shape carries (a member of Fields):
// fields= may name its lines' fields after it (Materials.ProductNr), and
// each line then carries those and its key.
type LineList struct {
	Name   string   // the member, PascalCase (Materials)
	Key    string   // the line register's key: every narrowed line carries it
	Fields []string // the line register's read shape
}

// Expansion is one relation a read may expand: a reference field's record
// (one record or null) or a line list.
type Expansion struct {
	Name   string   // the member it is read under, PascalCase (Customer)
	Scope  string   // the expanded register's read scope, which the key must hold
	Lines  bool     // a line list; otherwise one record
	Key    string   // the expanded register's key
	Fields []string // the expanded register's read shape
	View   func(engine.Record) any
	JSON   *recordjson.Record // as Shape.JSON, for the expanded register
}

// Request is a parsed fields= and expand=.
type Request struct {
	Engine engine.Shape        // what the engine reads
	keep   []string            // top-level members answered; nil: all
	nested map[string][]string // per expansion asked or line list narrowed: its members answered; nil: all
	expand []*Expansion        // as asked
	json   *recordjson.Record  // the register's Shape.JSON
}

// Shaped reports whether the request shapes its answer.
func (sr Request) Shaped() bool { return sr.Engine.Shaped() }

// Parse reads fields= and expand= strictly: every name is one the
// register reads (fieldname.Resolve: PascalCase or camelCase), each once;
// an expansion is one level deep, and a nested field needs its expansion
// asked (Customer.Name) or names a field of a line list's lines
// (Materials.ProductNr).
func Parse(values url.Values, rs Shape, scopes []string) (Request, error) {
	sr := Request{json: rs.JSON}
	for _, name := range []string{engine.FieldsParam, engine.ExpandParam} {
		if vs := values[name]; len(vs) > 1 {
			return sr, problem.InvalidParameter(name, "given more than once")
		} else if len(vs) == 1 {
			if err := textcheck.Param(name, vs[0]); err != nil {
				return sr, err
			}
		}
	}
	if values.Has(engine.ExpandParam) {
		items, err := commaList(engine.ExpandParam, values.Get(engine.ExpandParam))
		if err != nil {
			return sr, err
		}
		names := make([]string, len(rs.Expand)) // built only when asked: most lists expand nothing
		for i, x := range rs.Expand {
			names[i] = x.Name
		}
		for _, item := range items {
			if strings.Contains(item, ".") {
				return sr, problem.InvalidParameter(engine.ExpandParam, fmt.Sprintf("%q: expansions go one level deep; an expanded record expands nothing", item))
			}
			name, ok := fieldname.Resolve(item, names)
			if !ok {
				p := problem.InvalidParameter(engine.ExpandParam, fmt.Sprintf("%q is not an expansion of this register; they are listed in validValues", item))
				p.ValidValues = names
				if p.ValidValues == nil {
					p.ValidValues = []string{}
				}
				return sr, p
			}
			x := &rs.Expand[slices.Index(names, name)]
			if slices.Contains(sr.expand, x) {
				return sr, problem.InvalidParameter(engine.ExpandParam, fmt.Sprintf("%s is named twice", name))
			}
			if err := auth.RequireScope(scopes, x.Scope); err != nil {
				return sr, err
			}
			sr.expand = append(sr.expand, x)
			ex := engine.Expand{Name: x.Name}
			if x.Lines {
				ex.MaxLines = MaxExpandedLines
			}
			sr.Engine.Expand = append(sr.Engine.Expand, ex)
		}
	}
	if values.Has(engine.FieldsParam) {
		items, err := commaList(engine.FieldsParam, values.Get(engine.FieldsParam))
		if err != nil {
			return sr, err
		}
		sr.keep = []string{rs.Key}
		for _, item := range items {
			if err := sr.addField(item, rs); err != nil {
				return sr, err
			}
		}
		sr.Engine.Fields = sr.keep
		for i, x := range sr.expand {
			sr.Engine.Expand[i].Fields = sr.nested[x.Name]
		}
		for _, l := range rs.Lines {
			if kept := sr.nested[l.Name]; kept != nil {
				if sr.Engine.Lines == nil {
					sr.Engine.Lines = map[string][]string{}
				}
				sr.Engine.Lines[l.Name] = kept
			}
		}
	}
	return sr, nil
}

// addField adds one name of fields=: a member of the read shape, or
// Expansion.Member of an expansion asked, or List.Member of a line list
// of the read shape.
func (sr *Request) addField(item string, rs Shape) error {
	base, member, nested := strings.Cut(item, ".")
	if !nested {
		name, ok := fieldname.Resolve(item, rs.Fields)
		if !ok {
			return unknownField(item, rs, sr.expand)
		}
		return sr.keepMember(name, rs.Key)
	}
	in, listed, err := sr.inside(base, item, rs)
	if err != nil {
		return err
	}
	if strings.Contains(member, ".") {
		return problem.InvalidParameter(engine.FieldsParam, fmt.Sprintf("%q: fields go one level deep (a field of an expansion or of a line list's lines)", item))
	}
	name, ok := fieldname.Resolve(member, in.Fields)
	if !ok {
		return unknownField(item, rs, sr.expand)
	}
	if listed {
		if slices.Contains(sr.keep, in.Name) && sr.nested[in.Name] == nil {
			return namedWholeAndNarrowed(in.Name)
		}
		if !slices.Contains(sr.keep, in.Name) {
			sr.keep = append(sr.keep, in.Name)
		}
	}
	if sr.nested == nil {
		sr.nested = map[string][]string{}
	}
	kept := sr.nested[in.Name]
	if kept == nil {
		kept = []string{in.Key}
	}
	if name != in.Key && slices.Contains(kept, name) {
		return problem.InvalidParameter(engine.FieldsParam, fmt.Sprintf("%s.%s is named twice", in.Name, name))
	}
	if name != in.Key {
		kept = append(kept, name)
	}
	sr.nested[in.Name] = kept
	return nil
}

// keepMember adds a member of the read shape named alone (the key comes
// always); a line list whose lines' fields are named is refused.
func (sr *Request) keepMember(name, key string) error {
	if name == key {
		return nil
	}
	if sr.nested[name] != nil {
		return namedWholeAndNarrowed(name)
	}
	if slices.Contains(sr.keep, name) {
		return problem.InvalidParameter(engine.FieldsParam, fmt.Sprintf("%s is named twice", name))
	}
	sr.keep = append(sr.keep, name)
	return nil
}

// namedWholeAndNarrowed is the 400 of a line list named both alone (its
// lines whole) and by its lines' fields.
func namedWholeAndNarrowed(name string) *problem.Problem {
	return problem.InvalidParameter(engine.FieldsParam, fmt.Sprintf("%s is named both alone (its lines whole) and by its lines' fields (%s.…): name one or the other", name, name))
}

// inside finds what base (of item, base.member) names fields inside: an
// expansion asked, or a line list of the read shape (listed: the list is
// a member of the record, answered among the fields kept).
func (sr *Request) inside(base, item string, rs Shape) (in LineList, listed bool, err error) {
	for _, x := range sr.expand {
		if _, ok := fieldname.Resolve(base, []string{x.Name}); ok {
			return LineList{Name: x.Name, Key: x.Key, Fields: x.Fields}, false, nil
		}
	}
	for _, l := range rs.Lines {
		if _, ok := fieldname.Resolve(base, []string{l.Name}); ok {
			return l, true, nil
		}
	}
	if slices.ContainsFunc(rs.Expand, func(x Expansion) bool { _, ok := fieldname.Resolve(base, []string{x.Name}); return ok }) {
		return LineList{}, false, problem.InvalidParameter(engine.FieldsParam, fmt.Sprintf("%q names a field of %s, which is not expanded: add it to expand", item, base))
	}
	if name, ok := fieldname.Resolve(base, rs.Fields); ok {
		p := problem.InvalidParameter(engine.FieldsParam, fmt.Sprintf("%q: %s is neither a line list nor an expansion, so fields names nothing inside it; the valid names are listed in validValues", item, name))
		p.ValidValues = validFields(rs, sr.expand)
		return LineList{}, false, p
	}
	return LineList{}, false, unknownField(item, rs, sr.expand)
}

// unknownField is the 400 of a name fields= cannot take, listing the names
// it can (validFields).
func unknownField(item string, rs Shape, expand []*Expansion) *problem.Problem {
	p := problem.InvalidParameter(engine.FieldsParam, fmt.Sprintf("%q is not a field of this register's records; they are listed in validValues", item))
	p.ValidValues = validFields(rs, expand)
	return p
}

// validFields are the names fields= can take: the read shape's, those of
// each line list's lines, and those of each expansion asked.
func validFields(rs Shape, expand []*Expansion) []string {
	valid := slices.Clone(rs.Fields)
	for _, l := range rs.Lines {
		for _, f := range l.Fields {
			valid = append(valid, l.Name+"."+f)
		}
	}
	for _, x := range expand {
		for _, f := range x.Fields {
			valid = append(valid, x.Name+"."+f)
		}
	}
	return valid
}

// commaList splits a parameter's comma list, refusing an empty item.
func commaList(param, value string) ([]string, error) {
	items := strings.Split(value, ",")
	for i, item := range items {
		if item = strings.TrimSpace(item); item == "" {
			return nil, problem.InvalidParameter(param, "expected a comma list of names, without empty items")
		}
		items[i] = item
	}
	return items, nil
}

// Encode renders one record shaped: its read shape (Shape.JSON, or else
// its view) with only the members kept, then each expansion asked, shaped
// the same way.
func (sr Request) Encode(rec engine.Record, view func(engine.Record) any) (json.RawMessage, error) {
	var b bytes.Buffer
	err := sr.EncodeTo(&b, rec, view)
	return b.Bytes(), err
}

// EncodeTo is Encode into b, which a list's items share: each record is
// written in place, not marshalled apart and copied.
func (sr Request) EncodeTo(b *bytes.Buffer, rec engine.Record, view func(engine.Record) any) error {
	start := b.Len()
	if err := object(b, rec, sr.json, view, sr.keep, sr.Engine.Lines); err != nil {
		return err
	}
	for _, x := range sr.expand {
		if b.Len() > start+1 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Quote(x.Name))
		b.WriteByte(':')
		if err := sr.encodeExpanded(b, x, rec[x.Name]); err != nil {
			return err
		}
	}
	b.WriteByte('}')
	return nil
}

// object writes the JSON object of rec's read shape without its closing
// brace, keeping only the members named in keep (all when keep is nil),
// and of the line lists in lines only the lines' members named there. The
// read shape is written by enc, or else is view(rec) encoded.
func object(b *bytes.Buffer, rec engine.Record, enc *recordjson.Record, view func(engine.Record) any, keep []string, lines map[string][]string) error {
	if keep == nil && enc != nil {
		// Appended in place: the bytes past b's length are the buffer's own.
		body, err := enc.Append(b.AvailableBuffer(), rec)
		if err != nil {
			return err
		}
		b.Write(body[:len(body)-1])
		return nil
	}
	if keep == nil {
		// Encoded in place as json.Marshal would ("}\n" at the end).
		if err := json.NewEncoder(b).Encode(view(rec)); err != nil {
			return err
		}
		b.Truncate(b.Len() - 2)
		return nil
	}
	body, err := whole(rec, enc, view)
	if err != nil {
		return err
	}
	return project(b, body, keep, lines)
}

// whole is rec's read shape as JSON: written by enc, or else view(rec)
// encoded.
func whole(rec engine.Record, enc *recordjson.Record, view func(engine.Record) any) ([]byte, error) {
	if enc != nil {
		return enc.Append(nil, rec)
	}
	return json.Marshal(view(rec))
}

// encodeExpanded writes an expansion's value: null, one record, or a
// list of lines, each as its register's own read shows it.
func (sr Request) encodeExpanded(b *bytes.Buffer, x *Expansion, value any) error {
	one := func(rec engine.Record) error {
		if err := object(b, rec, x.JSON, x.View, sr.nested[x.Name], nil); err != nil {
			return err
		}
		b.WriteByte('}')
		return nil
	}
	switch v := value.(type) {
	case engine.Record:
		return one(v)
	case []engine.Record:
		if len(v) > MaxExpandedLines { // an engine that does not hold to Expand.MaxLines
			return problem.Of(&engine.TooManyLinesError{Expansion: x.Name, Most: MaxExpandedLines})
		}
		b.WriteByte('[')
		for i, rec := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := one(rec); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	default:
		b.WriteString("null")
	}
	return nil
}

// project writes the JSON object body without its closing brace, keeping
// only the members named in keep, in body's order; a member named in
// lines is a list of objects, each projected to the members named there.
func project(b *bytes.Buffer, body []byte, keep []string, lines map[string][]string) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	if _, err := dec.Token(); err != nil { // {
		return err
	}
	b.WriteByte('{')
	first := true
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return err
		}
		name, _ := tok.(string)
		if !slices.Contains(keep, name) {
			continue
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		b.WriteString(strconv.Quote(name))
		b.WriteByte(':')
		if inner := lines[name]; inner != nil {
			if err := projectEach(b, value, inner); err != nil {
				return err
			}
			continue
		}
		b.Write(value)
	}
	return nil
}

// projectEach writes a JSON list of objects (or null), each projected to
// the members named in keep.
func projectEach(b *bytes.Buffer, list json.RawMessage, keep []string) error {
	var items []json.RawMessage
	if err := json.Unmarshal(list, &items); err != nil || items == nil {
		b.Write(list)
		return err
	}
	b.WriteByte('[')
	for i, item := range items {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := project(b, item, keep, nil); err != nil {
			return err
		}
		b.WriteByte('}')
	}
	b.WriteByte(']')
	return nil
}
