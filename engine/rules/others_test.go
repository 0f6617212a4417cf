package rules

import (
	"testing"
	"time"

	"github.com/matryer/is"

	"fieldapi/engine"
	"fieldapi/engine/names"
)

func TestTimeBooking(t *testing.T) {
	stockholm, err := time.LoadLocation("Europe/Stockholm")
	if err != nil {
		t.Fatal(err)
	}
	timeTypes := []engine.Record{
		{"Name": "Normaltid", "BookingType": false},
		{"Name": "Semester", "BookingType": true},
		{"Name": "Resa, km/dag", "BookingType": true, "Status": "Archived"},
		{"Name": "Sjuk", "BookingType": true},
	}
	// The write's moment: 2025-06-02 23:30 UTC, already the 3rd in Stockholm.
	now := time.Date(2025, 6, 2, 23, 30, 0, 0, time.UTC)
	cases := []struct {
		name    string
		current engine.Record // nil: a create
		sent    Values
		refused string
		valid   []string
	}{
		{name: "today needs no booking type", sent: Values{"TimeType": "Normaltid", "UserSign": "ANLI", "Date": "2025-06-03T08:00:00"}},
		{name: "ahead with a booking type", sent: Values{"TimeType": "Semester", "UserSign": "ANLI", "Date": "2025-07-05T00:00:00", "StopDate": "2025-07-24T00:00:00"}},
		{name: "ahead without one", sent: Values{"TimeType": "Normaltid", "UserSign": "ANLI", "Date": "2025-06-04"},
			refused: `time type "Normaltid" cannot be booked ahead: the entry starts 2025-06-04, after today (2025-06-03, Europe/Stockholm)`,
			valid:   []string{"Semester", "Sjuk"}},
		{name: "a task's line is no booking", sent: Values{"TimeType": "Normaltid", "OwnerNr": "10001", "Date": "2026-01-01"}},
		{name: "standalone needs a user", sent: Values{"TimeType": "Normaltid", "Date": "2025-06-03"},
			refused: "UserSign is required for a standalone entry"},
		{name: "standalone needs a date", sent: Values{"TimeType": "Normaltid", "UserSign": "ANLI"},
			refused: "Date is required for a standalone entry"},
		{name: "stop before start", sent: Values{"TimeType": "Semester", "UserSign": "ANLI", "Date": "2025-07-05", "StopDate": "2025-07-04"},
			refused: "StopDate 2025-07-04 is before Date 2025-07-05"},
		{name: "unknown time type", sent: Values{"TimeType": "Resa", "UserSign": "ANLI", "Date": "2025-07-05"},
			refused: `timetypes "Resa" does not exist`},
		{name: "an update that moves no date is not checked again",
			current: engine.Record{"TimeType": "Normaltid", "UserSign": "ANLI", "Date": "2025-08-01"}, sent: Values{"Hours": 3.0}},
		{name: "an update moving the date ahead is",
			current: engine.Record{"TimeType": "Normaltid", "UserSign": "ANLI", "Date": "2025-06-01"}, sent: Values{"Date": "2025-08-01"},
			refused: "cannot be booked ahead", valid: []string{"Semester", "Sjuk"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			tx := newFakeTx().with(names.TimeTypes, timeTypes...)
			tx.now, tx.loc = now, stockholm
			err := prepare(timeBooking{}, tx, tc.current, tc.sent)
			if tc.refused == "" {
				is.NoErr(err)
				return
			}
			refusedWith(t, err, tc.refused, tc.valid)
		})
	}
}

func TestTimeTypeKeys(t *testing.T) {
	is := is.New(t)
	tx := newFakeTx().with(names.TimeTypes,
		engine.Record{"Name": "Normaltid"}, engine.Record{"Name": "Gammal", "Status": "Archived"}, engine.Record{"Name": "Resa, km/dag"})
	keys, err := timeTypeKeys{}.ValidKeys(ctx, tx)
	is.NoErr(err)
	is.Equal(keys, []string{"Normaltid", "Resa, km/dag"}) // whole names, in use, in order
}

