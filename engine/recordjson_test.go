package engine

import (
	"encoding/json"
	"math"
	"testing"
)

// checkAsMarshal fails the test unless AppendJSON writes what json.Marshal
// writes for rec.
func checkAsMarshal(t *testing.T, rec Record) {
	t.Helper()
	want, wantErr := json.Marshal(rec)
	got, err := rec.AppendJSON(nil)
	if (err != nil) != (wantErr != nil) || string(got) != string(want) {
		t.Errorf("AppendJSON:\n got %s (%v)\nwant %s (%v)", got, err, want, wantErr)
	}
}

// TestRecordJSONAsMarshal: every kind of value a record holds, empty and
// nil ones, lines, and types outside the documented ones.
func TestRecordJSONAsMarshal(t *testing.T) {
	for _, rec := range []Record{
		nil,
		{},
		{"Nr": "10001", "Price": 12.5, "Big": 1e21, "Small": -9.99e-7, "Zero": 0.0, "Done": true, "Note": nil,
			"Tags": []string{"a", "<b>"}, "NoTags": []string(nil), "EmptyTags": []string{},
			"ExtraFields": map[string]string{"z": "1", "a": "&"}, "NoExtra": map[string]string(nil),
			"Materials": []Record{{"Id": "7", "Qty": 2.0}, nil}, "NoLines": []Record(nil), "EmptyLines": []Record{},
			"Customer": Record{"Nr": "1001"}, "Count": int64(3), "Any": []any{"x", 1.0}},
		{"Ä": "\u2028\x00\xff", "a": "\"\\\t"},
		{"NaN": math.NaN()},
	} {
		checkAsMarshal(t, rec)
	}
}

// FuzzRecordJSONAsMarshal: any text in names and values and any number
// (go test -fuzz FuzzRecordJSONAsMarshal ./engine).
func FuzzRecordJSONAsMarshal(f *testing.F) {
	f.Add("Nr", "<&>\u2028", 1.5)
	f.Add("\xff", "\x00", 1e-7)
	f.Fuzz(func(t *testing.T, name, s string, n float64) {
		checkAsMarshal(t, Record{name: s, "n": n, "lines": []Record{{name: n, "x": []string{s}}},
			"extra": map[string]string{s: name}})
	})
}

// BenchmarkAppendJSON: a task with its lines, as its events record it.
func BenchmarkAppendJSON(b *testing.B) {
	task := benchTask()
	buf := make([]byte, 0, 4096)
	for b.Loop() {
		if _, err := task.AppendJSON(buf[:0]); err != nil {
			b.Fatal(err)
		}
	}
}
