// Package jsontext appends JSON values exactly as encoding/json's Marshal
// writes them (HTML escaped), for the encoders that write records and
// events by hand instead of by reflection: a record's read shape
// (runtime/recordjson), a record and an event (engine, engine/platform).
package jsontext

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
)

// AppendFloat appends a float64 as encoding/json does: like %g, but with
// the ES6 exponent cutoffs and no padded exponent. Like encoding/json it
// fails on a number JSON cannot hold (NaN, ±Inf).
func AppendFloat(b []byte, f float64) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return nil, fmt.Errorf("json: unsupported value: %s", strconv.FormatFloat(f, 'g', -1, 64))
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// e-09 is written e-9
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, nil
}

const hex = "0123456789abcdef"

// AppendString appends a JSON string as encoding/json does (HTML
// escaped, as json.Marshal escapes): <, > and & and control characters as
// \u00XX (but \b \f \n \r \t), invalid UTF-8 as \ufffd, U+2028 and U+2029
// escaped.
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// AppendStrings appends a list of strings as a JSON array (a nil list
// too: whether that is null is the caller's).
func AppendStrings(b []byte, list []string) []byte {
	b = append(b, '[')
	for i, s := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendString(b, s)
	}
	return append(b, ']')
}

// AppendStringMap appends a map of strings as a JSON object as
// encoding/json writes it: names in byte order (a nil map too: whether
// that is null is the caller's).
func AppendStringMap(b []byte, m map[string]string) []byte {
	names := make([]string, 0, len(m))
	for name := range m {
		names = append(names, name)
	}
	slices.Sort(names)
	b = append(b, '{')
	for i, name := range names {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(AppendString(b, name), ':')
		b = AppendString(b, m[name])
	}
	return append(b, '}')
}