func TestAddressOwner(t *testing.T) {
	owners := newFakeTx().
		with(names.Customers, engine.Record{"Nr": "1001", "Name": "BRF Solberga"}).
		with(names.Suppliers, engine.Record{"Nr": "201", "Name": "Ahlsell"}).
		with(names.Objects2, engine.Record{"Nr": "2101", "Name": "Undercentral"})
	cases := []struct {
		name      string
		current   engine.Record
		sent      Values
		ownerType string
		ownerName string
		refused   string
		valid     []string
	}{
		{name: "customer", sent: Values{"CustomerNr": "1001"}, ownerType: "customer", ownerName: "BRF Solberga"},
		{name: "supplier", sent: Values{"SupplierNr": "201"}, ownerType: "supplier", ownerName: "Ahlsell"},
		{name: "object of level 2", sent: Values{"ObjectNr": "2101", "Level": 2.0}, ownerType: "object", ownerName: "Undercentral"},
		{name: "two owners", sent: Values{"CustomerNr": "1001", "SupplierNr": "201"},
			refused: "an address belongs to exactly one owner", valid: []string{"CustomerNr", "SupplierNr", "ObjectNr"}},
		{name: "no owner", sent: Values{"City": "Bergen"}, refused: "exactly one owner", valid: []string{"CustomerNr", "SupplierNr", "ObjectNr"}},
		{name: "object without level", sent: Values{"ObjectNr": "2101"}, refused: "needs its Level, 1 to 4", valid: []string{"1", "2", "3", "4"}},
		{name: "object of level 5", sent: Values{"ObjectNr": "2101", "Level": 5.0}, refused: "needs its Level", valid: []string{"1", "2", "3", "4"}},
		{name: "unknown object", sent: Values{"ObjectNr": "2101", "Level": 3.0}, refused: `objects3 "2101" does not exist`},
		{name: "update: moved from customer to supplier", current: engine.Record{"CustomerNr": "1001"},
			sent: Values{"CustomerNr": "", "SupplierNr": "201"}, ownerType: "supplier", ownerName: "Ahlsell"},
		{name: "update: another field keeps the owner", current: engine.Record{"CustomerNr": "1001"},
			sent: Values{"City": "Bergen"}, ownerType: "customer", ownerName: "BRF Solberga"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			err := prepare(addressOwner{}, owners, tc.current, tc.sent)
			if tc.refused != "" {
				refusedWith(t, err, tc.refused, tc.valid)
				return
			}
			is.NoErr(err)
			is.Equal(tc.sent["OwnerType"], tc.ownerType)
			is.Equal(tc.sent["OwnerName"], tc.ownerName)
		})
	}
}

func TestQuoteValidity(t *testing.T) {
	cases := []struct {
		name    string
		setting string
		sent    Values
		want    any
		fails   bool
	}{
		{name: "30 days by default", sent: Values{"QuoteDate": "2025-06-03"}, want: "2025-07-03"},
		{name: "the company's days", setting: "14", sent: Values{"QuoteDate": "2025-06-03"}, want: "2025-06-17"},
		{name: "a date-time's own date", setting: "1", sent: Values{"QuoteDate": "2025-12-31T23:00:00+01:00"}, want: "2026-01-01"},
		{name: "given is kept", sent: Values{"QuoteDate": "2025-06-03", "ValidUntilDate": "2025-06-10"}, want: "2025-06-10"},
		{name: "no quote date", sent: Values{"QuoteDate": ""}, want: nil},
		{name: "a broken setting", setting: "a month", sent: Values{"QuoteDate": "2025-06-03"}, fails: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			tx := newFakeTx()
			if tc.setting != "" {
				tx.settings[QuoteValiditySetting] = tc.setting
			}
			err := quoteValidity{}.PrepareCreate(ctx, tx, tc.sent)
			if tc.fails {
				is.True(err != nil)
				return
			}
			is.NoErr(err)
			is.Equal(tc.sent["ValidUntilDate"], tc.want)
		})
	}
}

// TestOrderLineTotalOnUpdate: a PATCH recomputes TotalPrice from the
// amounts it leaves, sent or stored.
func TestOrderLineTotalOnUpdate(t *testing.T) {
	is := is.New(t)
	current := engine.Record{"Quantity": 2.0, "Price": 100.0, "DiscountPct": 10.0}
	values := Values{"Price": 50.0}
	is.NoErr(orderLineTotal{}.PrepareUpdate(ctx, newFakeTx(), current, values))
	is.Equal(values["TotalPrice"], 90.0)
	values = Values{"DiscountPrice": -1.0}
	refusal(t, orderLineTotal{}.PrepareUpdate(ctx, newFakeTx(), current, values))
}
