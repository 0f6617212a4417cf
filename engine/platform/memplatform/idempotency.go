package memplatform

import (
	"context"
	"maps"
	"slices"
	"time"

	"fieldapi/engine"
	"fieldapi/engine/platform"
)

// claimID is an Idempotency-Key within its scope.
type claimID struct{ scope, key string }

func idOf(c engine.Claim) claimID { return claimID{c.Scope, c.Key} }

// claim is an Idempotency-Key stored with its first execution's response.
type claim struct {
	fingerprint string
	response    engine.Response // Status and Body only, as the SQL platform stores them
	created     time.Time
}

// idempotencyStore keeps the claims.
type idempotencyStore struct{ *Platform }

// Claim looks the key up.
func (p idempotencyStore) Claim(_ context.Context, c engine.Claim) (engine.ClaimResult, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	held := p.claims[idOf(c)]
	if held == nil {
		return engine.ClaimResult{State: engine.Claimed}, nil
	}
	res := platform.Judge(c, held.fingerprint, held.response)
	res.Response.Body = slices.Clone(res.Response.Body)
	return res, nil
}

// settle stores claim c's key with the response and returns it;
// engine.ErrClaimLost when another execution stored one first. The
// caller holds the mutex.
func (p *Platform) settle(c engine.Claim, r engine.Response) (*claim, error) {
	if p.claims[idOf(c)] != nil {
		return nil, engine.ErrClaimLost
	}
	held := &claim{fingerprint: c.Fingerprint, response: engine.Response{Status: r.Status, Body: slices.Clone(r.Body)}, created: p.now()}
	p.claims[idOf(c)] = held
	return held, nil
}

// Complete stores the response of a claimed call that wrote nothing.
func (p idempotencyStore) Complete(_ context.Context, c engine.Claim, r engine.Response) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	_, err := p.settle(c, r)
	return err
}

// Prune deletes keys stored before the given time.
func (p idempotencyStore) Prune(_ context.Context, before time.Time) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	before, n := platform.Stored(before), len(p.claims)
	maps.DeleteFunc(p.claims, func(_ claimID, c *claim) bool { return c.created.Before(before) })
	return n - len(p.claims), nil
}
