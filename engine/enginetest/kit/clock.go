package kit

import (
	"time"

	"fieldapi/internal/testclock"
)

// Clock is the engine's clock under test: it moves one microsecond at
// every reading, so each write gets a later Modified, and jumps when the
// suite advances it, so leases run out without the suite waiting.
// Open the engine with Now: clock.Now and give the clock in the Harness.
type Clock = testclock.Clock

// NewClock returns a clock at a fixed start.
func NewClock() *Clock {
	return testclock.Ticking(time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC), time.Microsecond)
}
