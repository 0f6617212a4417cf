package engine

import (
	"testing"
	"time"

	"github.com/matryer/is"
)

// TestParseDate: every form a date field takes, read in the given zone
// when it carries none; anything else is refused.
func TestParseDate(t *testing.T) {
	is := is.New(t)
	stockholm := time.FixedZone("CEST", 2*60*60)
	for s, want := range map[string]time.Time{
		"2026-05-01":                time.Date(2026, 5, 1, 0, 0, 0, 0, stockholm),
		"2026-05-01T08:30:00Z":      time.Date(2026, 5, 1, 8, 30, 0, 0, time.UTC),
		"2026-05-01T08:30:00.5":     time.Date(2026, 5, 1, 8, 30, 0, 5e8, stockholm),
		"2026-05-01T08:30":          time.Date(2026, 5, 1, 8, 30, 0, 0, stockholm),
		"2026-05-01T08:30+02:00":    time.Date(2026, 5, 1, 6, 30, 0, 0, time.UTC),
		"2026-05-01 08:30:15":       time.Date(2026, 5, 1, 8, 30, 15, 0, stockholm),
		"2026-05-01 08:30":          time.Date(2026, 5, 1, 8, 30, 0, 0, stockholm),
		"2026-05-01T08:30:00+02:00": time.Date(2026, 5, 1, 6, 30, 0, 0, time.UTC),
	} {
		got, err := ParseDate(s, stockholm)
		is.NoErr(err)
		is.True(got.Equal(want)) // s read as want
		is.True(IsDate(s))
	}
	for _, s := range []string{"", "2026-13-01", "2026-02-30", "01/05/2026", "2026-05-01T25:00", "yesterday"} {
		_, err := ParseDate(s, stockholm)
		is.True(err != nil) // s is refused
		is.True(!IsDate(s))
	}
}
