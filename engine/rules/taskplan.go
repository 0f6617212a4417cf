package rules

import (
	"context"
	"slices"
	"strings"
	"time"

	"fieldapi/catalog"
	"fieldapi/engine"
	"fieldapi/engine/names"
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
type taskPlan struct{}

var (
	planDateTypes  = []string{"FromTo", "Day", "Week", "Month", "Fixed"}
	clockDateTypes = []string{"FromTo", "Fixed"}
)

func (taskPlan) Name() string     { return "the task plan date rules" }
func (taskPlan) Register() string { return names.Tasks }
func (taskPlan) Needs() []Need {
	return []Need{
		Field(names.Tasks, names.TaskPlanStartDate, catalog.Date),
		Field(names.Tasks, names.TaskPlanStopDate, catalog.Date),
		EnumField(names.Tasks, names.TaskPlanDateType, planDateTypes),
	}
}

func (taskPlan) PrepareCreate(_ context.Context, _ Tx, values Values) error {
	return planDates(nil, values)
}

func (taskPlan) PrepareUpdate(_ context.Context, _ Tx, current engine.Record, values Values) error {
	return planDates(current, values)
}

// planDates completes and checks the plan fields of a write; current is
// the task before an update (nil on create). Nothing happens unless the
// write sends one of the three fields.
func planDates(current engine.Record, values Values) error {
	_, startSent := values[names.TaskPlanStartDate]
	_, stopSent := values[names.TaskPlanStopDate]
	_, typeSent := values[names.TaskPlanDateType]
	if !startSent && !stopSent && !typeSent {
		return nil
	}
	field := func(name string) string { // as the write leaves it, without a map per task write
		if _, sent := values[name]; sent {
			return text(values, name)
		}
		return text(current, name)
	}
	start, stop, kind := field(names.TaskPlanStartDate), field(names.TaskPlanStopDate), field(names.TaskPlanDateType)
	if startSent && !stopSent {
		stop = "" // a new start begins a new period
	}
	if kind != "" && !slices.Contains(planDateTypes, kind) {
		return engine.Refuse("%q is not a plan date type", kind).WithValid(planDateTypes...)
	}
	if start == "" {
		if stop != "" {
			return engine.Refuse("%s needs a %s", names.TaskPlanStopDate, names.TaskPlanStartDate)
		}
		values[names.TaskPlanStartDate], values[names.TaskPlanStopDate] = nil, nil
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
		return engine.Refuse("%s %s is dates only and takes no time of day; a time of day needs FromTo or Fixed", names.TaskPlanDateType, kind).
			WithValid(clockDateTypes...)
	}
	if stop == "" || kind == "Day" {
		stop = endOfDay(start)
	}
	if planEnd(stop).Before(planInstant(start)) {
		return engine.Refuse("%s %s is before %s %s", names.TaskPlanStopDate, stop, names.TaskPlanStartDate, start)
	}
	values[names.TaskPlanStartDate], values[names.TaskPlanStopDate], values[names.TaskPlanDateType] = start, stop, kind
	return nil
}

// hasClock reports whether an ISO 8601 value carries a time of day.
func hasClock(s string) bool { return len(s) > len(dateLayout) }

// endOfDay is the last moment of the day a plan date falls on, in its form:
// 23:59:59 with the same zone for a date-time, the date for a date.
func endOfDay(s string) string {
	if !hasClock(s) {
		return s
	}
	return s[:len(dateLayout)] + "T23:59:59" + zoneOf(s)
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
// as UTC. The engine accepts only ISO 8601, so parsing succeeds.
func planInstant(s string) time.Time {
	t, _ := engine.ParseDate(s, time.UTC)
	return t
}

// planEnd is when a plan stop ends: a date runs through its whole day.
func planEnd(s string) time.Time {
	t := planInstant(s)
	if !hasClock(s) {
		t = t.Add(24*time.Hour - time.Nanosecond)
	}
	return t
}
