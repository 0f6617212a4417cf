package rules

import (
	"context"

	"fieldapi/catalog"
	"fieldapi/engine"
	"fieldapi/engine/names"
)

// timeBooking: time-line rules (spec 2.3, 4.5). A time line hangs off a
// task, quote or contract (OwnerNr, OwnerType), or off nothing: a
// standalone entry, a calendar booking or absence made by POST /v1/times.
//
// Dates are kept exactly as sent: the engine never adjusts StopDate (an
// all-day entry is sent with its stop at midnight after the last day),
// never derives Hours from the clock times, and computes no stop of its own.
type timeBooking struct{}

// timeFields are the fields of a time line the rules check.
var timeFields = []string{names.TimeDate, names.TimeStopDate, names.TimeTimeType, names.TimeOwnerNr, names.TimeUserSign}

func (timeBooking) Name() string     { return "the time booking rules" }
func (timeBooking) Register() string { return names.Times }
func (timeBooking) Needs() []Need {
	return append([]Need{
		Field(names.Times, names.TimeDate, catalog.Date),
		Field(names.Times, names.TimeStopDate, catalog.Date),
		Field(names.Times, names.TimeTimeType, catalog.Text),
		Field(names.Times, names.TimeOwnerNr, catalog.Text),
		Field(names.Times, names.TimeUserSign, catalog.Text),
	}, timeTypeKeys{}.Needs()...)
}

func (timeBooking) PrepareCreate(ctx context.Context, tx Tx, values Values) error {
	return checkTime(ctx, tx, values, values)
}

func (timeBooking) PrepareUpdate(ctx context.Context, tx Tx, current engine.Record, values Values) error {
	return checkTime(ctx, tx, valuesAfter(current, values, timeFields), values)
}

// checkTime checks a time line as it will be stored (entry); changed holds
// the fields this write sets. The date rules run only when a date or the
// time type changes: an entry once accepted stays editable, even if its
// time type loses BookingType in the engine's administration later.
func checkTime(ctx context.Context, tx Tx, entry, changed Values) error {
	_, dateChanged := changed[names.TimeDate]
	_, stopChanged := changed[names.TimeStopDate]
	_, typeChanged := changed[names.TimeTimeType]
	if dateChanged || stopChanged {
		if err := checkStopAfterStart(ctx, tx, entry); err != nil {
			return err
		}
	}
	if !engine.Empty(entry[names.TimeOwnerNr]) {
		return nil
	}
	for _, name := range []string{names.TimeDate, names.TimeUserSign} {
		if engine.Empty(entry[name]) {
			return engine.Refuse("%s is required for a standalone entry (a booking or absence in a user's calendar)", name)
		}
	}
	if dateChanged || typeChanged {
		return checkBookingType(ctx, tx, entry)
	}
	return nil
}

// checkStopAfterStart refuses an entry that stops before it starts.
func checkStopAfterStart(ctx context.Context, tx Tx, entry Values) error {
	start, stop := text(entry, names.TimeDate), text(entry, names.TimeStopDate)
	if start == "" || stop == "" {
		return nil
	}
	loc, err := tx.Location(ctx)
	if err != nil {
		return err
	}
	from, err := engine.ParseDate(start, loc)
	if err != nil {
		return engine.Refuse("%s: %v", names.TimeDate, err)
	}
	to, err := engine.ParseDate(stop, loc)
	if err != nil {
		return engine.Refuse("%s: %v", names.TimeStopDate, err)
	}
	if to.Before(from) {
		return engine.Refuse("%s %s is before %s %s", names.TimeStopDate, stop, names.TimeDate, start)
	}
	return nil
}

// checkBookingType: a standalone entry that starts tomorrow or later, in
// the company's time zone, needs a time type with BookingType true (spec
// 4.5 rule 5); today and earlier have no such restriction.
func checkBookingType(ctx context.Context, tx Tx, entry Values) error {
	loc, err := tx.Location(ctx)
	if err != nil {
		return err
	}
	startDay, err := dayIn(text(entry, names.TimeDate), loc)
	if err != nil {
		return engine.Refuse("%s: %v", names.TimeDate, err)
	}
	today := tx.Now().In(loc).Format(dateLayout)
	if startDay <= today {
		return nil
	}
	name := text(entry, names.TimeTimeType)
	timeType, err := tx.Referenced(ctx, names.TimeTypes, name)
	if err != nil {
		return err
	}
	if booking, _ := timeType[names.TimeTypeBookingType].(bool); booking {
		return nil
	}
	valid, err := timeTypeNames(ctx, tx, true)
	if err != nil {
		return err
	}
	return engine.Refuse("time type %q cannot be booked ahead: the entry starts %s, after today (%s, %s); use a booking time type",
		name, startDay, today, loc).WithValid(valid...)
}

// timeTypeKeys make a refused time type name list the company's time
// types in validValues (spec 7 rule 1).
type timeTypeKeys struct{}

func (timeTypeKeys) Name() string     { return "the time type rules" }
func (timeTypeKeys) Register() string { return names.TimeTypes }
func (timeTypeKeys) Needs() []Need {
	return []Need{
		Field(names.TimeTypes, names.TimeTypeName, catalog.Text),
		Field(names.TimeTypes, names.TimeTypeStatus, catalog.Text),
		Field(names.TimeTypes, names.TimeTypeBookingType, catalog.Bool),
	}
}

func (timeTypeKeys) ValidKeys(ctx context.Context, tx Tx) ([]string, error) {
	return timeTypeNames(ctx, tx, false)
}

// timeTypeNames are the whole names of the company's time types in use
// (not archived, as GET /v1/timetypes lists them), booking types only when
// asked, in the order the company set them up.
func timeTypeNames(ctx context.Context, tx Tx, bookingOnly bool) ([]string, error) {
	recs, err := tx.Records(ctx, names.TimeTypes)
	if err != nil {
		return nil, err
	}
	list := []string{}
	for _, rec := range recs {
		booking, _ := rec[names.TimeTypeBookingType].(bool)
		if rec[names.TimeTypeStatus] == "Archived" || (bookingOnly && !booking) {
			continue
		}
		list = append(list, text(rec, names.TimeTypeName))
	}
	return list, nil
}
