package memengine

import (
	"context"
	"fmt"
	"time"

	"fieldapi/engine"
)

// claim is one Idempotency-Key: held by an execution (token, until its
// lease ends), or done with the response stored.
type claim struct {
	fingerprint string
	token       string
	created     time.Time
	leaseUntil  time.Time
	done        bool
	response    engine.Response
}

func claimID(c engine.Claim) string { return c.Scope + "\x00\x00" + c.Key }

// defaultLease is how long a claim that gives no lease holds its key.
const defaultLease = 30 * time.Second

// Idempotency returns the store of write responses.
func (e *Engine) Idempotency() engine.IdempotencyStore { return idempotencyStore{e} }

type idempotencyStore struct{ e *Engine }

// Claim reserves a key for one execution, or says why it cannot run now.
func (is idempotencyStore) Claim(_ context.Context, c engine.Claim) (engine.ClaimResult, error) {
	e := is.e
	if err := e.begin(); err != nil {
		return engine.ClaimResult{}, err
	}
	defer e.mu.Unlock()
	now := time.Now()
	lease := c.Lease
	if lease <= 0 {
		lease = defaultLease
	}
	held := e.claims[claimID(c)]
	switch {
	case held == nil:
	case held.fingerprint != c.Fingerprint:
		return engine.ClaimResult{State: engine.Mismatch}, nil
	case held.done:
		return engine.ClaimResult{State: engine.Replay, Response: held.response}, nil
	case now.Before(held.leaseUntil):
		return engine.ClaimResult{State: engine.InFlight}, nil
	}
	// A new key, or a hold whose lease ran out (its execution died): take it.
	e.claims[claimID(c)] = &claim{fingerprint: c.Fingerprint, token: c.Token, created: now, leaseUntil: now.Add(lease)}
	return engine.ClaimResult{State: engine.Claimed}, nil
}

// Complete stores the response of a claimed call that wrote nothing.
func (is idempotencyStore) Complete(_ context.Context, c engine.Claim, r engine.Response) error {
	e := is.e
	if err := e.begin(); err != nil {
		return err
	}
	defer e.mu.Unlock()
	held := e.claims[claimID(c)]
	if held == nil || held.token != c.Token || held.done {
		return errClaimLost
	}
	held.done, held.response = true, r
	return nil
}

// Release forgets a claim still held by this execution.
func (is idempotencyStore) Release(_ context.Context, c engine.Claim) error {
	e := is.e
	if err := e.begin(); err != nil {
		return err
	}
	defer e.mu.Unlock()
	if held := e.claims[claimID(c)]; held != nil && held.token == c.Token && !held.done {
		delete(e.claims, claimID(c))
	}
	return nil
}

// Prune deletes completed keys created before the cut, and holds whose
// lease ran out before it.
func (is idempotencyStore) Prune(_ context.Context, before time.Time) (int, error) {
	e := is.e
	if err := e.begin(); err != nil {
		return 0, err
	}
	defer e.mu.Unlock()
	n := 0
	for id, c := range e.claims {
		if (c.done && c.created.Before(before)) || (!c.done && c.leaseUntil.Before(before)) {
			delete(e.claims, id)
			n++
		}
	}
	return n, nil
}

// Keys returns the store of API keys and tokens.
func (e *Engine) Keys() engine.KeyStore { return keyStore{e} }

type keyStore struct{ e *Engine }

// CreateKey stores a key for an existing signature under an unused client id.
func (ks keyStore) CreateKey(_ context.Context, k engine.Key) error {
	e := ks.e
	if err := e.begin(); err != nil {
		return err
	}
	defer e.mu.Unlock()
	if _, ok := e.users[k.Company][k.Sign]; !ok {
		return fmt.Errorf("unknown sign %q in company %q", k.Sign, k.Company)
	}
	if _, taken := e.keys[k.ClientID]; taken {
		return fmt.Errorf("client id %q is already taken", k.ClientID)
	}
	if k.Created.IsZero() {
		k.Created = time.Now().UTC()
	}
	e.keys[k.ClientID] = k
	return nil
}

// LookupKey returns a key, revoked or not.
func (ks keyStore) LookupKey(_ context.Context, clientID string) (engine.Key, error) {
	e := ks.e
	if err := e.begin(); err != nil {
		return engine.Key{}, err
	}
	defer e.mu.Unlock()
	k, ok := e.keys[clientID]
	if !ok {
		return engine.Key{}, fmt.Errorf("client id %q: %w", clientID, engine.ErrNoKey)
	}
	return k, nil
}

// ListKeys lists the keys of one company, or of all when company is "".
func (ks keyStore) ListKeys(_ context.Context, company string) ([]engine.Key, error) {
	e := ks.e
	if err := e.begin(); err != nil {
		return nil, err
	}
	defer e.mu.Unlock()
	var out []engine.Key
	for _, k := range e.keys {
		if company == "" || k.Company == company {
			out = append(out, k)
		}
	}
	return out, nil
}

// RevokeKey revokes a key (once) and drops its tokens.
func (ks keyStore) RevokeKey(_ context.Context, clientID string) error {
	e := ks.e
	if err := e.begin(); err != nil {
		return err
	}
	defer e.mu.Unlock()
	k, ok := e.keys[clientID]
	if !ok {
		return fmt.Errorf("client id %q: %w", clientID, engine.ErrNoKey)
	}
	if k.Revoked == nil {
		now := time.Now().UTC()
		k.Revoked = &now
		e.keys[clientID] = k
	}
	for id, t := range e.tokens {
		if t.ClientID == clientID {
			delete(e.tokens, id)
		}
	}
	return nil
}

// SaveToken stores an issued token.
func (ks keyStore) SaveToken(_ context.Context, t engine.Token) error {
	e := ks.e
	if err := e.begin(); err != nil {
		return err
	}
	defer e.mu.Unlock()
	e.tokens[t.ID] = t
	return nil
}

// LookupToken returns a token by id.
func (ks keyStore) LookupToken(_ context.Context, id string) (engine.Token, error) {
	e := ks.e
	if err := e.begin(); err != nil {
		return engine.Token{}, err
	}
	defer e.mu.Unlock()
	t, ok := e.tokens[id]
	if !ok {
		return engine.Token{}, fmt.Errorf("token %q: %w", id, engine.ErrNoKey)
	}
	return t, nil
}
