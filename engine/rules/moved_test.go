package rules

import (
	"testing"
	"time"

	"github.com/matryer/is"

	"fieldapi/engine"
	"fieldapi/engine/names"
)

func TestTotalPrice(t *testing.T) {
	cases := []struct {
		line  map[string]any
		total float64
	}{
		{map[string]any{}, 0},
		{map[string]any{"Quantity": 3.0}, 0},
		{map[string]any{"Quantity": 3.0, "Price": 19.99}, 59.97},
		{map[string]any{"Quantity": 2.0, "Price": 100.0, "DiscountPct": 12.5}, 175},
		{map[string]any{"Quantity": 2.0, "Price": 100.0, "DiscountPrice": 15.0}, 170},
		{map[string]any{"Quantity": 2.0, "Price": 100.0, "DiscountPrice": 15.0, "DiscountPct": 10.0}, 153},
		{map[string]any{"Quantity": -1.0, "Price": 100.0}, -100}, // a credit line
	}
	for _, c := range cases {
		out := map[string]any{}
		if err := setTotalPrice(c.line, out); err != nil {
			t.Fatalf("%v: %v", c.line, err)
		}
		if out["TotalPrice"] != c.total {
			t.Errorf("%v: TotalPrice %v, want %v", c.line, out["TotalPrice"], c.total)
		}
	}
	for _, bad := range []map[string]any{{"DiscountPct": 100.5}, {"DiscountPct": -1.0}, {"DiscountPrice": -0.01}} {
		if err := setTotalPrice(bad, map[string]any{}); err == nil {
			t.Errorf("%v: accepted", bad)
		}
	}
}

func TestDayIn(t *testing.T) {
	oslo, err := time.LoadLocation("Europe/Oslo")
	if err != nil {
		t.Fatal(err)
	}
	for s, want := range map[string]string{
		"2026-03-11":                "2026-03-11",
		"2026-03-11T00:00:00":       "2026-03-11", // wall-clock time in Oslo
		"2026-03-10T23:30:00Z":      "2026-03-11", // 00:30 in Oslo
		"2026-03-11T00:30:00+02:00": "2026-03-10", // 23:30 in Oslo
		"2026-03-10T23:30Z":         "2026-03-11",
	} {
		got, err := dayIn(s, oslo)
		if err != nil || got != want {
			t.Errorf("dayIn(%q) = %q, %v; want %q", s, got, err, want)
		}
	}
}

var timesOwnerType = ownerTypeFilter{register: names.Times, field: names.TimeOwnerType}

func TestOwnerTypeCondition(t *testing.T) {
	is := is.New(t)
	c, err := timesOwnerType.ListCondition(engine.Condition{Field: "OwnerType", Op: engine.OpEquals, Values: []any{"none"}})
	is.NoErr(err)
	is.Equal(c.Values, []any{nil}) // standalone: OwnerType IS NULL
	c, err = timesOwnerType.ListCondition(engine.Condition{Field: "OwnerType", Op: engine.OpEquals, Values: []any{"contract"}})
	is.NoErr(err)
	is.Equal(c.Values, []any{"contract"})
	_, err = timesOwnerType.ListCondition(engine.Condition{Field: "OwnerType", Op: engine.OpEquals, Values: []any{"Task"}})
	is.Equal(refusal(t, err).ValidValues, []string{"task", "quote", "order", "contract", "none"})
	c, err = timesOwnerType.ListCondition(engine.Condition{Field: "OwnerNr", Op: engine.OpEquals, Values: []any{"none"}})
	is.NoErr(err)
	is.Equal(c.Values, []any{"none"}) // other fields pass as they are
}

func TestPlanDayEnds(t *testing.T) {
	is := is.New(t)
	for in, want := range map[string]string{
		"2025-09-01":                  "2025-09-01",
		"2025-09-01T08:00":            "2025-09-01T23:59:59",
		"2025-09-01T08:00:00Z":        "2025-09-01T23:59:59Z",
		"2025-09-01T08:00:00.5+02:00": "2025-09-01T23:59:59+02:00",
		"2025-09-01T08:00-05:00":      "2025-09-01T23:59:59-05:00",
	} {
		is.Equal(endOfDay(in), want)
	}
}
