package sqlengine

import (
	"context"
	"math"

	"fieldapi/catalog"
	"fieldapi/engine"
)

// What a task's lines take from the task (spec 4.3 rule 7). Material lines
// are priced by the engine from the task's price list. ProductName and Unit
// come from the product through the catalog's lookups, and an unknown
// product or time type is refused by the catalog's references (with the
// company's time-type names for a time type).

// prepareTaskLine runs before one of the task's lines is created, with the
// task's values.
func prepareTaskLine(ctx context.Context, w *writer, task map[string]any, l *catalog.Line, line map[string]any) error {
	if l.Name != "materials" {
		return nil
	}
	priceList, _ := task["PriceListNr"].(string)
	return w.priceMaterial(ctx, priceList, line)
}

// priceMaterial sets the unit price of a material line that sends none:
// the product's BasePrice, plus the price list's MarkupPct when the list
// has one (HasMarkupPct), less the line's DiscountPct, rounded to cents.
// A price that is sent is the price agreed and is kept as it is.
func (w *writer) priceMaterial(ctx context.Context, priceListNr string, line map[string]any) error {
	if line["Price"] != nil {
		return nil
	}
	productNr, _ := line["ProductNr"].(string)
	if productNr == "" {
		return nil // required: refused with the catalog's text
	}
	product, err := w.referenced(ctx, w.e.tables["products"], productNr)
	if err != nil {
		return err
	}
	price, _ := product["BasePrice"].(float64)
	if priceListNr != "" {
		list, err := w.referenced(ctx, w.e.tables["pricelists"], priceListNr)
		if err != nil {
			return err
		}
		if hasMarkup, _ := list["HasMarkupPct"].(bool); hasMarkup {
			markup, _ := list["MarkupPct"].(float64)
			price *= 1 + markup/100
		}
	}
	discount, _ := line["DiscountPct"].(float64)
	if discount < 0 || discount > 100 {
		return engine.Refuse("DiscountPct must be from 0 to 100, not %v", discount)
	}
	line["Price"] = math.Round(price*(1-discount/100)*100) / 100
	return nil
}
