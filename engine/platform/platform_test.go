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
