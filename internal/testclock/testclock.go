// Package testclock is the clock tests give the engine, the runtime and the
// client in place of time.Now: it stands still until the test moves it
// (or, ticking, moves a step at every reading), so a test of expiry,
// leases or dates never sleeps.
package testclock

import (
	"sync"
	"time"
)

// Clock is a clock a test sets and moves on. It is safe for concurrent use.
type Clock struct {
	mu   sync.Mutex
	now  time.Time
	tick time.Duration
}

// New is a clock standing at now.
func New(now time.Time) *Clock { return &Clock{now: now} }

// Ticking is a clock at now that moves on by step at every reading, so
// each reading is later than the one before (each write its own Modified).
func Ticking(now time.Time, step time.Duration) *Clock { return &Clock{now: now, tick: step} }

// Now is the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(c.tick)
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
