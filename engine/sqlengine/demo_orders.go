package sqlengine

import (
	"context"
	"fmt"
	"strconv"

	"fieldapi/engine"
)

// The demo orders, quotes, contract lines and calendar entries, generated
// deterministically from the locale. Order and quote numbers differ per
// company, so each company has records the other does not. Every date is
// fixed and standalone entries on non-booking time types lie in the past
// (before the engine tests' clock, 2025-06-02): the load never depends on
// the day it runs.

// Number ranges of the demo orders and quotes, by locale language.
var (
	demoOrderStart = [2]int{30001, 50001}
	demoQuoteStart = [2]int{20001, 40001}
)

// insertSettings stores the company settings the calendar rules read,
// keeping any the operator has set already.
func (l demoLocale) insertSettings(ctx context.Context, w *writer) error {
	_, err := exec(ctx, w.tx, `INSERT INTO "settings" ("company", "name", "value") VALUES (?, ?, ?)
		ON CONFLICT ("company", "name") DO NOTHING`, w.s.Company, settingTimeZone, l.timeZone)
	return err
}

var demoOrderStatuses = []string{"Planned", "Ordered", "Delivered", "Invoiced"}

// createOrders makes 12 orders with 2 to 4 lines each. Some lines have no
// price (they stand at zero), some are bought from a supplier of their
// own, some carry a discount, and a few have quantity zero (listed only
// with includeZeroQuantity=true). Every sixth order is a purchase order
// without a customer.
func (l demoLocale) createOrders(ctx context.Context, w *writer) error {
	signs := l.activeSigns()
	for i := range 12 {
		date := fmt.Sprintf("2025-%02d-%02d", 1+i%10, 1+(i*9)%27)
		delivery, err := addDays(date, 21)
		if err != nil {
			return err
		}
		values := map[string]any{
			"Nr":           strconv.Itoa(demoOrderStart[l.lang] + i),
			"Status":       demoOrderStatuses[i%len(demoOrderStatuses)],
			"SupplierNr":   l.suppliers[i%len(l.suppliers)].nr,
			"UserSign":     signs[i%len(signs)],
			"OrderDate":    date,
			"DeliveryDate": delivery,
			"PriceListNr":  l.priceLists[i%2]["Nr"],
			"CreatedBy":    signs[i%len(signs)],
			"CreatedDate":  date,
			"Note":         pick(l.lang, i, demoOrderNotes),
		}
		if i%6 != 5 {
			values["CustomerNr"] = strconv.Itoa(l.customerStart + (i*7)%l.customerCount)
		}
		in := record(values)
		lines := 2 + i%3
		for j := range lines {
			in.AddLine("lines", l.orderLine(i, j, lines))
		}
		if err := w.createAll(ctx, "orders", in); err != nil {
			return err
		}
	}
	return nil
}

func (l demoLocale) orderLine(order, j, lines int) engine.Input {
	p := (order*5 + j*3) % len(demoProducts)
	values := map[string]any{
		"ProductNr": strconv.Itoa(l.productStart + p),
		"Quantity":  float64(1 + (order+j)%5),
	}
	switch {
	case (order+j)%4 == 1:
		values["Note"] = pick(l.lang, 0, demoFreeLine) // no price: stands at zero
	default:
		values["Price"] = demoProducts[p].price
	}
	if j == 1 && order%3 == 2 {
		values["SupplierNr"] = l.suppliers[(order+1)%len(l.suppliers)].nr // bought elsewhere
	}
	if j == 0 && order%5 == 0 {
		values["DiscountPct"] = 10.0
	}
	if j == 0 && order%4 == 3 {
		values["DiscountPrice"] = 5.0
	}
	if j == lines-1 && order%7 == 4 {
		values["Quantity"] = 0.0 // back-ordered
	}
	return record(values)
}

var demoQuoteStatuses = []string{"Open", "Sent", "Accepted", "Rejected", "Open", "Sent"}

// createQuotes makes 6 quotes with material and time lines, half of them
// on the customer's site (Object1Nr).
func (l demoLocale) createQuotes(ctx context.Context, w *writer) error {
	signs := l.activeSigns()
	for i := range demoQuoteStatuses {
		date := fmt.Sprintf("2025-%02d-%02d", 2+i, 3+i*4)
		values := map[string]any{
			"Nr":          strconv.Itoa(demoQuoteStart[l.lang] + i),
			"Status":      demoQuoteStatuses[i],
			"CustomerNr":  strconv.Itoa(l.customerStart + i),
			"Description": pick(l.lang, i, demoQuoteTexts),
			"OwnerSign":   signs[i%len(signs)],
			"QuoteDate":   date,
			"CreatedBy":   signs[i%len(signs)],
			"CreatedDate": date,
		}
		if demoQuoteStatuses[i] == "Accepted" {
			values["AcceptedDate"], _ = addDays(date, 12)
		}
		if i%2 == 0 {
			values["Object1Nr"] = strconv.Itoa(100 + l.objectOffset + i + 1) // the customer's site (createObjects)
		}
		in := record(values)
		for k := range 2 {
			p := (i*4 + k*7) % len(demoProducts)
			in.AddLine("materials", record(map[string]any{
				"ProductNr": strconv.Itoa(l.productStart + p), "Quantity": float64(1 + (i+k)%3), "Price": demoProducts[p].price,
			}))
		}
		in.AddLine("times", record(map[string]any{"TimeType": l.workType(), "Hours": float64(2 + i), "Spec": pick(l.lang, i, demoQuoteTexts)}))
		if i%2 == 1 {
			in.AddLine("times", record(map[string]any{"TimeType": l.travelType(), "Hours": float64(40 + 10*i)}))
		}
		if err := w.createAll(ctx, "quotes", in); err != nil {
			return err
		}
	}
	return nil
}

