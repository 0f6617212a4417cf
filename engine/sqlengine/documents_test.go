package sqlengine

import (
	"testing"

	"github.com/matryer/is"
)

func TestPlanDayEnds(t *testing.T) {
	is := is.New(t)
	for in, want := range map[string]string{
		"2025-09-01":                  "2025-09-01",
		"2025-09-01T08:00":            "2025-09-01T23:59:59",
		"2025-09-01T08:00:00Z":        "2025-09-01T23:59:59Z",
		"2025-09-01T08:00:00.5+02:00": "2025-09-01T23:59:59+02:00",
		"2025-09-01T08:00-05:00":      "2025-09-01T23:59:59-05:00",
	} {
		is.Equal(endOfDay(in), want)
	}
}
