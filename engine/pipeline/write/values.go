package write

import (
	"math"

	"fieldapi/catalog"
	"fieldapi/engine"
)

// Values as the catalog types them: what a write sends is checked and
// normalized into the record's types (string, float64, bool, []string,
// map[string]string or nil) before anything else looks at it.

// isEmpty reports whether a normalized value counts as not given.
func isEmpty(v any) bool { return engine.Empty(v) }

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