// createContractLines gives every contract a material line and a time
// line, the yearly service it covers.
func (l demoLocale) createContractLines(ctx context.Context, w *writer) error {
	t := w.e.tables["contracts"]
	for i, c := range l.contracts {
		nr := c["Nr"].(string)
		contract, _, err := w.e.getRecord(ctx, w.tx, t, w.s.Company, nr)
		if err != nil {
			return fmt.Errorf("contract %s: %w", nr, err)
		}
		p := 4 + i%2 // the ventilation filters
		lines := map[string]engine.Input{
			"materials": record(map[string]any{"ProductNr": strconv.Itoa(l.productStart + p), "Quantity": float64(2 + i), "Price": demoProducts[p].price}),
			"times":     record(map[string]any{"TimeType": l.workType(), "Hours": float64(2 + i%3), "Spec": pick(l.lang, 0, demoServiceText)}),
		}
		for _, name := range []string{"materials", "times"} {
			if _, err := w.createLine(ctx, t, contract, lineOf(t, name), nr, lines[name]); err != nil {
				return fmt.Errorf("contract %s: %s: %w", nr, name, err)
			}
		}
	}
	return nil
}

// createBookings gives every active user standalone calendar entries: a
// vacation and a sick day (all-day: stop at midnight after the last day),
// a course booked with clock times where the company has an hourly
// booking type, and a past internal meeting on the work type (a
// non-booking type is fine for today and earlier).
func (l demoLocale) createBookings(ctx context.Context, w *writer) error {
	absences, hourly := l.bookingTypes()
	for k, sign := range l.activeSigns() {
		vacationStart, _ := addDays("2025-07-07", 7*k)
		vacationStop, _ := addDays(vacationStart, 14)
		sickDay := fmt.Sprintf("2025-03-%02d", 10+k)
		sickStop, _ := addDays(sickDay, 1)
		entries := []map[string]any{
			{"TimeType": absences[0], "Date": vacationStart + "T00:00:00", "StopDate": vacationStop + "T00:00:00", "Hours": 10.0, "Spec": pick(l.lang, 0, demoVacationText)},
			{"TimeType": absences[1%len(absences)], "Date": sickDay + "T00:00:00", "StopDate": sickStop + "T00:00:00", "Hours": 1.0},
			{"TimeType": l.workType(), "Date": fmt.Sprintf("2025-01-%02dT13:00:00", 14+k), "StopDate": fmt.Sprintf("2025-01-%02dT15:00:00", 14+k), "Hours": 2.0, "Spec": pick(l.lang, 0, demoMeetingText)},
		}
		if len(hourly) > 0 {
			course := fmt.Sprintf("2026-02-%02d", 10+k)
			entries = append(entries, map[string]any{"TimeType": hourly[0], "Date": course + "T08:00:00", "StopDate": course + "T16:00:00", "Hours": 8.0, "Spec": pick(l.lang, 0, demoCourseText)})
		}
		for _, values := range entries {
			values["UserSign"] = sign
			if err := w.createAll(ctx, "times", record(values)); err != nil {
				return err
			}
		}
	}
	return nil
}

// activeSigns are the active demo users other than the integration's own.
func (l demoLocale) activeSigns() []string {
	var signs []string
	for _, u := range l.users {
		if u.status == "Active" && u.sign != "API" {
			signs = append(signs, u.sign)
		}
	}
	return signs
}

// workType is the ordinary working time type (the first of the locale).
func (l demoLocale) workType() string { return l.timeTypes[0]["Name"].(string) }

// travelType is the first resource time type: a name with a comma.
func (l demoLocale) travelType() string {
	for _, tt := range l.timeTypes {
		if tt["ResourceType"] == true {
			return tt["Name"].(string)
		}
	}
	return l.workType()
}

// bookingTypes are the locale's time types with BookingType true: those
// counted in days (absences) and the others (hourly bookings).
func (l demoLocale) bookingTypes() (absences, hourly []string) {
	for _, tt := range l.timeTypes {
		if tt["BookingType"] != true {
			continue
		}
		if tt["Unit"] == "dag" {
			absences = append(absences, tt["Name"].(string))
		} else {
			hourly = append(hourly, tt["Name"].(string))
		}
	}
	return absences, hourly
}

// pick returns text i (cycling) in the locale's language.
func pick(lang, i int, texts [][2]string) string { return texts[i%len(texts)][lang] }

var (
	demoOrderNotes = [][2]string{
		{"Leverans till lastkajen", "Levering til varemottak"},
		{"Ring platschefen före leverans", "Ring anleggsleder før levering"},
		{"Delleverans godtas", "Delleveranse godtas"},
	}
	demoFreeLine   = [][2]string{{"Garantiutbyte, utan kostnad", "Garantibytte, uten kostnad"}}
	demoQuoteTexts = [][2]string{
		{"Byte av värmepump", "Bytte av varmepumpe"},
		{"Ny ventilation i källarplan", "Ny ventilasjon i kjeller"},
		{"Laddboxar i garaget", "Ladebokser i garasjen"},
		{"Stambyte, etapp 1", "Rørfornying, trinn 1"},
		{"Injustering av ventilation", "Innregulering av ventilasjon"},
		{"Serviceavtal värmepumpar", "Serviceavtale varmepumper"},
	}
	demoServiceText  = [][2]string{{"Årlig service enligt avtal", "Årlig service etter avtale"}}
	demoVacationText = [][2]string{{"Sommarsemester", "Sommerferie"}}
	demoCourseText   = [][2]string{{"F-gascertifiering", "F-gassertifisering"}}
	demoMeetingText  = [][2]string{{"Arbetsplatsträff", "Arbeidsplassmøte"}}
)
