package apitest

import (
	"time"

	"fieldapi/internal/testclock"
)

// Clock is a clock a test sets and moves on: for the engine
// (reference.Options.Now), the runtime (runtime.Config.Now) and the typed
// client (client.WithClock), so a test of expiry or dates never sleeps.
type Clock = testclock.Clock

// NewClock is a clock standing at now.
func NewClock(now time.Time) *Clock { return testclock.New(now) }
