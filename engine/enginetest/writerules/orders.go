package writerules

import (
	"context"
	"fmt"
	"testing"
	"time"

	"fieldapi/engine"
	"fieldapi/engine/dataset"
	"fieldapi/engine/enginetest/kit"
)

// testOrders: an order's lines take the order's price list, delivery date
// and supplier unless they give their own, their Unit from the product
// unless given, the product's name, and a TotalPrice the engine computes
// on create and on every update that changes an amount; a discount out
// of range is refused; a line added one by one inherits alike.
func testOrders(t *testing.T, s *suite) {
	s.Demo(t, "orders/lines", "orders.PriceListNr", "orders.DeliveryDate", "orders.SupplierNr",
		"orderlines.Unit", "orderlines.ProductName", "orderlines.TotalPrice", "orderlines.DiscountPct", "orderlines.DiscountPrice",
		"orderlines.PriceListNr", "orderlines.DeliveryDate", "orderlines.SupplierNr", "products.Unit")
	linesName := s.readName(t, "orders", "lines")
	product := s.Get(t, kit.DemoAPI, "products", "4001")

	in := kit.Values(map[string]any{"CustomerNr": "1001", "PriceListNr": "1", "DeliveryDate": "2026-12-01", "SupplierNr": "201"})
	in.AddLine("lines", kit.Values(map[string]any{"ProductNr": "4001", "Quantity": 2.0, "Price": 100.0, "DiscountPct": 10.0}))
	in.AddLine("lines", kit.Values(map[string]any{"ProductNr": "4002", "PriceListNr": "2", "DeliveryDate": "2027-01-15", "SupplierNr": "202", "Unit": "kg"}))
	order := s.MustCreateIn(t, kit.DemoAPI, "orders", in)
	nr := kit.KeyIn(t, order, "Nr")
	lines := order.Lines(linesName)
	if len(lines) != 2 {
		t.Fatalf("the order carries %d lines; want 2", len(lines))
	}
	checkLine := func(what string, line engine.Record, want map[string]any) {
		t.Helper()
		for field, v := range want {
			if line[field] != v {
				t.Errorf("%s: %s = %#v; want %#v", what, field, line[field], v)
			}
		}
	}
	checkLine("the line that gives nothing of its own", lines[0], map[string]any{
		"OrderNr": nr, "PriceListNr": "1", "DeliveryDate": "2026-12-01", "SupplierNr": "201", // the order's
		"Unit": product["Unit"], "ProductName": product["Name"], // the product's
		"TotalPrice": 180.0, // 2 × 100 less 10 %
	})
	checkLine("the line that gives its own", lines[1], map[string]any{
		"OrderNr": nr, "PriceListNr": "2", "DeliveryDate": "2027-01-15", "SupplierNr": "202", "Unit": "kg",
		"Quantity": 0.0, "Price": 0.0, "TotalPrice": 0.0, // not priced: the catalog's defaults
	})

	id := kit.KeyIn(t, lines[0], "Id")
	checkLine("after Quantity 3", s.MustUpdateIn(t, kit.DemoAPI, "orderlines", id, kit.Values(map[string]any{"Quantity": 3.0})),
		map[string]any{"TotalPrice": 270.0})
	checkLine("after DiscountPrice 10", s.MustUpdateIn(t, kit.DemoAPI, "orderlines", id, kit.Values(map[string]any{"DiscountPrice": 10.0})),
		map[string]any{"TotalPrice": 243.0}) // 3 × (100 − 10) less 10 %
	_, err := s.UpdateIn(kit.DemoAPI, "orderlines", id, kit.Values(map[string]any{"DiscountPct": -1.0}))
	refusedWith(t, err, "Update with a discount below 0", "DiscountPct must be from 0 to 100, not -1")
	checkLine("the order's line after a refused update", s.Get(t, kit.DemoAPI, "orderlines", id), map[string]any{"DiscountPct": 10.0, "TotalPrice": 243.0})

	cmd, ok := s.Engine.(engine.Commands)
	if !ok {
		t.Log("the engine offers no engine.Commands: a line added one by one is not checked")
		return
	}
	var c kit.Capture
	_, err = cmd.AddLine(context.Background(), kit.DemoAPI, "orders", nr, "lines", kit.Values(map[string]any{"ProductNr": "4001", "Quantity": 1.0, "Price": 50.0}), c.Receipt(kit.NoClaim))
	if err != nil {
		t.Fatalf("AddLine: %v", err)
	}
	checkLine("a line added one by one", c.Rec, map[string]any{
		"OrderNr": nr, "PriceListNr": "1", "DeliveryDate": "2026-12-01", "SupplierNr": "201", "Unit": product["Unit"], "TotalPrice": 50.0,
	})
	if n := len(s.Get(t, kit.DemoAPI, "orders", nr).Lines(linesName)); n != 3 {
		t.Errorf("the order carries %d lines after AddLine; want 3", n)
	}
}

