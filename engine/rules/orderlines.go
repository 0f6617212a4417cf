package rules

import (
	"context"
	"math"

	"fieldapi/catalog"
	"fieldapi/engine"
	"fieldapi/engine/names"
)

// orderLineTotal: the engine computes an order line's TotalPrice (spec 4.4).
// The rest is the catalog's: a line takes price list, delivery date and
// supplier from its order (orders.yaml, inherit) and its Unit from the
// product (orderlines.yaml, defaultFrom); it is not priced, the catalog
// defaults Price and Quantity to zero.
type orderLineTotal struct{}

// lineAmounts are the fields TotalPrice is computed from.
var lineAmounts = []string{names.OrderLineQuantity, names.OrderLinePrice, names.OrderLineDiscountPct, names.OrderLineDiscountPrice}

func (orderLineTotal) Name() string     { return "the order line total rules" }
func (orderLineTotal) Register() string { return names.OrderLines }
func (orderLineTotal) Needs() []Need {
	needs := []Need{Field(names.OrderLines, names.OrderLineTotalPrice, catalog.Number)}
	for _, name := range lineAmounts {
		needs = append(needs, Field(names.OrderLines, name, catalog.Number))
	}
	return needs
}

func (orderLineTotal) PrepareCreate(_ context.Context, _ Tx, values Values) error {
	return setTotalPrice(values, values)
}

func (orderLineTotal) PrepareUpdate(_ context.Context, _ Tx, current engine.Record, values Values) error {
	return setTotalPrice(valuesAfter(current, values, lineAmounts), values)
}

// setTotalPrice computes a line's TotalPrice from its amounts (a missing
// amount is zero) into out: quantity × (price − DiscountPrice, an amount
// off each unit) less DiscountPct percent, rounded to two decimals.
func setTotalPrice(line, out Values) error {
	pct, off := number(line, names.OrderLineDiscountPct), number(line, names.OrderLineDiscountPrice)
	if pct < 0 || pct > 100 {
		return engine.Refuse("%s must be from 0 to 100, not %v", names.OrderLineDiscountPct, pct)
	}
	if off < 0 {
		return engine.Refuse("%s is an amount off each unit and cannot be negative, not %v", names.OrderLineDiscountPrice, off)
	}
	total := number(line, names.OrderLineQuantity) * (number(line, names.OrderLinePrice) - off) * (1 - pct/100)
	out[names.OrderLineTotalPrice] = math.Round(total*100) / 100
	return nil
}
