package rules

import (
	"fmt"
	"time"

	"fieldapi/engine"
)

// Dates as the rules read them. Values are ISO 8601 as the engine accepts
// them (a date, or a date-time with or without a zone) and are kept as
// sent; one without a zone is wall-clock time in the company's zone.

// dateLayout is a date without time: text order is date order.
const dateLayout = "2006-01-02"

// dayIn is the date on which s falls in loc.
func dayIn(s string, loc *time.Location) (string, error) {
	t, err := engine.ParseDate(s, loc)
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
