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
	"errors"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

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
// JSON passes here: the strict decoder names that. Every write's body is
// walked, so the walk is jsontext's, which reads tokens without
// allocating; it is told to let bad text through so that the check, and
// its problem, are ours.
func JSON(data []byte) error {
	dec := jsontext.NewDecoder(bytes.NewBuffer(data), jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true))
	for {
		switch kind := dec.PeekKind(); kind {
		case jsontext.KindInvalid:
			return nil // the end, or not JSON: the decoder answers that
		case '{', '}', '[', ']':
			if _, err := dec.ReadToken(); err != nil {
				return nil
			}
		default:
			naming := isNameNext(dec)
			raw, err := dec.ReadValue()
			if err != nil {
				return nil
			}
			switch {
			case kind == '"' && !validString(raw) && naming:
				return problem.InvalidField(pathOf(dec), "the member name: "+ErrBad.Error())
			case kind == '"' && !validString(raw):
				return problem.InvalidField(pathOf(dec), ErrBad.Error())
			case kind == '0' && !inFloat64(raw):
				return problem.InvalidField(pathOf(dec), fmt.Sprintf("the number %.40s is out of range", raw))
			}
		}
	}
}

// isNameNext reports whether the decoder's next value is a member name:
// its innermost open value is an object holding whole members only.
func isNameNext(dec *jsontext.Decoder) bool {
	kind, length := dec.StackIndex(dec.StackDepth())
	return kind == '{' && length%2 == 0
}

// validString checks one string's JSON text (quoted): valid UTF-8, no
// NUL and no lone surrogate once unescaped.
func validString(raw []byte) bool {
	if bytes.IndexByte(raw, '\\') < 0 {
		return utf8.Valid(raw) // NUL cannot be sent unescaped
	}
	s, err := jsontext.AppendUnquote(nil, raw) // refuses bad UTF-8 and lone surrogates
	return err == nil && bytes.IndexByte(s, 0) < 0
}

func inFloat64(raw []byte) bool {
	f, err := strconv.ParseFloat(string(raw), 64)
	return err == nil && !math.IsInf(f, 0)
}

// pathOf names the value the decoder read last, as problems name fields:
// lines[1].price, extraFields.Visit.Type.
func pathOf(dec *jsontext.Decoder) string {
	var b strings.Builder
	depth := 1
	for name := range dec.StackPointer().Tokens() {
		if kind, length := dec.StackIndex(depth); kind == '[' {
			fmt.Fprintf(&b, "[%d]", length-1)
		} else {
			if depth > 1 {
				b.WriteByte('.')
			}
			b.WriteString(strings.ToValidUTF8(name, "\ufffd")) // problems quote field names with %q, which escapes NUL
		}
		depth++
	}
	return b.String()
}
