package writerules

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"fieldapi/catalog"
	"fieldapi/engine"
	"fieldapi/engine/enginetest/kit"
)

// modifiedLayout is how the reference engine writes Modified: UTC, fixed
// width, microseconds.
const modifiedLayout = "2006-01-02T15:04:05.000000Z"

// testDemoUpdate: an update changes the fields sent and nothing else, ""
// clears a text field, Modified becomes the engine clock's time of the
// write; the key cannot change; another company's record, an unknown key
// and a malformed engine key are not found; a date is checked and kept as
// sent, and "" clears it.
func testDemoUpdate(t *testing.T, s *suite) {
	s.Demo(t, "customers.Phone", "customers.Note", "customers.Name", "contacts.Position", "contacts.CustomerNr", "projects.PlanStopDate")
	ctx := context.Background()
	feed := s.Feed(t)
	var start int64
	if feed != nil {
		start = s.FeedEnd(t, feed, kit.DemoAPI)
	}
	before := s.Get(t, kit.DemoAPI, "customers", "1001")
	s.Clock.Advance(time.Hour)

	from := s.Clock.Now()
	after := s.MustUpdateIn(t, kit.DemoAPI, "customers", "1001", kit.Values(map[string]any{"Phone": "+46 8 000 00 00", "Note": ""}))
	to := s.Clock.Now()
	if after["Phone"] != "+46 8 000 00 00" || after["Note"] != "" {
		t.Errorf("after the update: Phone %#v, Note %#v; want +46 8 000 00 00 and \"\" (cleared to empty text)", after["Phone"], after["Note"])
	}
	for _, f := range s.Catalog.Register("customers").Fields {
		if f.Name != "Phone" && f.Name != "Note" && !reflect.DeepEqual(after[f.Name], before[f.Name]) {
			t.Errorf("%s = %#v after an update that did not send it; want %#v, untouched", f.Name, after[f.Name], before[f.Name])
		}
	}
	modified := kit.Text(after, "Modified")
	if m, err := time.Parse(modifiedLayout, modified); err != nil || m.Format(modifiedLayout) != modified || m.Before(from.UTC().Truncate(time.Microsecond)) || m.After(to) {
		t.Errorf("Modified = %q; want the engine clock's time of the update, between %s and %s, as %s", modified, from.Format(modifiedLayout), to.Format(modifiedLayout), modifiedLayout)
	}
	s.ExpectEvents(t, feed, kit.DemoAPI, start, s.Event("customers", catalog.EventUpdated, "1001", "Phone", "Note"))
	s.ExpectLog(t, kit.DemoAPI, "customers", "1001", kit.LogEntry{Action: "update", Detail: "Phone, Note"})

	// An update of a line is an event of the line's register (and is
	// logged on its owner too).
	contacts, err := s.Engine.List(ctx, kit.DemoAPI, "contacts", engine.Query{Limit: 1, Where: []engine.Condition{kit.Equals("CustomerNr", "1002")}})
	if err != nil || len(contacts.Records) != 1 {
		t.Fatalf("List contacts of customer 1002: %v (%d records); the demo data has one", err, len(contacts.Records))
	}
	id := kit.KeyIn(t, contacts.Records[0], "Id")
	if feed != nil {
		start = s.FeedEnd(t, feed, kit.DemoAPI)
	}
	if got := s.MustUpdateIn(t, kit.DemoAPI, "contacts", id, kit.Values(map[string]any{"Position": "VD"})); got["Position"] != "VD" {
		t.Errorf("contact %s: Position %v; want VD", id, got["Position"])
	}
	s.ExpectEvents(t, feed, kit.DemoAPI, start, s.Event("contacts", catalog.EventUpdated, id, "Position"))
	s.ExpectLog(t, kit.DemoAPI, "customers", "1002", kit.LogEntry{Action: "update line"})
	s.ExpectLog(t, kit.DemoAPI, "contacts", id, kit.LogEntry{Action: "update", Detail: "Position"})

	_, err = s.UpdateIn(kit.DemoAPI, "customers", "1001", kit.Values(map[string]any{"Nr": "2001"}))
	refusedWith(t, err, "Update of the key", "Nr cannot be changed")
	for _, nf := range []struct{ register, key, what string }{
		{"customers", "9999", "an unknown customer"},
		{"customers", "5001", "demo2's customer"},
		{"contacts", "not-a-number", "a malformed engine key"},
	} {
		if _, err := s.UpdateIn(kit.DemoAPI, nf.register, nf.key, kit.Values(map[string]any{"Name": "X"})); !errors.Is(err, engine.ErrNotFound) {
			t.Errorf("Update of %s (%s %s): %v; want engine.ErrNotFound", nf.what, nf.register, nf.key, err)
		}
	}

	s.ExpectLog(t, kit.DemoAPI, "customers", "1001", kit.LogEntry{Action: "update", Detail: "Phone, Note"}) // the refused updates logged nothing

	// A date is checked and kept as sent; "" clears it.
	if got := s.MustUpdateIn(t, kit.DemoAPI, "projects", "101", kit.Values(map[string]any{"PlanStopDate": "2025-12-01T16:30:00+01:00"})); got["PlanStopDate"] != "2025-12-01T16:30:00+01:00" {
		t.Errorf("PlanStopDate = %#v; want 2025-12-01T16:30:00+01:00, as sent", got["PlanStopDate"])
	}
	_, err = s.UpdateIn(kit.DemoAPI, "projects", "101", kit.Values(map[string]any{"PlanStopDate": "next week"}))
	refusedWith(t, err, "Update with a date that is none", `PlanStopDate: "next week" is not an ISO 8601 date or date-time`)
	if got := s.MustUpdateIn(t, kit.DemoAPI, "projects", "101", kit.Values(map[string]any{"PlanStopDate": ""})); got["PlanStopDate"] != nil {
		t.Errorf("PlanStopDate after \"\" = %#v; want nil", got["PlanStopDate"])
	}
}
