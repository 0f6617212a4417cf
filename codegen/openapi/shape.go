package openapi

import (
	"strconv"
	"strings"

	"fieldapi/codegen/model"
	"fieldapi/engine"
	"fieldapi/runtime"
)

// shapeParameters are fields= and expand= of a register's list and gets:
// comma lists (style form, not exploded); expand's items are the
// register's expansions, an enum.
func shapeParameters(r *model.Register) []*Parameter {
	notExploded := false
	var nested []string
	for _, x := range r.Expansions {
		nested = append(nested, x.Name+".<field of "+x.Of.RecordType+">")
	}
	desc := "Comma list of the fields to answer with, named as read (PascalCase) or in camelCase: " +
		strings.Join(r.ReadNames(), ", ") + ". The key " + r.Key + " is always answered; absent: every field."
	if len(r.ReadLines) > 0 {
		var lines []string
		for _, l := range r.ReadLines {
			lines = append(lines, l.ReadName+".<field of "+l.Of.RecordType+">")
		}
		desc += " The fields of a line list's lines are named after the list (" + strings.Join(lines, ", ") +
			"): each line then carries those and its key; the list named alone answers whole lines, and naming it both ways is 400."
	}
	if len(nested) > 0 {
		desc += " An expanded record's fields are named after the expansion (" + strings.Join(nested, ", ") + "); without them it is answered whole."
	}
	desc += " A name inside a field that is neither a line list nor an expansion is 400."
	desc += " An unknown name is 400 invalid_parameter listing the valid ones in validValues."
	params := []*Parameter{{Name: engine.FieldsParam, In: "query", Style: "form", Explode: &notExploded, Description: desc,
		Schema: &Schema{Type: types("array"), MinItems: ptr(1), Items: &Schema{Type: types("string"), MinLength: ptr(1)}}}}
	if len(r.Expansions) == 0 {
		return params
	}
	var names []any
	var what []string
	for _, x := range r.Expansions {
		names = append(names, x.Name)
		what = append(what, x.Name+" ("+x.Note()+")")
	}
	params = append(params, &Parameter{Name: engine.ExpandParam, In: "query", Style: "form", Explode: &notExploded,
		Description: "Comma list of the related records to answer with each record, each as its own GET reads it: " + strings.Join(what, ", ") +
			". One level deep; camelCase names are taken too. The key needs the expanded register's read scope (else 403 insufficient_scope). " +
			"An expanded line list carries at most " + strconv.Itoa(runtime.MaxExpandedLines) + " lines per record (else 400 invalid_parameter naming expand).",
		Schema: &Schema{Type: types("array"), MinItems: ptr(1), Items: &Schema{Type: types("string"), Enum: names}}})
	return params
}

// shapeReadSchema makes a record schema fit shaped answers: only the key
// is required (fields= leaves the others out; x-required-unless-narrowed
// keeps the list of what an answer without fields= always carries), and
// each expansion is a property an answer carries when expand= asks for it.
func shapeReadSchema(r *model.Register, s *Schema) {
	s.UnlessNarrowed, s.Required = s.Required, []string{r.Key}
	for _, x := range r.Expansions {
		if x.Lines() {
			s.Properties[x.Name] = &Schema{Type: types("array"), Items: ref(x.Of.RecordType),
				Description: "With expand=" + x.Name + ": " + x.Note() + "."}
			continue
		}
		s.Properties[x.Name] = &Schema{AnyOf: []*Schema{ref(x.Of.RecordType), {Type: types("null")}},
			Description: "With expand=" + x.Name + ": " + x.Note() + "."}
	}
}
