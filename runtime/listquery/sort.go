package listquery

import (
	"fmt"
	"net/url"
	"strings"

	"fieldapi/engine"
	"fieldapi/runtime/fieldname"
	"fieldapi/runtime/problem"
)

// SortField is a field a list may be sorted by (catalog: sortable).
type SortField struct {
	Name string // as records read it, PascalCase
	Kind Kind   // its values' kind, which its cursor values must have
}

// parseSort reads sort=: a comma list of sortable fields named as
// fieldname.Resolve takes them, each with a leading - for descending, e.g.
// sort=-PlanStartDate,nr. Absent: newest first, as every list is.
func parseSort(values url.Values, sortable []SortField) ([]engine.SortKey, error) {
	v, given := values.Get(engine.SortParam), values.Has(engine.SortParam)
	if !given {
		return nil, nil
	}
	names := make([]string, len(sortable))
	for i, f := range sortable {
		names[i] = f.Name
	}
	refuse := func(detail string) error {
		p := problem.InvalidParameter(engine.SortParam, detail)
		p.ValidValues = names
		return p
	}
	if len(sortable) == 0 {
		return nil, problem.InvalidParameter(engine.SortParam, "this list has no sortable fields; it is always newest first")
	}
	var keys []engine.SortKey
	for item := range strings.SplitSeq(v, ",") {
		name, desc := strings.CutPrefix(strings.TrimSpace(item), "-")
		field, ok := fieldname.Resolve(name, names)
		switch {
		case name == "":
			return nil, refuse("expected a comma list of sortable fields, each with - before it for descending; the fields are listed in validValues")
		case !ok:
			return nil, refuse(fmt.Sprintf("%q is not a sortable field; the sortable fields are listed in validValues", name))
		}
		for _, k := range keys {
			if k.Field == field {
				return nil, refuse(fmt.Sprintf("%s is given twice", field))
			}
		}
		keys = append(keys, engine.SortKey{Field: field, Desc: desc})
	}
	return keys, nil
}

// checkCursorKeys checks a cursor's sort values against the sort: one
// per key, each null or of its field's kind.
func checkCursorKeys(values []any, sort []engine.SortKey, sortable []SortField) error {
	if len(values) != len(sort) {
		return fmt.Errorf("not a cursor from this service")
	}
	for i, k := range sort {
		if values[i] == nil {
			continue
		}
		var kind Kind
		for _, f := range sortable {
			if f.Name == k.Field {
				kind = f.Kind
			}
		}
		ok := false
		switch values[i].(type) {
		case string:
			ok = kind == KindText || kind == KindDate
		case float64:
			ok = kind == KindNumber
		case bool:
			ok = kind == KindBool
		}
		if !ok {
			return fmt.Errorf("not a cursor from this service")
		}
	}
	return nil
}
