package kit

import (
	"context"
	"testing"

	"fieldapi/engine"
)

// NewClaim is a claim on a fresh key. Its scope holds NUL characters, as the
// HTTP layer's scopes do.
func (s *Suite) NewClaim(label, fingerprint string) engine.Claim {
	return engine.Claim{
		Scope:       "enginetest\x00" + s.Company.Company + "\x00POST /v1/" + s.Subject.Reg.Name,
		Key:         UniqueName(label),
		Fingerprint: fingerprint,
	}
}

// Claim takes a fresh key and checks it is Claimed.
func (s *Suite) Claim(t *testing.T, label, fingerprint string) engine.Claim {
	t.Helper()
	c := s.NewClaim(label, fingerprint)
	if got := s.ClaimState(t, c); got.State != engine.Claimed {
		t.Fatalf("Claim of a new key = %v; want Claimed", got.State)
	}
	return c
}

// ClaimAgain claims c's key and content as another execution would.
func (s *Suite) ClaimAgain(t *testing.T, c engine.Claim) engine.ClaimResult {
	t.Helper()
	return s.ClaimState(t, c)
}

// ClaimState claims c and returns the state it finds.
func (s *Suite) ClaimState(t *testing.T, c engine.Claim) engine.ClaimResult {
	t.Helper()
	res, err := s.Engine.Idempotency().Claim(context.Background(), c)
	if err != nil {
		t.Fatalf("Claim: %v", err)
	}
	return res
}
