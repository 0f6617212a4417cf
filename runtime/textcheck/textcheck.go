// Package textcheck decides which text the HTTP layer may hand on. Text
// validity is a shape check of the HTTP layer: every text a call hands on
// must be valid UTF-8 without NUL, checked where it is read: path keys in
// runtime's Call.Param, query parameters (Query), the names and strings of
// a JSON body as it is read (JSON), the Idempotency-Key in its claim. Go
// would otherwise replace bad bytes with U+FFFD (storing text other than
// what was sent), and PostgreSQL refuses both where SQLite stores them, so
// the same call would answer differently on the two databases.
package textcheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"fieldapi/runtime/problem"
)

// ErrBad is the detail of a text that is not valid UTF-8 or holds NUL.
var ErrBad = errors.New("text must be valid UTF-8 without NUL characters")

// Valid reports whether s may be handed to the engine.
func Valid(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsRune(s, 0)
}

// Param refuses a parameter (query, path or header) whose value is not
// valid text, naming it.
func Param(name, value string) error {
	if !Valid(value) {
		return problem.InvalidParameter(name, ErrBad.Error())
	}
	return nil
}

// Query refuses a query whose parameter names or values are not valid
// text (ErrBad), naming the parameter.
func Query(values url.Values) error {
	for name, vs := range values {
		if !Valid(name) || slices.ContainsFunc(vs, func(v string) bool { return !Valid(v) }) {
			return problem.InvalidParameter(name, ErrBad.Error())
		}
	}
	return nil
}

// JSON walks a JSON body and refuses, naming the field, what
// encoding/json would silently alter or the engine cannot store: names and
// strings that are not valid UTF-8 (RFC 8259), hold a lone UTF-16
// surrogate escape or NUL, and numbers beyond float64. A body that is not
// JSON passes here: the strict decoder names that.
func JSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var stack []jsonFrame
	start := int64(0)
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil // the end, or not JSON: the decoder answers that
		}
		end := dec.InputOffset()
		raw := data[start:end] // the token with the separators before it
		start = end
		var top *jsonFrame
		if len(stack) > 0 {
			top = &stack[len(stack)-1]
		}
		if s, isString := tok.(string); isString && top != nil && !top.array && top.wantName {
			top.name, top.wantName = s, false
			if !validJSONString(raw, s) {
				return problem.InvalidField(pathOf(stack), "the member name: "+ErrBad.Error())
			}
			continue
		}
		if top != nil && top.array {
			top.index++
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{', '[':
				stack = append(stack, jsonFrame{array: v == '[', index: -1, wantName: v == '{'})
				continue
			default:
				stack = stack[:len(stack)-1]
			}
		case string:
			if !validJSONString(raw, v) {
				return problem.InvalidField(pathOf(stack), ErrBad.Error())
			}
		case json.Number:
			if f, err := strconv.ParseFloat(string(v), 64); err != nil || math.IsInf(f, 0) {
				return problem.InvalidField(pathOf(stack), fmt.Sprintf("the number %.40s is out of range", v))
			}
		}
		if len(stack) > 0 && !stack[len(stack)-1].array {
			stack[len(stack)-1].wantName = true
		}
	}
}

// jsonFrame is one open object or array of JSON's walk.
type jsonFrame struct {
	array    bool
	index    int    // array: the element being read
	name     string // object: the member being read
	wantName bool   // object: the next string is a member name
}

// pathOf names the value being read, as problems name fields:
// lines[1].price, extraFields.Visit.Type.
func pathOf(stack []jsonFrame) string {
	var b strings.Builder
	for i, f := range stack {
		if f.array {
			fmt.Fprintf(&b, "[%d]", f.index)
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(f.name) // problems quote field names with %q, which escapes NUL
	}
	return b.String()
}

// validJSONString checks one string token: raw is its JSON text (with the
// separators before it), s what encoding/json decoded from it.
func validJSONString(raw []byte, s string) bool {
	return utf8.Valid(raw) && !strings.ContainsRune(s, 0) && !hasLoneSurrogate(raw)
}

// hasLoneSurrogate reports whether JSON string text holds a \uD800–\uDFFF
// escape that is not half of a pair; encoding/json turns it into U+FFFD.
func hasLoneSurrogate(raw []byte) bool {
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' {
			continue
		}
		i++ // the escaped character: skipping it also skips an escaped backslash
		if i+4 >= len(raw) || raw[i] != 'u' {
			continue
		}
		r := hex4(raw[i+1 : i+5])
		i += 4
		switch {
		case r >= 0xD800 && r < 0xDC00: // high half: a low half must follow
			if i+6 < len(raw) && raw[i+1] == '\\' && raw[i+2] == 'u' {
				if low := hex4(raw[i+3 : i+7]); low >= 0xDC00 && low < 0xE000 {
					i += 6
					continue
				}
			}
			return true
		case r >= 0xDC00 && r < 0xE000:
			return true
		}
	}
	return false
}

func hex4(b []byte) rune {
	n, err := strconv.ParseUint(string(b), 16, 32)
	if err != nil {
		return -1
	}
	return rune(n)
}
