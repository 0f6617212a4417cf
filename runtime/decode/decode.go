// Package decode reads request bodies: within the size limit and as JSON
// (Read), then strictly: each member of a JSON object once, by a name the
// body's Shape accepts, of the JSON type its field has, with what the body
// did with each field (Presence) kept for the engine's input. Every
// failure is a 400 problem naming the field. The generated request body
// types are made of its Optional fields.
package decode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"fieldapi/engine"
	"fieldapi/runtime/problem"
)

// Presence says what a request body did with one field.
type Presence uint8

// The presences. PATCH leaves Omitted and Null fields untouched.
const (
	Omitted Presence = iota // not in the body
	Null                    // sent as null: leave untouched
	Cleared                 // sent as "" on a field other than plain text (an enum is a Choice): clear it to null
	Set                     // sent with a value (a text "" clears by value)
)

// Optional is one field of a request body.
type Optional[T any] struct {
	Presence Presence
	Value    T
}

// Sent reports whether the field carries a value or a clear.
func (o Optional[T]) Sent() bool { return o.Presence == Set || o.Presence == Cleared }

// Decode reads the field's raw JSON strictly: a value of the wrong JSON type
// is an error, and "" on a non-text field means clear.
func (o *Optional[T]) Decode(raw json.RawMessage) error {
	if bytes.Equal(raw, []byte("null")) {
		o.Presence = Null
		return nil
	}
	if o.decodeScalar(raw) {
		o.Presence = Set
		return nil
	}
	var v T
	if _, isText := any(v).(string); !isText && bytes.Equal(raw, []byte(`""`)) {
		if _, isObject := any(v).(map[string]string); isObject {
			return errors.New("expected an object of strings")
		}
		o.Presence = Cleared
		return nil
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return errors.New(expected(v))
	}
	o.Presence, o.Value = Set, v
	return nil
}

// decodeScalar decodes the values most fields carry (text without
// escapes, a number, true or false) without json.Unmarshal's reflection,
// and reports whether it did; anything else is left to json.Unmarshal.
// The decoder has checked raw is one JSON value.
func (o *Optional[T]) decodeScalar(raw []byte) bool {
	switch v := any(&o.Value).(type) {
	case *string:
		return unescapedText(raw, v)
	case *Choice:
		var s string
		if !unescapedText(raw, &s) || s == "" {
			return false // "" clears a choice
		}
		*v = Choice(s)
	case *float64:
		if len(raw) == 0 || raw[0] != '-' && (raw[0] < '0' || raw[0] > '9') {
			return false
		}
		f, err := strconv.ParseFloat(string(raw), 64)
		if err != nil {
			return false // beyond float64: json.Unmarshal names it
		}
		*v = f
	case *bool:
		switch string(raw) {
		case "true":
			*v = true
		case "false":
			*v = false
		default:
			return false
		}
	default:
		return false
	}
	return true
}

// unescapedText sets s to a JSON string sent without escapes and reports
// whether raw was one.
func unescapedText(raw []byte, s *string) bool {
	if len(raw) < 2 || raw[0] != '"' || bytes.IndexByte(raw, '\\') >= 0 {
		return false
	}
	*s = string(raw[1 : len(raw)-1])
	return true
}

// DecodeNoClear decodes a field that always has a value (the catalog makes
// it a key, notNull or a create default): "" would clear it to null, so it
// is refused as the wrong shape.
func (o *Optional[T]) DecodeNoClear(raw json.RawMessage) error {
	if err := o.Decode(raw); err != nil {
		return err
	}
	if o.Presence == Cleared {
		return errors.New(`cannot be cleared: the field always has a value (send null or omit it to leave it as it is)`)
	}
	return nil
}

// Put copies a sent field into engine values under its PascalCase name;
// a clear is nil.
func (o Optional[T]) Put(values map[string]any, field string) {
	switch o.Presence {
	case Set:
		values[field] = plain(o.Value)
	case Cleared:
		values[field] = nil
	}
}

// Choice is a text field whose values the catalog lists (an enum): "" is
// not one of them, so unlike a plain text it clears the field to null.
type Choice string

// plain turns named types into the engine's plain values.
func plain(v any) any {
	switch x := v.(type) {
	case Date:
		return string(x)
	case Choice:
		return string(x)
	case []string:
		if x == nil {
			return []string{}
		}
	}
	return v
}

func expected(v any) string {
	switch v.(type) {
	case string, Choice:
		return "expected a string"
	case float64:
		return "expected a number"
	case bool:
		return "expected true or false"
	case Date:
		return "expected an ISO 8601 date or date-time, such as 2026-05-01 or 2026-05-01T08:00:00"
	case []string:
		return "expected a list of strings"
	case map[string]string:
		return "expected an object whose values are all strings"
	}
	return fmt.Sprintf("expected %T", v)
}

// Date is an ISO 8601 date or date-time, kept exactly as sent.
type Date string

