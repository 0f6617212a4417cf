package jsontext

import (
	"bytes"
	"errors"
	"slices"
	"strings"

	gojson "github.com/go-json-experiment/json/jsontext"
)

// Canonical appends the first JSON value of data as json.Marshal writes
// what a json.Decoder with UseNumber decodes of it: object members sorted
// by name, the last of a name kept, no space, strings escaped as
// AppendString does, numbers as sent. It reports false when data does not
// start with a JSON value. A write's Idempotency-Key fingerprint is this
// form's hash, and decoding every body into maps to marshal it again cost
// a create more than the hash. Invalid text is outside its promise: the
// HTTP layer refuses it before (runtime/textcheck).
func Canonical(b, data []byte) ([]byte, bool) {
	dec := gojson.NewDecoder(bytes.NewBuffer(data), gojson.AllowDuplicateNames(true), gojson.AllowInvalidUTF8(true))
	out, err := appendCanonical(b, dec)
	return out, err == nil
}

func appendCanonical(b []byte, dec *gojson.Decoder) ([]byte, error) {
	switch dec.PeekKind() {
	case '{':
		return appendCanonicalObject(b, dec)
	case '[':
		if _, err := dec.ReadToken(); err != nil {
			return nil, err
		}
		b = append(b, '[')
		for i := 0; dec.PeekKind() != ']'; i++ {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendCanonical(b, dec); err != nil {
				return nil, err
			}
		}
		if _, err := dec.ReadToken(); err != nil {
			return nil, err
		}
		return append(b, ']'), nil
	case '"':
		tok, err := dec.ReadToken()
		if err != nil {
			return nil, err
		}
		return AppendString(b, tok.String()), nil
	case '0', 'n', 't', 'f':
		v, err := dec.ReadValue()
		return append(b, v...), err
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil, err
	}
	return nil, errors.New("jsontext: not a JSON value")
}

func appendCanonicalObject(b []byte, dec *gojson.Decoder) ([]byte, error) {
	if _, err := dec.ReadToken(); err != nil {
		return nil, err
	}
	type member struct {
		name  string
		value []byte
	}
	var members []member
	for dec.PeekKind() == '"' {
		tok, err := dec.ReadToken()
		if err != nil {
			return nil, err
		}
		name := tok.String() // before the next read voids the token
		value, err := appendCanonical(nil, dec)
		if err != nil {
			return nil, err
		}
		members = append(members, member{name, value})
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil, err
	}
	slices.SortStableFunc(members, func(x, y member) int { return strings.Compare(x.name, y.name) })
	b = append(b, '{')
	written := 0
	for i, m := range members {
		if i+1 < len(members) && members[i+1].name == m.name {
			continue // a map keeps the last value of a name
		}
		if written > 0 {
			b = append(b, ',')
		}
		written++
		b = append(append(AppendString(b, m.name), ':'), m.value...)
	}
	return append(b, '}'), nil
}
