package engine

import (
	"encoding/json"
	"strconv"

	"fieldapi/internal/jsontext"
)

// AppendJSON appends the record as JSON, byte for byte what json.Marshal
// writes for it (names sorted, HTML escaped), without reflection: every
// write records its record in its events (platform.Event.Payload), and
// encoding/json spent a twentieth of a create's time on it. A value of a
// type outside Record's documented ones is written by json.Marshal.
func (r Record) AppendJSON(b []byte) ([]byte, error) {
	if r == nil {
		return append(b, "null"...), nil
	}
	b = append(b, '{')
	for i, name := range sortedKeys(r, make([]string, 0, fewKeys)) {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(jsontext.AppendString(b, name), ':')
		var err error
		if b, err = appendJSONValue(b, r[name]); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

func appendJSONValue(b []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case string:
		return jsontext.AppendString(b, v), nil
	case float64:
		return jsontext.AppendFloat(b, v)
	case bool:
		return strconv.AppendBool(b, v), nil
	case []string:
		if v == nil {
			return append(b, "null"...), nil
		}
		return jsontext.AppendStrings(b, v), nil
	case map[string]string:
		if v == nil {
			return append(b, "null"...), nil
		}
		return jsontext.AppendStringMap(b, v), nil
	case Record:
		return v.AppendJSON(b)
	case []Record:
		if v == nil {
			return append(b, "null"...), nil
		}
		b = append(b, '[')
		for i, rec := range v {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = rec.AppendJSON(b); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	default:
		data, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		return append(b, data...), nil
	}
}
