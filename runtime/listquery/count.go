package listquery

import (
	"net/url"

	"fieldapi/engine"
	"fieldapi/runtime/problem"
)

// CountModes are the values of engine.CountParam, the default first.
var CountModes = []string{"exact", "estimated", "none"}

// parseCount reads engine.CountParam: exact (the default: today's total),
// estimated (the store's statistics; the envelope's totalEstimated says
// when the total is an estimate) or none (total null, nothing counted).
func parseCount(values url.Values) (engine.CountMode, error) {
	switch v := values.Get(engine.CountParam); v {
	case "", "exact":
		return engine.CountExact, nil
	case "estimated":
		return engine.CountEstimated, nil
	case "none":
		return engine.CountNone, nil
	default:
		p := problem.InvalidParameter(engine.CountParam, "expected one of exact, estimated, none")
		p.ValidValues = CountModes
		return 0, p
	}
}
