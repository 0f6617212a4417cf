package sqlengine

import (
	"context"
	"slices"

	"fieldapi/engine"
)

// Time-line rules (spec 2.3, 4.5). A time line hangs off a task, quote or
// contract (OwnerNr, OwnerType), or off nothing: a standalone entry, a
// calendar booking or absence made by POST /v1/times.
//
// Dates are kept exactly as sent: the engine never adjusts StopDate (an
// all-day entry is sent with its stop at midnight after the last day),
// never derives Hours from the clock times, and computes no stop of its own.

func timeRules() *registerRules {
	return ownerLines(&registerRules{
		prepareCreate: func(ctx context.Context, w *writer, _ *table, values map[string]any) error {
			return w.checkTime(ctx, values, values)
		},
		prepareUpdate: func(ctx context.Context, w *writer, _ *table, current engine.Record, values map[string]any) error {
			after := map[string]any{}
			for name, v := range current {
				after[name] = v
			}
			for name, v := range values {
				after[name] = v
			}
			return w.checkTime(ctx, after, values)
		},
	})
}

// checkTime checks a time line as it will be stored (entry); changed holds
// the fields this write sets. The date rules run only when a date or the
// time type changes: an entry once accepted stays editable, even if its
// time type loses BookingType in the engine's administration later.
func (w *writer) checkTime(ctx context.Context, entry, changed map[string]any) error {
	_, dateChanged := changed["Date"]
	_, stopChanged := changed["StopDate"]
	_, typeChanged := changed["TimeType"]
	if dateChanged || stopChanged {
		if err := w.checkStopAfterStart(ctx, entry); err != nil {
			return err
		}
	}
	if !isEmpty(entry["OwnerNr"]) {
		return nil
	}
	for _, name := range []string{"Date", "UserSign"} {
		if isEmpty(entry[name]) {
			return engine.Refuse("%s is required for a standalone entry (a booking or absence in a user's calendar)", name)
		}
	}
	if dateChanged || typeChanged {
		return w.checkBookingType(ctx, entry)
	}
	return nil
}

// checkStopAfterStart refuses an entry that stops before it starts.
func (w *writer) checkStopAfterStart(ctx context.Context, entry map[string]any) error {
	start, _ := entry["Date"].(string)
	stop, _ := entry["StopDate"].(string)
	if start == "" || stop == "" {
		return nil
	}
	loc, err := w.location(ctx)
	if err != nil {
		return err
	}
	from, err := parseDateIn(start, loc)
	if err != nil {
		return engine.Refuse("Date: %v", err)
	}
	to, err := parseDateIn(stop, loc)
	if err != nil {
		return engine.Refuse("StopDate: %v", err)
	}
	if to.Before(from) {
		return engine.Refuse("StopDate %s is before Date %s", stop, start)
	}
	return nil
}

// checkBookingType: a standalone entry that starts tomorrow or later, in
// the company's time zone, needs a time type with BookingType true (spec
// 4.5 rule 5); today and earlier have no such restriction.
func (w *writer) checkBookingType(ctx context.Context, entry map[string]any) error {
	loc, err := w.location(ctx)
	if err != nil {
		return err
	}
	date, _ := entry["Date"].(string)
	startDay, err := dayIn(date, loc)
	if err != nil {
		return engine.Refuse("Date: %v", err)
	}
	today := w.moment().In(loc).Format(dateLayout)
	if startDay <= today {
		return nil
	}
	name, _ := entry["TimeType"].(string)
	timeType, err := w.referenced(ctx, w.e.tables["timetypes"], name)
	if err != nil {
		return err
	}
	if booking, _ := timeType["BookingType"].(bool); booking {
		return nil
	}
	valid, err := w.timeTypeNames(ctx, true)
	if err != nil {
		return err
	}
	return engine.Refuse("time type %q cannot be booked ahead: the entry starts %s, after today (%s, %s); use a booking time type",
		name, startDay, today, loc).WithValid(valid...)
}

// timeTypeRules make a refused time type name list the company's time
// types in validValues (spec 7 rule 1).
func timeTypeRules() *registerRules {
	return &registerRules{validKeys: func(ctx context.Context, w *writer) ([]string, error) {
		return w.timeTypeNames(ctx, false)
	}}
}

// timeTypeNames are the whole names of the company's time types in use
// (not archived, as GET /v1/timetypes lists them), booking types only
// when asked, in the order the company set them up.
func (w *writer) timeTypeNames(ctx context.Context, bookingOnly bool) ([]string, error) {
	t := w.e.tables["timetypes"]
	recs, _, err := w.e.fetch(ctx, w.tx, t, w.s.Company, ` ORDER BY "seq"`)
	if err != nil {
		return nil, err
	}
	names := []string{}
	for _, rec := range recs {
		booking, _ := rec["BookingType"].(bool)
		if rec["Status"] == "Archived" || (bookingOnly && !booking) {
			continue
		}
		names = append(names, rec["Name"].(string))
	}
	return names, nil
}

// ownerLines adds to the rules of a line register whose records hang off
// owners of several types (times, materials) the ownerType list filter.
func ownerLines(r *registerRules) *registerRules {
	r.listCondition = ownerTypeCondition
	return r
}

// The owner types of time and material lines (spec 2.3), and the
// ownerType filter value that lists standalone entries, which have none.
var (
	ownerTypes          = []string{"task", "quote", "order", "contract"}
	standaloneOwnerType = "none"
)

// ownerTypeCondition checks the ownerType filter of a list: one of the
// owner types, or "none" for standalone entries (OwnerType null).
func ownerTypeCondition(c engine.Condition) (engine.Condition, error) {
	if c.Field != "OwnerType" || c.Op != engine.OpEquals || len(c.Values) != 1 {
		return c, nil
	}
	value, _ := c.Values[0].(string)
	switch {
	case value == standaloneOwnerType:
		c.Values = []any{nil}
	case !slices.Contains(ownerTypes, value):
		return c, engine.Refuse("ownerType %q is not an owner type", value).WithValid(append(slices.Clone(ownerTypes), standaloneOwnerType)...)
	}
	return c, nil
}
