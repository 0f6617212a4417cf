package rules

import (
	"context"
	"math"

	"fieldapi/catalog"
	"fieldapi/engine"
	"fieldapi/engine/names"
)

// materialPricing: what a task's material lines take from the task (spec
// 4.3 rule 7). A line without a price gets the product's BasePrice, plus
// the task price list's MarkupPct when the list has one (HasMarkupPct),
// less the line's DiscountPct, rounded to cents. A price that is sent is
// the price agreed and is kept; a PATCH of a line keeps its price too.
// ProductName and Unit come from the product through the catalog's
// lookups.
type materialPricing struct{}

func (materialPricing) Name() string     { return "the material pricing rules" }
func (materialPricing) Register() string { return names.Tasks }
func (materialPricing) Needs() []Need {
	return []Need{
		Field(names.Tasks, names.TaskPriceListNr, catalog.Text),
		LineList(names.Tasks, names.TaskMaterialsLine),
		Field(names.Materials, names.MaterialProductNr, catalog.Text),
		Field(names.Materials, names.MaterialPrice, catalog.Number),
		Field(names.Materials, names.MaterialDiscountPct, catalog.Number),
		Field(names.Products, names.ProductBasePrice, catalog.Number),
		Field(names.PriceLists, names.PriceListHasMarkupPct, catalog.Bool),
		Field(names.PriceLists, names.PriceListMarkupPct, catalog.Number),
	}
}

func (materialPricing) PrepareLine(ctx context.Context, tx Tx, task Values, line string, values Values) error {
	if line != names.TaskMaterialsLine {
		return nil
	}
	return priceMaterial(ctx, tx, text(task, names.TaskPriceListNr), values)
}

// priceMaterial sets the unit price of a material line that sends none.
func priceMaterial(ctx context.Context, tx Tx, priceListNr string, line Values) error {
	if line[names.MaterialPrice] != nil {
		return nil
	}
	productNr := text(line, names.MaterialProductNr)
	if productNr == "" {
		return nil // required: refused with the catalog's text
	}
	product, err := tx.Referenced(ctx, names.Products, productNr)
	if err != nil {
		return err
	}
	price := number(product, names.ProductBasePrice)
	if priceListNr != "" {
		list, err := tx.Referenced(ctx, names.PriceLists, priceListNr)
		if err != nil {
			return err
		}
		if hasMarkup, _ := list[names.PriceListHasMarkupPct].(bool); hasMarkup {
			price *= 1 + number(list, names.PriceListMarkupPct)/100
		}
	}
	discount := number(line, names.MaterialDiscountPct)
	if discount < 0 || discount > 100 {
		return engine.Refuse("%s must be from 0 to 100, not %v", names.MaterialDiscountPct, discount)
	}
	line[names.MaterialPrice] = math.Round(price*(1-discount/100)*100) / 100
	return nil
}
