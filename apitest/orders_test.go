package apitest

import (
	"fmt"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/matryer/is"

	"fieldapi/engine/reference"
	"fieldapi/runtime"
)

// lateEvening is 23:30 UTC on 10 March 2026: already 11 March in
// Stockholm, the demo company's time zone.
var lateEvening = time.Date(2026, 3, 10, 23, 30, 0, 0, time.UTC)

// startAt runs the service with the engine's clock at the given time.
func startAt(t *testing.T, b Backend, now time.Time) (*Env, *Clock) {
	clock := NewClock(now)
	return StartWith(t, b, runtime.Config{}, reference.Options{Now: clock.Now}), clock
}

// lineOf returns the line of a record's list with the given product.
func lineOf(t *testing.T, rec map[string]any, list, productNr string) map[string]any {
	t.Helper()
	lines, _ := rec[list].([]any)
	for _, l := range lines {
		if line := l.(map[string]any); line["ProductNr"] == productNr {
			return line
		}
	}
	t.Fatalf("%s has no line with product %s: %v", list, productNr, lines)
	return nil
}

func TestOrderIsCreatedWithItsLines(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		is := is.New(t)
		env, _ := startAt(t, b, lateEvening)

		resp := env.Post("/v1/orders", map[string]any{
			"customerNr": "1001", "supplierNr": "201", "priceListNr": "2", "deliveryDate": "2026-04-01",
			"lines": []any{
				map[string]any{"productNr": "4001", "quantity": 2, "price": 1000, "discountPct": 10},
				map[string]any{"productNr": "4005", "quantity": 3, "supplierNr": "202", "deliveryDate": "2026-04-15", "priceListNr": "1"},
				map[string]any{"productNr": "4019", "quantity": 4, "price": 14, "discountPrice": 2, "unit": "rulle"},
			},
		})
		Expect(t, resp, http.StatusCreated)
		order := resp.Object(t)
		is.True(order["Nr"] != nil)                // numbered by the series
		is.Equal(order["Status"], "Planned")       // the engine's default
		is.Equal(order["OrderDate"], "2026-03-11") // today in Europe/Stockholm, not UTC
		is.Equal(order["CreatedBy"], "API")
		is.Equal(order["CustomerName"], "Bergström Fastigheter AB")
		is.Equal(len(order["Lines"].([]any)), 3)

		heatPump := lineOf(t, order, "Lines", "4001")
		is.Equal(heatPump["OrderNr"], order["Nr"])
		is.Equal(heatPump["ProductName"], "Värmepump luft/vatten 12 kW") // from the product
		is.Equal(heatPump["Unit"], "st")                                 // from the product
		is.Equal(heatPump["TotalPrice"], 1800.0)                         // 2 × 1000 less 10 %
		is.Equal(heatPump["SupplierNr"], "201")                          // inherited from the order
		is.Equal(heatPump["DeliveryDate"], "2026-04-01")
		is.Equal(heatPump["PriceListNr"], "2")

		filter := lineOf(t, order, "Lines", "4005")
		is.Equal(filter["Price"], 0.0) // not priced automatically
		is.Equal(filter["TotalPrice"], 0.0)
		is.Equal(filter["SupplierNr"], "202") // its own, not the order's
		is.Equal(filter["DeliveryDate"], "2026-04-15")
		is.Equal(filter["PriceListNr"], "1")

		cable := lineOf(t, order, "Lines", "4019")
		is.Equal(cable["Unit"], "rulle")     // given, kept
		is.Equal(cable["TotalPrice"], 48.0)  // 4 × (14 − 2 off each unit)
		is.Equal(cable["SupplierNr"], "201") // inherited

		got := env.Get(KeyPath("orders", order["Nr"].(string)))
		Expect(t, got, http.StatusOK)
		is.Equal(got.Object(t)["Lines"], order["Lines"])

		purchase := env.Post("/v1/orders", map[string]any{"supplierNr": "203", "orderDate": "2026-02-01"})
		Expect(t, purchase, http.StatusCreated)
		is.Equal(purchase.Object(t)["OrderDate"], "2026-02-01") // a given date is kept

		neither := env.Post("/v1/orders", map[string]any{"note": "for whom?"})
		is.Equal(neither.Status, http.StatusUnprocessableEntity)
		is.Equal(neither.Problem(t).ValidValues, []string{"CustomerNr", "SupplierNr"})
	})
}

