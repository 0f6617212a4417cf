package sqlengine

import (
	"slices"
	"strings"
	"time"

	"fieldapi/engine"
)

// Plan dates of a task (spec 4.3 rule 3). The planned date is an interval
// (PlanStartDate, PlanStopDate) with a type. Only FromTo and Fixed carry a
// time of day; Day, Week and Month are dates only.
//
//   - Type omitted: dates without a time of day give Day, with one FromTo.
//     On an update the type the task has is kept while it fits the dates.
//   - Day, Week or Month with a clock time: refused, FromTo and Fixed valid.
//   - Stop omitted (or a start sent without a stop): the period runs to the
//     end of the start's day: 23:59:59 on a date-time, the date itself on
//     a date ("through that day").
//   - Day is one day: a stop that is sent is not used.
//   - A stop before the start, or a stop without a start: refused.
//
// Dates are kept as sent (with their zone, if any).

var (
	planDateTypes  = []string{"FromTo", "Day", "Week", "Month", "Fixed"}
	clockDateTypes = []string{"FromTo", "Fixed"}
)

// planDates completes and checks the plan fields of a write; current is
// the task before an update (nil on create). Nothing happens unless the
// write sends one of the three fields.
func planDates(current engine.Record, values map[string]any) error {
	_, startSent := values["PlanStartDate"]
	_, stopSent := values["PlanStopDate"]
	_, typeSent := values["PlanDateType"]
	if !startSent && !stopSent && !typeSent {
		return nil
	}
	field := func(name string) string {
		if v, sent := values[name]; sent {
			s, _ := v.(string)
			return s
		}
		s, _ := current[name].(string)
		return s
	}
	start, stop, kind := field("PlanStartDate"), field("PlanStopDate"), field("PlanDateType")
	if startSent && !stopSent {
		stop = "" // a new start begins a new period
	}
	if kind != "" && !slices.Contains(planDateTypes, kind) {
		return engine.Refuse("%q is not a plan date type", kind).WithValid(planDateTypes...)
	}
	if start == "" {
		if stop != "" {
			return engine.Refuse("PlanStopDate needs a PlanStartDate")
		}
		values["PlanStartDate"], values["PlanStopDate"] = nil, nil
		return nil
	}

	clock := hasClock(start) || hasClock(stop)
	if kind == "" || (!typeSent && clock && !slices.Contains(clockDateTypes, kind)) {
		kind = "Day"
		if clock {
			kind = "FromTo"
		}
	}
	if clock && !slices.Contains(clockDateTypes, kind) {
		return engine.Refuse("PlanDateType %s is dates only and takes no time of day; a time of day needs FromTo or Fixed", kind).
			WithValid(clockDateTypes...)
	}
	if stop == "" || kind == "Day" {
		stop = endOfDay(start)
	}
	if planEnd(stop).Before(planInstant(start)) {
		return engine.Refuse("PlanStopDate %s is before PlanStartDate %s", stop, start)
	}
	values["PlanStartDate"], values["PlanStopDate"], values["PlanDateType"] = start, stop, kind
	return nil
}

// hasClock reports whether an ISO 8601 value carries a time of day.
func hasClock(s string) bool { return len(s) > len("2006-01-02") }

// endOfDay is the last moment of the day a plan date falls on, in its form:
// 23:59:59 with the same zone for a date-time, the date for a date.
func endOfDay(s string) string {
	if !hasClock(s) {
		return s
	}
	return s[:len("2006-01-02")] + "T23:59:59" + zoneOf(s)
}

// zoneOf is the zone suffix of a date-time ("Z", "+02:00"), or "".
func zoneOf(s string) string {
	if strings.HasSuffix(s, "Z") {
		return "Z"
	}
	if n := len(s); n > 16 && (s[n-6] == '+' || s[n-6] == '-') && s[n-3] == ':' {
		return s[n-6:]
	}
	return ""
}

// planInstant is when a plan date begins; a value without a zone is taken
// as UTC. The engine accepts only ISO 8601 (normalize), so parsing succeeds.
func planInstant(s string) time.Time {
	for _, layout := range isoLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t
		}
	}
	return time.Time{}
}

// planEnd is when a plan stop ends: a date runs through its whole day.
func planEnd(s string) time.Time {
	t := planInstant(s)
	if !hasClock(s) {
		t = t.Add(24*time.Hour - time.Nanosecond)
	}
	return t
}
