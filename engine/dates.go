package engine

import (
	"fmt"
	"time"
)

// dateLayouts are the ISO 8601 date and date-time forms an engine accepts
// in a date field; the first is a date alone.
var dateLayouts = []string{
	"2006-01-02",
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999",
	"2006-01-02T15:04",
	"2006-01-02T15:04Z07:00", // minutes with a zone, as the HTTP layer accepts
	"2006-01-02 15:04:05",
	"2006-01-02 15:04",
}

// ParseDate reads a date or date-time of a date field. One without a zone
// is wall-clock time in loc; a date alone is its midnight.
func ParseDate(s string, loc *time.Location) (time.Time, error) {
	for _, layout := range dateLayouts {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not an ISO 8601 date or date-time", s)
}

// IsDate reports whether s is a value a date field takes.
func IsDate(s string) bool {
	_, err := ParseDate(s, time.UTC)
	return err == nil
}
