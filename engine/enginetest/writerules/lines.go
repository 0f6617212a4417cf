package writerules

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"fieldapi/catalog"
	"fieldapi/engine"
	"fieldapi/engine/enginetest/kit"
)

// readName is the name a register's line list is read under.
func (s *suite) readName(t *testing.T, register, list string) string {
	t.Helper()
	for _, l := range s.Catalog.Register(register).Lines {
		if l.Name == list {
			return l.ReadName
		}
	}
	t.Fatalf("%s has no line list %s", register, list)
	return ""
}

// testDemoLinesAllOrNothing: a create whose second line is refused
// writes nothing — no record, no line, no event, no number used — and
// names the line; the same create with the line fixed writes the record
// and its lines, each with the owner's key and its register's defaults.
func testDemoLinesAllOrNothing(t *testing.T, s *suite) {
	s.Demo(t, "customers/contacts", "contacts.MostImportant", "contacts.Status", "contacts.CustomerNr")
	feed := s.Feed(t)
	var start int64
	if feed != nil {
		start = s.FeedEnd(t, feed, kit.DemoAPI)
	}
	customers, contacts := s.Total(t, kit.DemoAPI, "customers"), s.Total(t, kit.DemoAPI, "contacts")

	in := kit.Values(map[string]any{"Name": "Rad för rad AB"})
	in.AddLine("contacts", kit.Values(map[string]any{"Name": "Första Kontakt"}))
	in.AddLine("contacts", kit.Values(map[string]any{"Name": "Andra Kontakt", "MostImportant": "ja"}))
	_, err := s.CreateIn(kit.DemoAPI, "customers", in)
	refusedWith(t, err, "Create with a contact of the wrong type", "contacts[1]: MostImportant: expected bool, got string")
	if c, k := s.Total(t, kit.DemoAPI, "customers"), s.Total(t, kit.DemoAPI, "contacts"); c != customers || k != contacts {
		t.Errorf("after a refused create: %d customers, %d contacts; want %d and %d as before", c, k, customers, contacts)
	}
	s.ExpectEvents(t, feed, kit.DemoAPI, start)

	in.Lines["contacts"][1] = kit.Values(map[string]any{"Name": "Andra Kontakt", "MostImportant": true})
	rec := s.MustCreateIn(t, kit.DemoAPI, "customers", in)
	nr := s.expectNextNumber(t, rec, 1060, "the refused create used no number")
	lines := rec.Lines(s.readName(t, "customers", "contacts"))
	if len(lines) != 2 {
		t.Fatalf("the created customer carries %d contacts; want 2", len(lines))
	}
	for i, c := range lines {
		if c["CustomerNr"] != nr || c["Status"] != "Active" {
			t.Errorf("contact %d: CustomerNr %v, Status %v; want %s (the owner's key) and Active (the contacts' default)", i, c["CustomerNr"], c["Status"], nr)
		}
	}
	if c, k := s.Total(t, kit.DemoAPI, "customers"), s.Total(t, kit.DemoAPI, "contacts"); c != customers+1 || k != contacts+2 {
		t.Errorf("after the create: %d customers, %d contacts; want %d and %d", c, k, customers+1, contacts+2)
	}
	s.ExpectEvents(t, feed, kit.DemoAPI, start, s.Event("customers", catalog.EventCreated, nr, "Name", s.readName(t, "customers", "contacts")))
	// Logged on the customer, on each contact, and on the customer for each line.
	s.ExpectLog(t, kit.DemoAPI, "customers", nr, kit.LogEntry{Action: "create"}, kit.LogEntry{Action: "create line"}, kit.LogEntry{Action: "create line"})
	for _, c := range lines {
		s.ExpectLog(t, kit.DemoAPI, "contacts", kit.KeyIn(t, c, "Id"), kit.LogEntry{Action: "create"})
	}
}

