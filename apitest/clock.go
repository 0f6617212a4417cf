package apitest

import (
	"sync"
	"time"
)

// Clock is a clock a test sets and moves on: for the engine
// (reference.Options.Now), the runtime (runtime.Config.Now) and the typed
// client (client.WithClock), so a test of expiry or dates never sleeps.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock is a clock standing at now.
func NewClock(now time.Time) *Clock { return &Clock{now: now} }

// Now is the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Set moves the clock to t.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

// Advance moves the clock on by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}
