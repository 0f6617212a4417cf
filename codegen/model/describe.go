package model

import "fieldapi/catalog"

// What a filter operator and an expansion mean, worded once for every
// emitter that describes them.

// OpMeaning says what a filter operator keeps, for the OpenAPI document,
// the reference page and the client's doc comments.
func OpMeaning(f *catalog.Field, op catalog.FilterOp) string {
	name := f.Name
	dayNote := ""
	switch f.Type {
	case catalog.Date:
		dayNote = " (ISO 8601 date or date-time, compared in time order; a bare date counts whole days)"
	case catalog.Text:
		dayNote = " (text, by code point)"
	}
	switch op {
	case catalog.OpGt:
		return name + " > the value" + dayNote + "."
	case catalog.OpGte:
		return name + " ≥ the value" + dayNote + "."
	case catalog.OpLt:
		return name + " < the value" + dayNote + "."
	case catalog.OpLte:
		return name + " ≤ the value" + dayNote + "."
	case catalog.OpIn:
		return name + " is one of the values, separated by commas."
	case catalog.OpIsNull:
		return "true: " + name + " has no value; false: it has one."
	case catalog.OpPrefix:
		return name + " starts with the text (exact case)."
	}
	return ""
}

// Note says what an expansion reads, for the OpenAPI document, the
// reference page and the client's doc comments.
func (x *Expansion) Note() string {
	if x.Lines() {
		return "the " + x.Line.Name + " lines, from " + x.Of.Name
	}
	return "the " + x.Of.RecordType + " " + x.Field.Name + " names, or null"
}