// testRefusedLinesLeaveNothing: an order or quote with a line the rules
// refuse leaves no record, no line, no event and no number used (where
// the store's series give numbers back).
func testRefusedLinesLeaveNothing(t *testing.T, s *suite) {
	s.Demo(t, "orders/lines", "quotes/times", "orderlines.DiscountPct", "times.StopDate", "times.Date", "times.Hours",
		"orders.CustomerNr", "quotes.CustomerNr", "materials")
	feed := s.Feed(t)
	lines := func() int {
		return s.Total(t, kit.DemoAPI, "orderlines") + s.Total(t, kit.DemoAPI, "times") + s.Total(t, kit.DemoAPI, "materials")
	}
	for _, tc := range []struct {
		register, list string
		lines          []engine.Input
		detail         string
	}{
		{"orders", "lines", []engine.Input{
			kit.Values(map[string]any{"ProductNr": "4001", "Quantity": 1.0}),
			kit.Values(map[string]any{"ProductNr": "4002", "Quantity": 1.0, "DiscountPct": -1.0}),
		}, "lines[1]: DiscountPct must be from 0 to 100, not -1"},
		{"quotes", "times", []engine.Input{
			kit.Values(map[string]any{"TimeType": "Normaltid", "Hours": 1.0}),
			kit.Values(map[string]any{"TimeType": "Normaltid", "Hours": 1.0, "Date": "2025-06-02", "StopDate": "2025-06-01"}),
		}, "times[1]: StopDate 2025-06-01 is before Date 2025-06-02"},
	} {
		t.Run(tc.register, func(t *testing.T) {
			first := s.MustCreateIn(t, kit.DemoAPI, tc.register, kit.Values(map[string]any{"CustomerNr": "1001"}))
			nr, err := numberOf(first)
			if err != nil {
				t.Fatal(err)
			}
			var start int64
			if feed != nil {
				start = s.FeedEnd(t, feed, kit.DemoAPI)
			}
			records, lineCount := s.Total(t, kit.DemoAPI, tc.register), lines()

			in := kit.Values(map[string]any{"CustomerNr": "1001"})
			in.Lines = map[string][]engine.Input{tc.list: tc.lines}
			_, err = s.CreateIn(kit.DemoAPI, tc.register, in)
			refusedWith(t, err, "Create "+tc.register+" with a refused line", tc.detail)
			if r, l := s.Total(t, kit.DemoAPI, tc.register), lines(); r != records || l != lineCount {
				t.Errorf("after the refused create: %d %s and %d lines; want %d and %d as before", r, tc.register, l, records, lineCount)
			}
			s.ExpectEvents(t, feed, kit.DemoAPI, start)
			next := s.MustCreateIn(t, kit.DemoAPI, tc.register, kit.Values(map[string]any{"CustomerNr": "1001"}))
			s.expectNextNumber(t, next, nr, "the refused create used no number")
			// The refused create had that number: it logged nothing on it.
			s.ExpectLog(t, kit.DemoAPI, tc.register, kit.KeyIn(t, next, "Nr"), kit.LogEntry{Action: "create"})
		})
	}
}

// numberOf is a record's Nr as a number.
func numberOf(rec engine.Record) (int, error) {
	var n int
	_, err := fmt.Sscan(kit.Text(rec, "Nr"), &n)
	if err != nil {
		return 0, fmt.Errorf("Nr %#v is no number: %v", rec["Nr"], err)
	}
	return n, nil
}

