package runtime

import (
	"net/url"

	"fieldapi/engine"
)

// CountParam names the list parameter that says how to count the total.
const CountParam = "count"

// CountModes are the values of CountParam, the default first.
var CountModes = []string{"exact", "estimated", "none"}

// parseCount reads CountParam: exact (the default: today's total),
// estimated (the store's statistics; the envelope's totalEstimated says
// when the total is an estimate) or none (total null, nothing counted).
func parseCount(values url.Values) (engine.CountMode, error) {
	switch v := values.Get(CountParam); v {
	case "", "exact":
		return engine.CountExact, nil
	case "estimated":
		return engine.CountEstimated, nil
	case "none":
		return engine.CountNone, nil
	default:
		p := InvalidParameter(CountParam, "expected one of exact, estimated, none")
		p.ValidValues = CountModes
		return 0, p
	}
}
