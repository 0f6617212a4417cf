package rules

import (
	"fmt"
	"time"
)

// Dates as the rules read them. Values are ISO 8601 as the engine accepts
// them (a date, or a date-time with or without a zone) and are kept as
// sent; one without a zone is wall-clock time in the company's zone.

// dateLayout is a date without time: text order is date order.
const dateLayout = "2006-01-02"

// isoLayouts are the date and date-time forms the engine accepts.
var isoLayouts = []string{
	dateLayout,
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999",
	"2006-01-02T15:04",
	"2006-01-02T15:04Z07:00",
	"2006-01-02 15:04:05",
	"2006-01-02 15:04",
}

// parseDateIn reads a date or date-time. One without a zone is wall-clock
// time in loc; a date alone is its midnight.
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
