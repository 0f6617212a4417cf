package sqlengine

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
	_ "time/tzdata" // zone names resolve on servers without a zone database (Windows)
)

// The company's calendar, as the rules read it (through ruleTx).
//
// "Today" is the date of the write's moment in the company's time zone,
// the IANA name in the company's "timezone" setting (the demo companies:
// Europe/Stockholm and Europe/Oslo); a company without one runs on UTC.
// Dates without a zone are wall-clock dates and times of that zone.

// settingTimeZone names the company's IANA zone in its settings; default UTC.
const settingTimeZone = "timezone"

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
