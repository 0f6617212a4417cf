package sqlengine

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"time"
	_ "time/tzdata" // zone names resolve on servers without a zone database (Windows)
)

// The company's calendar, as the order, quote and time rules read it.
//
// "Today" is the date of the write's moment in the company's time zone,
// the IANA name in the company's "timezone" setting (the demo companies:
// Europe/Stockholm and Europe/Oslo); a company without one runs on UTC.
// Dates without a zone are wall-clock dates and times of that zone.

// Company settings (table settings) the rules read.
const (
	settingTimeZone      = "timezone"            // IANA zone name; default UTC
	settingQuoteValidity = "quotes.validityDays" // whole days; default 30 (spec 8)
)

const defaultQuoteValidityDays = 30

// dateLayout is a date without time: text order is date order.
const dateLayout = "2006-01-02"

// setting reads one setting of the writer's company; ok is false when the
// company has none.
func (w *writer) setting(ctx context.Context, name string) (value string, ok bool, err error) {
	err = get(ctx, w.tx, &value, `SELECT "value" FROM "settings" WHERE "company" = ? AND "name" = ?`, w.s.Company, name)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	return value, err == nil, err
}

// location is the company's time zone.
func (w *writer) location(ctx context.Context) (*time.Location, error) {
	name, ok, err := w.setting(ctx, settingTimeZone)
	if err != nil || !ok {
		return time.UTC, err
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("company %s: setting %s: %w", w.s.Company, settingTimeZone, err)
	}
	return loc, nil
}

// moment is the instant of the write (the Modified of what it writes).
func (w *writer) moment() time.Time {
	if t, err := parseTime(w.now); err == nil {
		return t
	}
	return w.e.opt.Now() // not reached: w.now is formatTime's output
}

// quoteValidityDays is how long a quote is valid when created without a
// validity date.
func (w *writer) quoteValidityDays(ctx context.Context) (int, error) {
	text, ok, err := w.setting(ctx, settingQuoteValidity)
	if err != nil || !ok {
		return defaultQuoteValidityDays, err
	}
	days, err := strconv.Atoi(text)
	if err != nil || days < 0 {
		return 0, fmt.Errorf("company %s: setting %s: %q is not a whole number of days", w.s.Company, settingQuoteValidity, text)
	}
	return days, nil
}

// parseDateIn reads a date or date-time as stored (see isISODate). One
// without a zone is wall-clock time in loc; a date alone is its midnight.
func parseDateIn(s string, loc *time.Location) (time.Time, error) {
	for _, layout := range isoLayouts {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not an ISO 8601 date or date-time", s)
}

// dayIn is the date on which s falls in loc.
func dayIn(s string, loc *time.Location) (string, error) {
	t, err := parseDateIn(s, loc)
	if err != nil {
		return "", err
	}
	return t.In(loc).Format(dateLayout), nil
}

// addDays is the date days after the date on which s is written (its
// first ten characters: the wall-clock date it was given in).
func addDays(s string, days int) (string, error) {
	if len(s) < len(dateLayout) {
		return "", fmt.Errorf("%q is not an ISO 8601 date", s)
	}
	d, err := time.Parse(dateLayout, s[:len(dateLayout)])
	if err != nil {
		return "", err
	}
	return d.AddDate(0, 0, days).Format(dateLayout), nil
}
