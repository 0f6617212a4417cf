package jsontext

import (
	"encoding/json"
	"math"
	"testing"
)

// FuzzAsEncodingJSON: any text and any finite number are written as
// encoding/json writes them (go test -fuzz FuzzAsEncodingJSON
// ./internal/jsontext; the seeds run with go test).
func FuzzAsEncodingJSON(f *testing.F) {
	f.Add("plain", 1.5)
	f.Add("<&>\u2028\u2029\x00\x1f\xff", 1e21)
	f.Add("\"\\\t\b\f\n\r", -9.99e-7)
	f.Add("åäö €", 0.0)
	f.Fuzz(func(t *testing.T, s string, n float64) {
		want, _ := json.Marshal(s)
		if got := AppendString(nil, s); string(got) != string(want) {
			t.Errorf("AppendString(%q) = %s; encoding/json writes %s", s, got, want)
		}
		m := map[string]string{s: s, "a" + s: "", "": s}
		want, _ = json.Marshal(m)
		if got := AppendStringMap(nil, m); string(got) != string(want) {
			t.Errorf("AppendStringMap(%q) = %s; encoding/json writes %s", m, got, want)
		}
		list := []string{s, "", s}
		want, _ = json.Marshal(list)
		if got := AppendStrings(nil, list); string(got) != string(want) {
			t.Errorf("AppendStrings(%q) = %s; encoding/json writes %s", list, got, want)
		}
		if math.IsNaN(n) || math.IsInf(n, 0) {
			if _, err := AppendFloat(nil, n); err == nil {
				t.Errorf("AppendFloat(%v) wrote a number; encoding/json refuses it", n)
			}
			return
		}
		want, _ = json.Marshal(n)
		if got, err := AppendFloat(nil, n); err != nil || string(got) != string(want) {
			t.Errorf("AppendFloat(%v) = %s, %v; encoding/json writes %s", n, got, err, want)
		}
	})
}
