package rules

import "fieldapi/engine"

// text is a text value, "" when absent or of another type.
func text(values Values, name string) string {
	s, _ := values[name].(string)
	return s
}

// number is a number value, 0 when absent.
func number(values Values, name string) float64 {
	f, _ := values[name].(float64)
	return f
}

// valuesAfter is what the named fields of a record will hold once an
// update's values are written: the value sent, else the current one.
func valuesAfter(current engine.Record, values Values, names []string) Values {
	after := make(Values, len(names))
	for _, name := range names {
		after[name] = current[name]
		if v, changed := values[name]; changed {
			after[name] = v
		}
	}
	return after
}
