package platform

import (
	"time"

	"fieldapi/engine"
)

// LeaseOf is how long claim c holds its key: its Lease, or DefaultLease
// when it gives none.
func LeaseOf(c engine.Claim) time.Duration {
	if c.Lease <= 0 {
		return DefaultLease
	}
	return c.Lease
}

// Held is an Idempotency-Key as a claim finds it when another execution
// claimed it first.
type Held struct {
	Fingerprint string
	Done        bool            // completed: Response is the stored answer
	Response    engine.Response // Status and Body only: the Version is never stored
	LeaseUntil  time.Time       // while pending: past it the holder is presumed dead
}

// Judge says what claim c finds at now in a key held already. takeOver
// reports a pending hold whose lease ran out: c may take the key over,
// provided no other execution does so first (the caller's compare and
// swap on the holder's token).
func (h Held) Judge(c engine.Claim, now time.Time) (res engine.ClaimResult, takeOver bool) {
	switch {
	case h.Fingerprint != c.Fingerprint:
		return engine.ClaimResult{State: engine.Mismatch}, false
	case h.Done:
		return engine.ClaimResult{State: engine.Replay, Response: h.Response}, false
	case now.Before(h.LeaseUntil):
		return engine.ClaimResult{State: engine.InFlight}, false
	}
	return engine.ClaimResult{State: engine.Claimed}, true
}
