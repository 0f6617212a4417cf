package sqlengine

import (
	"context"
	"math"

	"fieldapi/catalog"
	"fieldapi/engine"
)

// Order and order-line rules (spec 4.4). The catalog gives the rest:
// Status (Planned), OrderDate (today in the company's time zone) and
// CreatedBy/CreatedDate defaults; Status is never written by the API; and
// lines are created with their order all or nothing.

func orderRules() *registerRules {
	return &registerRules{prepareLine: inheritFromOrder}
}

// orderLineInherits are what a line takes from its order unless it gives
// its own (spec 4.4 rule 3).
var orderLineInherits = []string{"PriceListNr", "DeliveryDate", "SupplierNr"}

func inheritFromOrder(_ context.Context, _ *writer, order map[string]any, _ *catalog.Line, line map[string]any) error {
	for _, name := range orderLineInherits {
		if isEmpty(line[name]) && !isEmpty(order[name]) {
			line[name] = order[name]
		}
	}
	return nil
}

// orderLineRules: a line takes its Unit from the product unless it gives
// one, and the engine computes its TotalPrice. It is not priced: the
// catalog defaults Price (and Quantity) to zero (spec 4.4 rule 4).
func orderLineRules() *registerRules {
	return &registerRules{
		prepareCreate: func(ctx context.Context, w *writer, _ *table, values map[string]any) error {
			if isEmpty(values["Unit"]) {
				nr, _ := values["ProductNr"].(string) // required: checked before the rules run
				product, err := w.referenced(ctx, w.e.tables["products"], nr)
				if err != nil {
					return err
				}
				values["Unit"] = product["Unit"]
			}
			return setTotalPrice(values, values)
		},
		prepareUpdate: func(_ context.Context, _ *writer, _ *table, current engine.Record, values map[string]any) error {
			after := valuesAfter(current, values, lineAmounts)
			return setTotalPrice(after, values)
		},
	}
}

// lineAmounts are the fields TotalPrice is computed from.
var lineAmounts = []string{"Quantity", "Price", "DiscountPct", "DiscountPrice"}

// setTotalPrice computes a line's TotalPrice from its amounts (a missing
// amount is zero) into out: quantity × (price − DiscountPrice, an amount
// off each unit) less DiscountPct percent, rounded to two decimals.
func setTotalPrice(line, out map[string]any) error {
	amount := func(name string) float64 {
		f, _ := line[name].(float64) // nil (not given) is zero
		return f
	}
	pct, off := amount("DiscountPct"), amount("DiscountPrice")
	if pct < 0 || pct > 100 {
		return engine.Refuse("DiscountPct must be from 0 to 100, not %v", pct)
	}
	if off < 0 {
		return engine.Refuse("DiscountPrice is an amount off each unit and cannot be negative, not %v", off)
	}
	total := amount("Quantity") * (amount("Price") - off) * (1 - pct/100)
	out["TotalPrice"] = math.Round(total*100) / 100
	return nil
}