func TestOrderWithARejectedLineLeavesNothing(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		env := Start(t, b, runtime.Config{})
		counts := func() [2]int {
			return [2]int{env.count(t, "/v1/orders"), env.count(t, "/v1/orderlines?includeZeroQuantity=true")}
		}
		first := env.Post("/v1/orders", map[string]any{"customerNr": "1002"})
		Expect(t, first, http.StatusCreated)
		nr, err := strconv.Atoi(first.Object(t)["Nr"].(string))
		if err != nil {
			t.Fatal(err)
		}
		before := counts()

		cases := []struct {
			name   string
			lines  []any
			detail string
		}{
			{"unknown product", []any{
				map[string]any{"productNr": "4001", "quantity": 1, "price": 10},
				map[string]any{"productNr": "NOPE", "quantity": 1},
			}, `lines[1]: Product "NOPE" does not exist`},
			{"discount over 100 %", []any{
				map[string]any{"productNr": "4001", "quantity": 1},
				map[string]any{"productNr": "4002", "quantity": 1},
				map[string]any{"productNr": "4003", "quantity": 1, "price": 10, "discountPct": 120},
			}, "lines[2]: DiscountPct must be from 0 to 100, not 120"},
			{"unknown supplier of its own", []any{
				map[string]any{"productNr": "4001", "quantity": 1, "supplierNr": "999"},
			}, `lines[0]: Supplier "999" does not exist`},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				is := is.New(t)
				resp := env.Post("/v1/orders", map[string]any{"customerNr": "1002", "supplierNr": "201", "lines": tc.lines})
				is.Equal(resp.Status, http.StatusUnprocessableEntity)
				p := resp.Problem(t)
				is.Equal(p.Title, "command_failed")
				is.Equal(p.Detail, tc.detail)
				is.Equal(counts(), before) // no order, no line
			})
		}

		next := env.Post("/v1/orders", map[string]any{"customerNr": "1002"})
		Expect(t, next, http.StatusCreated)
		env.NextNumber(t, next.Object(t)["Nr"].(string), nr) // the rolled-back creates used no number
	})
}

func TestOrderLinesAddedAndChanged(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		is := is.New(t)
		env := Start(t, b, runtime.Config{})
		order := env.Post("/v1/orders", map[string]any{"customerNr": "1003", "supplierNr": "204", "deliveryDate": "2026-05-04", "priceListNr": "2"})
		Expect(t, order, http.StatusCreated)
		nr := order.Object(t)["Nr"].(string)

		added := env.Post(KeyPath("orders", nr, "/lines"), map[string]any{"productNr": "4007", "quantity": 2})
		Expect(t, added, http.StatusCreated)
		reply := added.Object(t)
		is.Equal(len(reply), 4) // exactly id, orderNr, productNr, totalPrice
		is.Equal(reply["orderNr"], nr)
		is.Equal(reply["productNr"], "4007")
		is.Equal(reply["totalPrice"], 0.0) // no price: the line stands at zero
		id := reply["id"].(string)

		line := env.Get(KeyPath("orderlines", id))
		Expect(t, line, http.StatusOK)
		l := line.Object(t)
		is.Equal(l["ProductName"], "FTX-aggregat 250 m³/h")
		is.Equal(l["Unit"], "st")
		is.Equal(l["Price"], 0.0)
		is.Equal(l["SupplierNr"], "204") // inherited from the order
		is.Equal(l["DeliveryDate"], "2026-05-04")
		is.Equal(l["PriceListNr"], "2")

		// PATCH recomputes the total and answers with the whole line.
		patched := env.Patch(KeyPath("orderlines", id), map[string]any{"price": 38500, "discountPct": 20, "discountPrice": 500})
		Expect(t, patched, http.StatusOK)
		p := patched.Object(t)
		is.Equal(p["TotalPrice"], 60800.0) // 2 × (38500 − 500) less 20 %
		is.Equal(p["ProductName"], "FTX-aggregat 250 m³/h")
		patched = env.Patch(KeyPath("orderlines", id), map[string]any{"quantity": 3})
		Expect(t, patched, http.StatusOK)
		is.Equal(patched.Object(t)["TotalPrice"], 91200.0) // the discounts stay

		refused := env.Patch(KeyPath("orderlines", id), map[string]any{"discountPrice": -5})
		is.Equal(refused.Status, http.StatusUnprocessableEntity)
		is.Equal(refused.Problem(t).Detail, "DiscountPrice is an amount off each unit and cannot be negative, not -5")
		readOnly := env.SkipRequestValidation().Patch(KeyPath("orderlines", id), map[string]any{"totalPrice": 1})
		is.Equal(readOnly.Status, http.StatusBadRequest)
		is.Equal(readOnly.Problem(t).Title, "read_only_field")

		unknown := env.Post(KeyPath("orders", nr, "/lines"), map[string]any{"productNr": "NOPE", "quantity": 1})
		is.Equal(unknown.Status, http.StatusUnprocessableEntity)
		is.Equal(unknown.Problem(t).Detail, `Product "NOPE" does not exist`)
		noOrder := env.Post(KeyPath("orders", "NO-SUCH-ORDER", "/lines"), map[string]any{"productNr": "4007", "quantity": 1})
		is.Equal(noOrder.Status, http.StatusNotFound)
	})
}