var isoDate = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})?)?$`)

// UnmarshalJSON accepts only well-formed ISO 8601 dates and date-times.
func (d *Date) UnmarshalJSON(raw []byte) error {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return err
	}
	if !ValidDate(s) {
		return fmt.Errorf("not an ISO 8601 date: %q", s)
	}
	*d = Date(s)
	return nil
}

// ValidDate reports whether s is an ISO 8601 date or date-time with real
// calendar values.
func ValidDate(s string) bool {
	if !isoDate.MatchString(s) {
		return false
	}
	_, err := time.Parse("2006-01-02", s[:10])
	return err == nil
}

// Shape is what a request body may carry: the camelCase names it accepts,
// the read-only names (named as such when sent) and the names it requires.
type Shape struct {
	Writable []string
	ReadOnly []string
	Required []string
}

// Body is a generated request body type.
type Body interface {
	// DecodeField decodes one member; it is only called with writable names.
	DecodeField(name string, raw json.RawMessage) error
	// Input maps the body to the engine's PascalCase input.
	Input() engine.Input
}

// Input decodes a strict camelCase body into W and maps it to the
// engine's input. Every failure is a 400 problem naming the field.
func Input[W any, P interface {
	*W
	Body
}](data []byte, shape Shape) (engine.Input, error) {
	var w W
	if err := decodeObject(new(jsontext.Decoder), data, "", shape, P(&w)); err != nil {
		return engine.Input{}, err
	}
	return P(&w).Input(), nil
}

// Lines decodes a list of line bodies, such as a customer's contacts;
// problems name the line, as in contacts[1].name.
func Lines[W any, P interface {
	*W
	Body
}](raw json.RawMessage, list string, shape Shape) ([]W, error) {
	if string(raw) == "null" {
		return nil, nil
	}
	// A name sent twice in a line is decodeObject's to name.
	dec := jsontext.NewDecoder(bytes.NewBuffer(raw), jsontext.AllowDuplicateNames(true))
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '[' {
		return nil, errors.New("expected a list of objects")
	}
	var lines []W
	line := new(jsontext.Decoder) // one for every line: a decoder is large
	for dec.PeekKind() != ']' {
		item, err := dec.ReadValue()
		if err != nil {
			return nil, errors.New("expected a list of objects")
		}
		lines = append(lines, *new(W))
		if err := decodeObject(line, item, fmt.Sprintf("%s[%d].", list, len(lines)-1), shape, P(&lines[len(lines)-1])); err != nil {
			return nil, err
		}
	}
	return lines, nil
}

// Strict decodes the fixed-shape body of a built-in route (token,
// webhook subscription) into v; a member v has no field for is an error,
// so a misspelt name is refused rather than ignored.
func Strict(body []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// Object decodes the body of a built-in route (a document upload, a
// position) whose members body decodes, as Input does.
func Object(data []byte, shape Shape, body Body) error {
	return decodeObject(new(jsontext.Decoder), data, "", shape, body)
}

// decodeObject walks the members of one JSON object in order, rejecting
// duplicates, unknown and read-only names, and wrong types. It reads the
// body once with jsontext, whose tokens and values cost no allocation
// (encoding/json's Decoder.Token spent a tenth of a create's time here),
// and hands each member's value to the body as the bytes sent. dec is
// reset to read data.
func decodeObject(dec *jsontext.Decoder, data []byte, prefix string, shape Shape, body Body) error {
	// The duplicate check is ours, to name the field sent twice.
	dec.Reset(bytes.NewBuffer(data), jsontext.AllowDuplicateNames(true))
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		if prefix == "" {
			return problem.MalformedBody("the body must be one JSON object")
		}
		return problem.InvalidField(prefix[:len(prefix)-1], "expected an object")
	}
	seen := make([]bool, len(shape.Writable))
	for dec.PeekKind() == '"' {
		quoted, err := dec.ReadValue()
		if err != nil {
			return problem.MalformedBody("the body is not valid JSON")
		}
		raw, err := dec.ReadValue()
		if err != nil {
			return problem.MalformedBody("the body is not valid JSON")
		}
		at := writableIndex(shape.Writable, quoted)
		if at < 0 {
			name, _ := jsontext.AppendUnquote(nil, quoted)
			path := prefix + string(name)
			if slices.Contains(shape.ReadOnly, string(name)) {
				return problem.ReadOnlyField(path, shape.Writable)
			}
			return problem.UnknownField(path, shape.Writable)
		}
		name := shape.Writable[at]
		if seen[at] {
			return problem.InvalidField(prefix+name, "sent twice")
		}
		seen[at] = true
		if err := body.DecodeField(name, json.RawMessage(raw)); err != nil {
			var p *problem.Problem
			if errors.As(err, &p) {
				return p
			}
			return problem.InvalidField(prefix+name, err.Error())
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return problem.MalformedBody("the body is not valid JSON")
	}
	if _, err := dec.ReadToken(); err != io.EOF {
		return problem.MalformedBody("the body must hold exactly one JSON object")
	}
	for i, name := range shape.Writable {
		if !seen[i] && slices.Contains(shape.Required, name) {
			return problem.MissingField(prefix + name)
		}
	}
	return nil
}

// writableIndex finds a member's name, as sent (quoted), among the
// writable names, without allocating when it is sent without escapes.
func writableIndex(writable []string, quoted []byte) int {
	name := quoted[1 : len(quoted)-1]
	if bytes.IndexByte(name, '\\') >= 0 {
		unquoted, err := jsontext.AppendUnquote(nil, quoted)
		if err != nil {
			return -1
		}
		name = unquoted
	}
	for i, w := range writable {
		if w == string(name) {
			return i
		}
	}
	return -1
}
