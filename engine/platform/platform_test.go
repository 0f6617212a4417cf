package platform_test

import (
	"encoding/json"
	"testing"

	"fieldapi/engine"
	"fieldapi/engine/platform"
)

// TestRecordedIsAnEvent: an event's payload written without its position
// and given it later through Recorded is the payload the event makes with
// that position, byte for byte, whatever its data holds.
func TestRecordedIsAnEvent(t *testing.T) {
	ev := platform.Event{
		ID: "evt_1", Type: "task.updated", OccurredAt: "2026-11-25T10:00:00Z", Company: "demo", Register: "tasks", Key: "10001",
		Actor: platform.Actor{ClientID: "c", Sign: "API"}, ChangedFields: []string{"TaskNote", "ExtraFields.Colour"},
		Data: engine.Record{"Nr": "10001", "Hours": 1.25, "Big": 12345678901234567.0, "Text": "<b>Åsa & \"co\"</b>\u2028",
			"None": nil, "Lines": []any{map[string]any{"Z": 1.0, "A": true}}, "ExtraFields": map[string]string{"Colour": "röd"}},
	}
	unpositioned, err := ev.Payload()
	if err != nil {
		t.Fatal(err)
	}
	var rec platform.Recorded
	if err := json.Unmarshal(unpositioned, &rec); err != nil {
		t.Fatal(err)
	}
	rec.Position = 42
	got, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	ev.Position = 42
	want, err := ev.Payload()
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("positioned later:\n%s\nwant\n%s", got, want)
	}
}

// eventAsMarshal is an Event without its methods: encoding/json writes it
// by reflection, as Payload once did.
type eventAsMarshal platform.Event

// checkPayload fails the test unless Payload writes what json.Marshal
// writes for the event.
func checkPayload(t *testing.T, ev platform.Event) {
	t.Helper()
	want, wantErr := json.Marshal(eventAsMarshal(ev))
	got, err := ev.Payload()
	if (err != nil) != (wantErr != nil) || string(got) != string(want) {
		t.Errorf("Payload:\n got %s (%v)\nwant %s (%v)", got, err, want, wantErr)
	}
}

// TestPayloadAsMarshal: the hand-written payload is json.Marshal's, for
// events with and without changed fields and data.
func TestPayloadAsMarshal(t *testing.T) {
	checkPayload(t, platform.Event{})
	checkPayload(t, platform.Event{ID: "evt_1", Position: 42, Type: "task.created", OccurredAt: "2026-11-25T10:00:00Z",
		Company: "demo", Register: "tasks", Key: "10001", Actor: platform.Actor{ClientID: "c<1>", Sign: "API"},
		ChangedFields: []string{}, Data: engine.Record{"Nr": "10001", "Materials": []engine.Record{{"Id": "3", "Quantity": 2.0}}}})
}

// FuzzPayloadAsMarshal: any text in any field, any position and number
// (go test -fuzz FuzzPayloadAsMarshal ./engine/platform).
func FuzzPayloadAsMarshal(f *testing.F) {
	f.Add("evt_1", int64(7), "<&>\u2028\xff", 1.5)
	f.Fuzz(func(t *testing.T, id string, position int64, s string, n float64) {
		checkPayload(t, platform.Event{ID: id, Position: position, Type: s, OccurredAt: s, Company: s, Register: s, Key: s,
			Actor: platform.Actor{ClientID: s, Sign: id}, ChangedFields: []string{s, id},
			Data: engine.Record{s: n, "Lines": []engine.Record{{id: s}}}})
	})
}