// testLineWritesOnTheFeed: a write of a line is an event of the line's
// own register, and shows in its owner's read shape — the quote's for a
// quote's time, not a task's with the same number; a standalone time
// has no owner. (The change log also logs a line's writes on its owner:
// the port cannot read that yet.)
func testLineWritesOnTheFeed(t *testing.T, s *suite) {
	s.Demo(t, "orders/lines", "orderlines.Price", "quotes/times", "tasks/times", "tasks.Nr", "times.OwnerType", "times.OwnerNr",
		"times.Hours", "times.StopDate", "times.UserSign")
	feed := s.Feed(t)
	var start int64
	if feed != nil {
		start = s.FeedEnd(t, feed, kit.DemoAPI)
	}
	linesName := s.readName(t, "orders", "lines")
	in := kit.Values(map[string]any{"CustomerNr": "1001"})
	in.AddLine("lines", kit.Values(map[string]any{"ProductNr": "4001", "Quantity": 1.0}))
	order := s.MustCreateIn(t, kit.DemoAPI, "orders", in)
	nr := kit.KeyIn(t, order, "Nr")
	orderLines := order.Lines(linesName)
	if len(orderLines) != 1 {
		t.Fatalf("the order carries %d lines; want 1", len(orderLines))
	}
	lineID := kit.KeyIn(t, orderLines[0], "Id")
	s.MustUpdateIn(t, kit.DemoAPI, "orderlines", lineID, kit.Values(map[string]any{"Price": 10.0}))
	if got := s.Get(t, kit.DemoAPI, "orders", nr).Lines(linesName); len(got) != 1 || got[0]["Price"] != 10.0 {
		t.Errorf("the order's lines after the line's update: %v; want the one line with Price 10", got)
	}
	s.ExpectEvents(t, feed, kit.DemoAPI, start,
		s.Event("orders", catalog.EventCreated, nr, "CustomerNr", linesName),
		s.Event("orderlines", catalog.EventUpdated, lineID, "Price"))
	s.ExpectLog(t, kit.DemoAPI, "orders", nr, kit.LogEntry{Action: "create"}, kit.LogEntry{Action: "create line"}, kit.LogEntry{Action: "update line"})
	s.ExpectLog(t, kit.DemoAPI, "orderlines", lineID, kit.LogEntry{Action: "create"}, kit.LogEntry{Action: "update", Detail: "Price"})

	// A time on a quote belongs to the quote, not to a task with that number.
	quoteTimes, err := s.Engine.List(context.Background(), kit.DemoAPI, "times", engine.Query{Limit: 1, Where: []engine.Condition{kit.Equals("OwnerType", "quote")}})
	if err != nil || len(quoteTimes.Records) == 0 {
		t.Fatalf("List times of quotes: %v (%d records); the demo data has some", err, len(quoteTimes.Records))
	}
	qt := quoteTimes.Records[0]
	qtID, owner := kit.KeyIn(t, qt, "Id"), kit.KeyIn(t, qt, "OwnerNr")
	var taskLog []kit.LogEntry // the task with the quote's number: its own create, if the test makes it
	if _, err := s.Engine.Get(context.Background(), kit.DemoAPI, "tasks", owner); errors.Is(err, engine.ErrNotFound) {
		s.MustCreateIn(t, kit.DemoAPI, "tasks", kit.Values(map[string]any{"Nr": owner, "CustomerNr": "1001"}))
		taskLog = []kit.LogEntry{{Action: "create"}}
	}
	if feed != nil {
		start = s.FeedEnd(t, feed, kit.DemoAPI)
	}
	s.MustUpdateIn(t, kit.DemoAPI, "times", qtID, kit.Values(map[string]any{"Hours": 7.0}))
	s.ExpectEvents(t, feed, kit.DemoAPI, start, s.Event("times", catalog.EventUpdated, qtID, "Hours"))
	if !slices.ContainsFunc(s.Get(t, kit.DemoAPI, "quotes", owner).Lines(s.readName(t, "quotes", "times")), func(r engine.Record) bool {
		return r["Id"] == qtID && r["Hours"] == 7.0
	}) {
		t.Errorf("quote %s does not carry its time %s with the Hours updated", owner, qtID)
	}
	for _, line := range s.Get(t, kit.DemoAPI, "tasks", owner).Lines(s.readName(t, "tasks", "times")) {
		if line["Id"] == qtID {
			t.Errorf("task %s carries quote %s's time %s", owner, owner, qtID)
		}
	}
	s.ExpectLog(t, kit.DemoAPI, "quotes", owner, kit.LogEntry{Action: "update line"})
	s.ExpectLog(t, kit.DemoAPI, "tasks", owner, taskLog...)

	// A standalone entry has no owner: it is its own.
	if feed != nil {
		start = s.FeedEnd(t, feed, kit.DemoAPI)
	}
	standalone := s.MustCreateIn(t, kit.DemoAPI, "times", kit.Values(map[string]any{"TimeType": "Semester", "UserSign": "ANLI", "Date": "2025-08-04", "Hours": 5.0}))
	id := kit.KeyIn(t, standalone, "Id")
	if standalone["OwnerNr"] != nil || standalone["OwnerType"] != nil {
		t.Errorf("a standalone time has OwnerNr %#v, OwnerType %#v; want neither", standalone["OwnerNr"], standalone["OwnerType"])
	}
	s.MustUpdateIn(t, kit.DemoAPI, "times", id, kit.Values(map[string]any{"StopDate": "2025-08-09T00:00:00"}))
	s.ExpectEvents(t, feed, kit.DemoAPI, start,
		s.Event("times", catalog.EventCreated, id),
		s.Event("times", catalog.EventUpdated, id, "StopDate"))
	s.ExpectLog(t, kit.DemoAPI, "times", id, kit.LogEntry{Action: "create"}, kit.LogEntry{Action: "update", Detail: "StopDate"})
}

// expectNextNumber checks that rec, created after the record numbered
// last, got the next number of the series — or, where the store's series
// may skip numbers (Harness.NumbersMayGap), a higher one — and returns it.
func (s *suite) expectNextNumber(t *testing.T, rec engine.Record, last int, why string) string {
	t.Helper()
	nr, err := numberOf(rec)
	switch {
	case err != nil:
		t.Errorf("Nr %v: %v", rec["Nr"], err)
	case s.NumbersMayGap && nr <= last:
		t.Errorf("Nr = %d; want a number above %d: numbers increase", nr, last)
	case !s.NumbersMayGap && nr != last+1:
		t.Errorf("Nr = %d; want %d: %s", nr, last+1, why)
	}
	nrText, _ := rec["Nr"].(string)
	return nrText
}
