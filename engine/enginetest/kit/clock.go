package kit

import (
	"sync"
	"time"
)

// Clock is the engine's clock under test: it moves one microsecond at
// every reading, so each write gets a later Modified, and jumps when the
// suite advances it, so leases run out without the suite waiting.
// Open the engine with Now: clock.Now and give the clock in the Harness.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock returns a clock at a fixed start.
func NewClock() *Clock {
	return &Clock{now: time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)}
}

// Now reads the clock and moves it on a microsecond.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(time.Microsecond)
	return c.now
}

// Advance moves the clock on by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}