// testCalendarSettings: "today" is the date in the company's time zone
// (demo: Europe/Stockholm), or UTC for a company without one; a quote is
// valid for the company's quotes.validityDays (set by import), else 30.
func testCalendarSettings(t *testing.T, s *suite) {
	im := s.Demo(t, "quotes.QuoteDate", "quotes.ValidUntilDate", "quotes.CustomerNr", "customers.Name")
	ctx := context.Background()
	validFor := func(q engine.Record) int {
		t.Helper()
		from, err1 := time.Parse(time.DateOnly, fmt.Sprint(q["QuoteDate"]))
		until, err2 := time.Parse(time.DateOnly, fmt.Sprint(q["ValidUntilDate"]))
		if err1 != nil || err2 != nil {
			t.Fatalf("quote dates %v and %v", q["QuoteDate"], q["ValidUntilDate"])
		}
		return int(until.Sub(from).Hours() / 24)
	}
	if days := validFor(s.MustCreateIn(t, kit.DemoAPI, "quotes", kit.Values(map[string]any{"CustomerNr": "1001"}))); days != 30 {
		t.Errorf("demo's quote before a validity is set: valid for %d days; want 30", days)
	}
	err := im.Import(ctx, dataset.Company{ID: kit.DemoAPI.Company, Name: "demo", Batches: []dataset.Batch{{
		Name: "enginetest.quote-validity", Settings: []dataset.Setting{{Name: "quotes.validityDays", Value: "14"}},
	}}})
	if err != nil {
		t.Fatalf("Import of a setting: %v", err)
	}
	// The write before read the company's settings; an import in the same
	// engine shows at once, without waiting for what it kept to expire.
	if days := validFor(s.MustCreateIn(t, kit.DemoAPI, "quotes", kit.Values(map[string]any{"CustomerNr": "1001"}))); days != 14 {
		t.Errorf("demo's quote right after quotes.validityDays 14 was imported: valid for %d days; want 14", days)
	}
	// 23:30 UTC: the next day in Stockholm (UTC+1 or +2), still today in UTC.
	now := s.Clock.Now().UTC()
	at := time.Date(now.Year(), now.Month(), now.Day(), 23, 30, 0, 0, time.UTC)
	if !at.After(now) {
		at = at.AddDate(0, 0, 1)
	}
	s.Clock.Advance(at.Sub(now))
	utcDay := at.Format(time.DateOnly)
	stockholmDay := at.AddDate(0, 0, 1).Format(time.DateOnly)

	q := s.MustCreateIn(t, kit.DemoAPI, "quotes", kit.Values(map[string]any{"CustomerNr": "1001"}))
	if q["QuoteDate"] != stockholmDay || q["ValidUntilDate"] != at.AddDate(0, 0, 15).Format(time.DateOnly) {
		t.Errorf("demo's quote at %s: QuoteDate %v, ValidUntilDate %v; want %s (Europe/Stockholm) and 14 days on, %s",
			at.Format(time.RFC3339), q["QuoteDate"], q["ValidUntilDate"], stockholmDay, at.AddDate(0, 0, 15).Format(time.DateOnly))
	}

	// The suite's company has no time zone and no validity set.
	customer := s.MustCreateIn(t, s.Company, "customers", kit.Values(map[string]any{"Name": "Utan tidszon AB"}))
	q = s.MustCreateIn(t, s.Company, "quotes", kit.Values(map[string]any{"CustomerNr": kit.KeyIn(t, customer, "Nr")}))
	if q["QuoteDate"] != utcDay || q["ValidUntilDate"] != at.AddDate(0, 0, 30).Format(time.DateOnly) {
		t.Errorf("a quote of a company without a time zone at %s: QuoteDate %v, ValidUntilDate %v; want %s (UTC) and 30 days on, %s",
			at.Format(time.RFC3339), q["QuoteDate"], q["ValidUntilDate"], utcDay, at.AddDate(0, 0, 30).Format(time.DateOnly))
	}
}
