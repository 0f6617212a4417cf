// Package recordjson writes a record's read shape as JSON straight from
// the engine record: byte for byte what encoding/json writes for the
// generated view (json.Marshal(viewTask(rec))), without building the view.
// A page of records read through the view allocates a pointer for every
// field and is then encoded by reflection; here it is one pass over the
// members the generator lists (Record).
package recordjson

import (
	"fmt"
	"strconv"

	"fieldapi/engine"
	"fieldapi/internal/jsontext"
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
			return jsontext.AppendString(b, s), nil
		}
	case Number:
		if f, ok := v.(float64); ok {
			return jsontext.AppendFloat(b, f)
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
		return jsontext.AppendStrings(b, list), nil
	case Object:
		obj, ok := v.(map[string]string)
		if !ok {
			return append(b, '{', '}'), nil
		}
		if obj == nil {
			break
		}
		return jsontext.AppendStringMap(b, obj), nil
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
