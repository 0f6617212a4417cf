package memplatform

import (
	"cmp"
	"context"
	"maps"
	"slices"

	"fieldapi/engine"
	"fieldapi/engine/platform"
)

// keyStore keeps API keys and tokens; they are copied in and out.
type keyStore struct{ *Platform }

func copyKey(k engine.Key) engine.Key {
	k.Scopes, k.AllowedIPs = append([]string{}, k.Scopes...), append([]string{}, k.AllowedIPs...) // never nil, as SQL reads them
	k.SecretHash = slices.Clone(k.SecretHash)
	if k.Revoked != nil {
		revoked := platform.Stored(*k.Revoked)
		k.Revoked = &revoked
	}
	k.Created = platform.Stored(k.Created)
	return k
}

// CreateKey stores a new key; a client id taken already, by a revoked key
// too, is refused.
func (p keyStore) CreateKey(_ context.Context, k engine.Key) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, taken := p.keys[k.ClientID]; taken {
		return platform.KeyTaken(k.ClientID)
	}
	if k.Created.IsZero() {
		k.Created = p.now()
	}
	p.keys[k.ClientID] = copyKey(k)
	return nil
}

// LookupKey returns a key, revoked or not, or engine.ErrNoKey.
func (p keyStore) LookupKey(_ context.Context, clientID string) (engine.Key, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	k, ok := p.keys[clientID]
	if !ok {
		return engine.Key{}, platform.UnknownKey(clientID)
	}
	return copyKey(k), nil
}

// ListKeys lists keys, of one company when company is not empty, oldest first.
func (p keyStore) ListKeys(_ context.Context, company string) ([]engine.Key, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := []engine.Key{}
	for _, k := range p.keys {
		if company == "" || k.Company == company {
			out = append(out, copyKey(k))
		}
	}
	slices.SortFunc(out, func(a, b engine.Key) int {
		return cmp.Or(a.Created.Compare(b.Created), cmp.Compare(a.ClientID, b.ClientID))
	})
	return out, nil
}

// RevokeKey marks a key revoked (once: a second revoke keeps the first
// time) and drops its tokens.
func (p keyStore) RevokeKey(_ context.Context, clientID string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	k, ok := p.keys[clientID]
	if !ok {
		return platform.UnknownKey(clientID)
	}
	if k.Revoked == nil {
		now := p.now()
		k.Revoked = &now
		p.keys[clientID] = k
	}
	maps.DeleteFunc(p.tokens, func(_ string, t engine.Token) bool { return t.ClientID == clientID })
	return nil
}

// SaveToken stores an issued token and drops expired ones.
func (p keyStore) SaveToken(_ context.Context, t engine.Token) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	maps.DeleteFunc(p.tokens, func(_ string, old engine.Token) bool { return old.Expires.Before(now) })
	t.SecretHash, t.Expires = slices.Clone(t.SecretHash), platform.Stored(t.Expires)
	p.tokens[t.ID] = t
	return nil
}

// LookupToken returns a token, expired or not, or engine.ErrNoKey.
func (p keyStore) LookupToken(_ context.Context, id string) (engine.Token, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	t, ok := p.tokens[id]
	if !ok {
		return engine.Token{}, platform.UnknownToken(id)
	}
	t.SecretHash = slices.Clone(t.SecretHash)
	return t, nil
}
