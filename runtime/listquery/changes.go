package listquery

import (
	"net/url"
	"slices"

	"fieldapi/engine"
	"fieldapi/runtime/problem"
	"fieldapi/runtime/textcheck"
)

// ParseChanges reads a change-log list's parameters strictly: limit as
// every list reads it (DefaultLimit, a larger ask served MaxLimit), and
// action where the route lists every action's entries.
func ParseChanges(values url.Values, logAction string) (engine.ChangeQuery, error) {
	params := []string{"limit"}
	if logAction == "" {
		params = append(params, "action")
	}
	if err := textcheck.Query(values); err != nil {
		return engine.ChangeQuery{}, err
	}
	for name, vs := range values {
		if !slices.Contains(params, name) {
			p := problem.InvalidParameter(name, "not a parameter of this list; the parameters are listed in validValues")
			p.ValidValues = params
			return engine.ChangeQuery{}, p
		}
		if len(vs) > 1 {
			return engine.ChangeQuery{}, problem.InvalidParameter(name, "given more than once")
		}
	}
	limit, err := PageLimit(values)
	if err != nil {
		return engine.ChangeQuery{}, err
	}
	q := engine.ChangeQuery{Action: logAction, Limit: limit}
	if values.Has("action") {
		if q.Action = values.Get("action"); q.Action == "" {
			return q, problem.InvalidParameter("action", `expected the name of an action, such as update, status or "create line"`)
		}
	}
	return q, nil
}
