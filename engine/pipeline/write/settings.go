package write

import (
	"context"
	"fmt"
	"time"
	_ "time/tzdata" // zone names resolve on servers without a zone database (Windows)

	"fieldapi/engine/pipeline/settings"
)

// The company's settings and calendar, as defaults and rules read them.
//
// "Today" is the date of the write's moment in the company's time zone,
// the IANA name in the company's "timezone" setting (the demo companies:
// Europe/Stockholm and Europe/Oslo); a company without one runs on UTC.
// Dates without a zone are wall-clock dates and times of that zone.

// settingTimeZone names the company's IANA zone in its settings; default UTC.
const settingTimeZone = "timezone"

// setting reads one setting of the writer's company; ok is false when the
// company has none. A write takes the company's settings once, from the
// engine's short cache of them (package settings).
func (w *Writer) setting(ctx context.Context, name string) (value string, ok bool, err error) {
	company, err := w.companySettings(ctx)
	if err != nil {
		return "", false, err
	}
	value, ok = company.Values[name]
	return value, ok, nil
}

func (w *Writer) companySettings(ctx context.Context) (company *settings.Company, err error) {
	if w.settings == nil {
		w.settings, err = w.e.settings.Of(ctx, w.reader(), w.s.Company)
	}
	return w.settings, err
}

// location is the company's time zone.
func (w *Writer) location(ctx context.Context) (*time.Location, error) {
	name, ok, err := w.setting(ctx, settingTimeZone)
	if err != nil || !ok {
		return time.UTC, err
	}
	if loc, ok := w.e.zones.Load(name); ok {
		return loc.(*time.Location), nil
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("company %s: setting %s: %w", w.s.Company, settingTimeZone, err)
	}
	w.e.zones.Store(name, loc)
	return loc, nil
}
