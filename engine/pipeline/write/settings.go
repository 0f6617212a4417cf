package write

import (
	"context"
	"fmt"
	"time"
	_ "time/tzdata" // zone names resolve on servers without a zone database (Windows)

	"fieldapi/engine/pipeline/settings"
)

// The company's settings, as defaults and rules read them. "Today" is the
// date of the write's moment in the zone the company's "timezone" setting
// names (UTC without one); dates without a zone are wall-clock times there.

// settingTimeZone names the company's IANA zone in its settings; default UTC.
const settingTimeZone = "timezone"

// setting reads one setting of the writer's company, read once per write
// from the engine's short cache; ok is false when the company has none.
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
