package pipeline

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"time"

	"fieldapi/catalog"
	"fieldapi/engine"
)

// Values as the catalog types them: what a write sends is checked and
// normalized into the record's types (string, float64, bool, []string,
// map[string]string or nil) before anything else looks at it.

// normalize checks a value sent for a field and returns it in the record's
// type: string, float64, bool, []string, map[string]string, or nil.
func normalize(f *catalog.Field, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	wrongType := func() error {
		return engine.Refuse("%s: expected %s, got %T", f.Name, f.Type, v)
	}
	switch f.Type {
	case catalog.Number:
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
	case catalog.Bool:
		if b, ok := v.(bool); ok {
			return b, nil
		}
		return nil, wrongType()
	case catalog.List:
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
	case catalog.Object:
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
	case catalog.Date:
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

// parseDefault turns a catalog default (always text in YAML) into a value
// of the field's type. "$sign" is the caller's signature and "$today" the
// date of now, as the caller gives it (the company's local time).
func parseDefault(f *catalog.Field, text, sign string, now time.Time) (any, error) {
	switch text {
	case "$sign":
		text = sign
	case "$today":
		text = now.Format("2006-01-02")
	}
	return f.ParseValue(text)
}

// isEmpty reports whether a normalized value counts as not given.
func isEmpty(v any) bool { return engine.Empty(v) }

// setValue is a line list's fixed value in its field's type.
func setValue(f *catalog.Field, text string) any {
	v, err := parseDefault(f, text, "", time.Time{})
	if err != nil {
		return text // the catalog validated the field; keep the text as is
	}
	return v
}

// checkFinite refuses a number about to be stored that is not finite. The
// HTTP layer only passes finite numbers, but what the engine computes from
// them (an order line's TotalPrice from a price near the float64 maximum)
// can overflow; neither database nor JSON can carry the result, so the
// write is refused (422) naming the field rather than failing later.
func checkFinite(f *catalog.Field, v any) error {
	if x, isNumber := v.(float64); isNumber && (math.IsInf(x, 0) || math.IsNaN(x)) {
		return engine.Refuse("%s: the value is out of range; the amounts sent are too large", f.Name)
	}
	return nil
}
