package memplatform

import (
	"context"
	"slices"
	"time"

	"fieldapi/engine"
	"fieldapi/engine/platform"
)

// claimID is an Idempotency-Key within its scope.
type claimID struct{ scope, key string }

func idOf(c engine.Claim) claimID { return claimID{c.Scope, c.Key} }

// claim is one Idempotency-Key: held by an execution (token, until its
// lease ends), or done with the response stored.
type claim struct {
	platform.Held
	token   string
	created time.Time
}

// idempotencyStore keeps the claims.
type idempotencyStore struct{ p *Platform }

// Claim reserves a key for one execution, or says why it cannot run now.
func (is idempotencyStore) Claim(_ context.Context, c engine.Claim) (engine.ClaimResult, error) {
	p := is.p
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	if held := p.claims[idOf(c)]; held != nil {
		if res, takeOver := held.Judge(c, now); !takeOver {
			res.Response.Body = slices.Clone(res.Response.Body)
			return res, nil
		}
	}
	// A new key, or a hold whose lease ran out (its execution died): take it.
	p.claims[idOf(c)] = &claim{
		Held:  platform.Held{Fingerprint: c.Fingerprint, LeaseUntil: now.Add(platform.LeaseOf(c))},
		token: c.Token, created: now,
	}
	return engine.ClaimResult{State: engine.Claimed}, nil
}

// settle marks the claim c's token holds done with the response, which it
// returns; engine.ErrClaimLost when the token no longer holds it pending.
// The caller holds the mutex.
func (p *Platform) settle(c engine.Claim, r engine.Response) (*claim, error) {
	held := p.claims[idOf(c)]
	if held == nil || held.token != c.Token || held.Done {
		return nil, engine.ErrClaimLost
	}
	// The status and body only, as the SQL platform stores them.
	held.Done, held.Response = true, engine.Response{Status: r.Status, Body: slices.Clone(r.Body)}
	return held, nil
}

// Complete stores the response of a claimed call that wrote nothing.
func (is idempotencyStore) Complete(_ context.Context, c engine.Claim, r engine.Response) error {
	p := is.p
	p.mu.Lock()
	defer p.mu.Unlock()
	_, err := p.settle(c, r)
	return err
}

// Release forgets a claim still held pending by this execution.
func (is idempotencyStore) Release(_ context.Context, c engine.Claim) error {
	p := is.p
	p.mu.Lock()
	defer p.mu.Unlock()
	if held := p.claims[idOf(c)]; held != nil && held.token == c.Token && !held.Done {
		delete(p.claims, idOf(c))
	}
	return nil
}

// Prune deletes completed keys created before the given time, and pending
// claims whose lease ran out before it (their execution died).
func (is idempotencyStore) Prune(_ context.Context, before time.Time) (int, error) {
	p := is.p
	p.mu.Lock()
	defer p.mu.Unlock()
	before, n := stored(before), 0
	for id, c := range p.claims {
		if (c.Done && c.created.Before(before)) || (!c.Done && c.LeaseUntil.Before(before)) {
			delete(p.claims, id)
			n++
		}
	}
	return n, nil
}
