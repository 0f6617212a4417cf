package listquery

import (
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"

	"fieldapi/engine"
	"fieldapi/runtime/problem"
)

// Filter operators (issue 23): a filter the catalog gives ops takes
// param[op]=value besides its own param, e.g. planStartDate[gte]=2026-11-01.
// op is the engine's operator by name (engine.OpGte); checkParam lets
// only a filter's own operators through.

// OpParam is the parameter of a filter's operator: param[op].
func OpParam(param, op string) string { return param + "[" + op + "]" }

// splitOp splits param[op]; ok is false for a name without brackets.
func splitOp(name string) (param, op string, ok bool) {
	open := strings.IndexByte(name, '[')
	if open < 0 || !strings.HasSuffix(name, "]") {
		return name, "", false
	}
	return name[:open], name[open+1 : len(name)-1], true
}

// checkParam refuses a parameter the list does not take: unknown names
// list the valid ones; an operator the filter does not allow names the
// ones it does.
func checkParam(name string, filters []Filter) error {
	param, op, bracketed := splitOp(name)
	i := slices.IndexFunc(filters, func(f Filter) bool { return f.Param == param })
	if !bracketed {
		if engine.IsListParam(name) || i >= 0 {
			return nil
		}
		return unknownParameter(name, filters)
	}
	if i < 0 {
		return unknownParameter(name, filters)
	}
	if f := filters[i]; !slices.Contains(f.Ops, op) {
		if len(f.Ops) == 0 {
			return problem.InvalidParameter(name, param+" takes no operators")
		}
		p := problem.InvalidParameter(name, fmt.Sprintf("%s has no operator %q; its operators are listed in validValues", param, op))
		p.ValidValues = slices.Clone(f.Ops)
		return p
	}
	return nil
}

// opParams are every param[op] of the filters, for validValues.
func opParams(filters []Filter) []string {
	var names []string
	for _, f := range filters {
		for _, op := range f.Ops {
			names = append(names, OpParam(f.Param, op))
		}
	}
	return names
}

// opConditions are the conditions of the param[op] parameters given, in
// name order; checkParam has let only allowed ones through.
func opConditions(values url.Values, filters []Filter) ([]engine.Condition, error) {
	names := make([]string, 0, len(values))
	for name := range values {
		names = append(names, name)
	}
	sort.Strings(names)
	var conds []engine.Condition
	for _, name := range names {
		param, op, bracketed := splitOp(name)
		if !bracketed {
			continue
		}
		i := slices.IndexFunc(filters, func(f Filter) bool { return f.Param == param })
		if i < 0 {
			continue
		}
		cond, err := filters[i].opCondition(op, values.Get(name))
		if err != nil {
			p := problem.InvalidParameter(name, err.Error())
			if e, ok := err.(notInEnum); ok {
				p.ValidValues = e.valid
			}
			return nil, p
		}
		conds = append(conds, cond)
	}
	return conds, nil
}

// opCondition is the condition of one param[op]=v, its value typed as the
// filter's field.
func (f Filter) opCondition(op, v string) (engine.Condition, error) {
	cond := engine.Condition{Field: f.Field, Op: engine.Op(op)}
	switch cond.Op {
	case engine.OpIsNull:
		b, err := strconv.ParseBool(v)
		if err != nil {
			return cond, fmt.Errorf("expected true (no value) or false (has a value)")
		}
		cond.Values = []any{b}
	case engine.OpIn:
		for part := range strings.SplitSeq(v, ",") {
			if part = strings.TrimSpace(part); part == "" {
				continue
			}
			x, err := f.opValue(part)
			if err != nil {
				return cond, err
			}
			cond.Values = append(cond.Values, x)
		}
		if len(cond.Values) == 0 {
			return cond, fmt.Errorf("expected a comma-separated list of values")
		}
	default:
		if v == "" {
			return cond, fmt.Errorf("expected a value")
		}
		x, err := f.opValue(v)
		if err != nil {
			return cond, err
		}
		cond.Values = []any{x}
	}
	return cond, nil
}

// opValue is one value typed as the field, and one of its Enum when it
// has one.
func (f Filter) opValue(v string) (any, error) {
	x, err := f.value(v)
	if err == nil && len(f.Enum) > 0 && !slices.Contains(f.Enum, v) {
		return nil, notInEnum{value: v, field: f.Field, valid: f.Enum}
	}
	return x, err
}

// notInEnum is a value outside its field's Enum: the problem lists them.
type notInEnum struct {
	value, field string
	valid        []string
}

func (e notInEnum) Error() string {
	return fmt.Sprintf("%q is not a value of %s; the values are listed in validValues", e.value, e.field)
}
