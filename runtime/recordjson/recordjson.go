// Package recordjson writes a record's read shape as JSON straight from
// the engine record: byte for byte what encoding/json writes for the
// generated view (json.Marshal(viewTask(rec))), without building the view.
// A page of records read through the view allocates a pointer for every
// field and is then encoded by reflection; here it is one pass over the
// members the generator lists (Record).
package recordjson

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"fieldapi/engine"
)

// Kind is how a member is read from the record, as the view's accessor of
// the field's type reads it (engine.Record.Text and so on).
type Kind uint8

const (
	Text   Kind = iota // the record's string, else null
	Number             // the record's float64, else null
	Bool               // the record's bool, else null
	List               // the record's []string, else []
	Object             // the record's map[string]string (keys in order), else {}
	Lines              // the record's line records, each as Member.Lines writes it, else []
)

// Member is one member of a read shape, in the view's order.
type Member struct {
	Name  string // the JSON name, which is also the record's key
	Kind  Kind
	Lines *Record // the line register's read shape, for Lines
}

// Record is the read shape of a register's records.
type Record struct {
	Members []Member
}

// Append appends rec's read shape to b. Like encoding/json it fails on a
// number JSON cannot hold (NaN, ±Inf).
func (r *Record) Append(b []byte, rec engine.Record) ([]byte, error) {
	b = append(b, '{')
	for i, m := range r.Members {
		if i > 0 {
			b = append(b, ',')
		}
		// The names are Go identifiers (the generator's), which JSON
		// writes as they are.
		b = append(b, '"')
		b = append(b, m.Name...)
		b = append(b, '"', ':')
		var err error
		if b, err = m.append(b, rec[m.Name]); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// append writes one member's value, v being what the record holds.
func (m Member) append(b []byte, v any) ([]byte, error) {
	switch m.Kind {
	case Text:
		if s, ok := v.(string); ok {
			return appendString(b, s), nil
		}
	case Number:
		if f, ok := v.(float64); ok {
			return appendFloat(b, f)
		}
	case Bool:
		if t, ok := v.(bool); ok {
			return strconv.AppendBool(b, t), nil
		}
	case List:
		list, ok := v.([]string)
		if !ok {
			return append(b, '[', ']'), nil
		}
		if list == nil { // a nil slice the record holds reads as null
			break
		}
		b = append(b, '[')
		for i, s := range list {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, s)
		}
		return append(b, ']'), nil
	case Object:
		obj, ok := v.(map[string]string)
		if !ok {
			return append(b, '{', '}'), nil
		}
		if obj == nil {
			break
		}
		return appendObject(b, obj), nil
	case Lines:
		lines, _ := v.([]engine.Record) // none: [] (runtime.Views is never nil)
		b = append(b, '[')
		for i, line := range lines {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = m.Lines.Append(b, line); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	default:
		return nil, fmt.Errorf("recordjson: %s: unknown kind %d", m.Name, m.Kind)
	}
	return append(b, "null"...), nil
}

// appendObject writes a map as encoding/json does: keys in byte order.
func appendObject(b []byte, obj map[string]string) []byte {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, k)
		b = append(b, ':')
		b = appendString(b, obj[k])
	}
	return append(b, '}')
}

// appendFloat writes a float64 as encoding/json does: like %g, but with
// the ES6 exponent cutoffs and no padded exponent.
func appendFloat(b []byte, f float64) ([]byte, error) {
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

// appendString writes a JSON string as encoding/json does (HTML escaped,
// as json.Marshal escapes): <, > and & and control characters as \u00XX
// (but \b \f \n \r \t), invalid UTF-8 as \ufffd, U+2028 and U+2029
// escaped.
func appendString(b []byte, s string) []byte {
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