func TestZeroQuantityLinesAreHiddenUnlessAsked(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		is := is.New(t)
		env := Start(t, b, runtime.Config{})
		order := env.Post("/v1/orders", map[string]any{"customerNr": "1004", "lines": []any{
			map[string]any{"productNr": "4010", "quantity": 5, "price": 540},
			map[string]any{"productNr": "4011", "quantity": 0, "price": 48},
			map[string]any{"productNr": "4012"}, // no quantity: zero
		}})
		Expect(t, order, http.StatusCreated)
		nr := order.Object(t)["Nr"].(string)

		products := func(query string) []string {
			var nrs []string
			for _, item := range env.page(t, "/v1/orderlines?orderNr="+nr+query).Items {
				nrs = append(nrs, item["ProductNr"].(string))
			}
			return nrs
		}
		is.Equal(products(""), []string{"4010"})
		is.Equal(products("&includeZeroQuantity=false"), []string{"4010"})
		is.Equal(products("&includeZeroQuantity=true"), []string{"4012", "4011", "4010"}) // newest first

		bad := env.SkipRequestValidation().Get("/v1/orderlines?includeZeroQuantity=maybe")
		is.Equal(bad.Status, http.StatusBadRequest)
	})
}

func TestOrderStatusIsNotChangedByPatch(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		is := is.New(t)
		env := Start(t, b, runtime.Config{})
		created := env.Post("/v1/orders", map[string]any{"customerNr": "1005", "lines": []any{map[string]any{"productNr": "4001", "quantity": 1}}})
		Expect(t, created, http.StatusCreated)
		nr := created.Object(t)["Nr"].(string)

		for _, body := range []map[string]any{{"status": "Invoiced"}, {"note": "x", "status": "Planned"}} {
			resp := env.SkipRequestValidation().Patch(KeyPath("orders", nr), body)
			is.Equal(resp.Status, http.StatusBadRequest)
			p := resp.Problem(t)
			is.Equal(p.Title, "read_only_field")
			is.True(len(p.ValidValues) > 0)
		}
		onCreate := env.SkipRequestValidation().Post("/v1/orders", map[string]any{"customerNr": "1005", "status": "Invoiced"})
		is.Equal(onCreate.Status, http.StatusBadRequest)

		patched := env.Patch(KeyPath("orders", nr), map[string]any{"note": "Ring före leverans", "deliveryCity": "Uppsala"})
		Expect(t, patched, http.StatusOK)
		o := patched.Object(t)
		is.Equal(o["Status"], "Planned")
		is.Equal(o["Note"], "Ring före leverans")
		is.Equal(len(o["Lines"].([]any)), 1) // the whole order
	})
}

func TestDemoOrders(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		is := is.New(t)
		env := Start(t, b, runtime.Config{})
		orders := env.page(t, "/v1/orders?limit=500").Items
		is.True(len(orders) >= 10)
		var zeroPrice, ownSupplier, withoutLines int
		for _, o := range orders {
			lines := o["Lines"].([]any)
			if len(lines) == 0 {
				withoutLines++
			}
			for _, l := range lines {
				line := l.(map[string]any)
				if line["Price"] == 0.0 {
					zeroPrice++
				}
				if line["SupplierNr"] != o["SupplierNr"] {
					ownSupplier++
				}
				want := line["Quantity"].(float64) * (line["Price"].(float64) - num(line["DiscountPrice"])) * (1 - num(line["DiscountPct"])/100)
				is.Equal(fmt.Sprintf("%.2f", line["TotalPrice"]), fmt.Sprintf("%.2f", want))
			}
		}
		is.Equal(withoutLines, 0)
		is.True(zeroPrice > 0)
		is.True(ownSupplier > 0)
		is.True(env.count(t, "/v1/orderlines?includeZeroQuantity=true") > env.count(t, "/v1/orderlines")) // some lines are back-ordered
	})
}

// num is a JSON number or null (0).
func num(v any) float64 {
	f, _ := v.(float64)
	return f
}
