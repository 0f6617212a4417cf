package catalog

import (
	"encoding/json"
	"math"
	"slices"
	"strings"

	"fieldapi/engine"
)

// Normalize checks a value sent for the field and returns it in the type
// engines hold it in: string, float64, bool, []string, map[string]string,
// or nil. A value the field cannot take is refused with the engine's text
// (*engine.CommandError), naming the field.
func (f *Field) Normalize(v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	wrongType := func() error {
		return engine.Refuse("%s: expected %s, got %T", f.Name, f.Type, v)
	}
	switch f.Type {
	case Number:
		var n float64
		switch x := v.(type) {
		case float64:
			n = x
		case float32:
			n = float64(x)
		case int:
			n = float64(x)
		case int64:
			n = float64(x)
		case json.Number:
			var err error
			if n, err = x.Float64(); err != nil {
				return nil, wrongType()
			}
		default:
			return nil, wrongType()
		}
		if math.IsNaN(n) || math.IsInf(n, 0) {
			return nil, engine.Refuse("%s: %v is not a number", f.Name, n)
		}
		return n, nil
	case Bool:
		if b, ok := v.(bool); ok {
			return b, nil
		}
		return nil, wrongType()
	case List:
		switch x := v.(type) {
		case []string:
			return slices.Clone(x), refuseNUL(f.Name, x...)
		case []any:
			list := make([]string, len(x))
			for i, item := range x {
				s, ok := item.(string)
				if !ok {
					return nil, wrongType()
				}
				list[i] = s
			}
			return list, refuseNUL(f.Name, list...)
		}
		return nil, wrongType()
	case Object:
		switch x := v.(type) {
		case map[string]string:
			for k, item := range x {
				if err := refuseNUL(f.Name, k, item); err != nil {
					return nil, err
				}
			}
			return x, nil
		case map[string]any:
			obj := make(map[string]string, len(x))
			for k, item := range x {
				s, ok := item.(string)
				if !ok {
					return nil, wrongType()
				}
				if err := refuseNUL(f.Name, k, s); err != nil {
					return nil, err
				}
				obj[k] = s
			}
			return obj, nil
		}
		return nil, wrongType()
	case Date:
		s, ok := v.(string)
		if !ok {
			return nil, wrongType()
		}
		if s == "" {
			return nil, nil // a date cannot be empty text: clearing it stores NULL
		}
		if !engine.IsDate(s) {
			return nil, engine.Refuse("%s: %q is not an ISO 8601 date or date-time", f.Name, s)
		}
		return s, nil // stored verbatim as sent
	default:
		s, ok := v.(string)
		if !ok {
			return nil, wrongType()
		}
		return s, refuseNUL(f.Name, s)
	}
}

// refuseNUL refuses text with NUL characters, which PostgreSQL cannot store.
func refuseNUL(name string, texts ...string) error {
	for _, s := range texts {
		if strings.ContainsRune(s, 0) {
			return engine.Refuse("%s: text may not contain NUL characters", name)
		}
	}
	return nil
}
