package enginetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"fieldapi/engine"
)

var idempotencyTests = []test{
	{"claim states", testClaimStates},
	{"one of many concurrent claims wins", testConcurrentClaims},
	{"an abandoned claim is taken over after its lease", testLeaseTakeover},
	{"prune", testPrune},
}

// newClaim is a claim on a fresh key. Its scope holds NUL characters, as the
// HTTP layer's scopes do.
func (s *suite) newClaim(label, fingerprint string) engine.Claim {
	return engine.Claim{
		Scope:       "enginetest\x00" + s.Company.Company + "\x00POST /v1/" + s.subject.reg.Name,
		Key:         uniqueName(label),
		Fingerprint: fingerprint,
		Token:       uniqueName("token"),
		Lease:       time.Minute,
	}
}

// claim takes a fresh key and checks it is Claimed.
func (s *suite) claim(t *testing.T, label, fingerprint string) engine.Claim {
	t.Helper()
	c := s.newClaim(label, fingerprint)
	if got := s.claimState(t, c); got.State != engine.Claimed {
		t.Fatalf("Claim of a new key = %v; want Claimed", got.State)
	}
	return c
}

// claimAgain claims c's key and content as another execution would.
func (s *suite) claimAgain(t *testing.T, c engine.Claim) engine.ClaimResult {
	t.Helper()
	c.Token = uniqueName("token")
	return s.claimState(t, c)
}

func (s *suite) claimState(t *testing.T, c engine.Claim) engine.ClaimResult {
	t.Helper()
	res, err := s.Engine.Idempotency().Claim(context.Background(), c)
	if err != nil {
		t.Fatalf("Claim: %v", err)
	}
	return res
}

// stateName names a claim state in failures.
func stateName(st engine.ClaimState) string {
	switch st {
	case engine.Claimed:
		return "Claimed"
	case engine.Replay:
		return "Replay"
	case engine.Mismatch:
		return "Mismatch"
	case engine.InFlight:
		return "InFlight"
	}
	return fmt.Sprintf("ClaimState(%d)", st)
}

// testClaimStates walks one key through every state: Claimed, InFlight
// while held, Mismatch for other content, Replay once completed; Release
// forgets a hold, but only with its own token; scopes keep keys apart.
func testClaimStates(t *testing.T, s *suite) {
	ctx := context.Background()
	store := s.Engine.Idempotency()
	expect := func(what string, c engine.Claim, want engine.ClaimState) engine.ClaimResult {
		t.Helper()
		res := s.claimState(t, c)
		if res.State != want {
			t.Errorf("%s: Claim = %s; want %s", what, stateName(res.State), stateName(want))
		}
		return res
	}
	other := func(c engine.Claim, fingerprint string) engine.Claim {
		c.Token, c.Fingerprint = uniqueName("token"), fingerprint
		return c
	}

	first := s.claim(t, "states", "fp-1")
	expect("the same key and content while held", other(first, "fp-1"), engine.InFlight)
	expect("the same key with other content while held", other(first, "fp-2"), engine.Mismatch)

	stored := engine.Response{Status: 422, Body: []byte(`{"title":"command_failed"}`)}
	if err := store.Complete(ctx, first, stored); err != nil {
		t.Fatalf("Complete: %v", err)
	}
	res := expect("the same key and content once completed", other(first, "fp-1"), engine.Replay)
	if res.Response.Status != stored.Status || string(res.Response.Body) != string(stored.Body) {
		t.Errorf("Replay response = %d %s; want the stored %d %s", res.Response.Status, res.Response.Body, stored.Status, stored.Body)
	}
	expect("the same key with other content once completed", other(first, "fp-2"), engine.Mismatch)
	if err := store.Complete(ctx, first, stored); !errors.Is(err, engine.ErrClaimLost) {
		t.Errorf("Complete of a key completed already: %v; want engine.ErrClaimLost", err)
	}

	// The same key in another scope is another key.
	elsewhere := first
	elsewhere.Scope += "\x00elsewhere"
	elsewhere.Token = uniqueName("token")
	expect("the same key in another scope", elsewhere, engine.Claimed)

	// Release forgets a hold, but only the holder's.
	held := s.claim(t, "released", "fp")
	if err := store.Release(ctx, other(held, "fp")); err != nil {
		t.Fatalf("Release with another token: %v", err)
	}
	expect("after a Release with another token", other(held, "fp"), engine.InFlight)
	if err := store.Release(ctx, held); err != nil {
		t.Fatalf("Release: %v", err)
	}
	expect("after the holder's Release", other(held, "fp"), engine.Claimed)
}

// testConcurrentClaims: of many executions claiming one key at once,
// exactly one runs; the others see it in flight.
func testConcurrentClaims(t *testing.T, s *suite) {
	base := s.newClaim("concurrent", "fp")
	const n = 20
	results := make([]engine.ClaimResult, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			c := base
			c.Token = fmt.Sprintf("token-%d", i)
			results[i], errs[i] = s.Engine.Idempotency().Claim(context.Background(), c)
		})
	}
	wg.Wait()
	claimed := 0
	for i, res := range results {
		switch {
		case errs[i] != nil:
			t.Errorf("Claim %d: %v", i, errs[i])
		case res.State == engine.Claimed:
			claimed++
		case res.State != engine.InFlight:
			t.Errorf("Claim %d = %s; want Claimed or InFlight", i, stateName(res.State))
		}
	}
	if claimed != 1 {
		t.Errorf("%d of %d concurrent claims of one key were Claimed; want exactly 1", claimed, n)
	}
}

// testLeaseTakeover: a hold older than its lease is abandoned (its process
// died): the next claim takes it over, and the old holder can no longer
// complete it or commit a write under it.
func testLeaseTakeover(t *testing.T, s *suite) {
	ctx := context.Background()
	store := s.Engine.Idempotency()
	old := s.newClaim("lease", "fp")
	old.Lease = time.Minute
	if res := s.claimState(t, old); res.State != engine.Claimed {
		t.Fatalf("Claim = %s; want Claimed", stateName(res.State))
	}
	if res := s.claimAgain(t, old); res.State != engine.InFlight {
		t.Fatalf("Claim within the lease = %s; want InFlight", stateName(res.State))
	}
	s.Clock.Advance(old.Lease + time.Second)

	taker := old
	taker.Token, taker.Lease = uniqueName("token"), time.Minute
	if res := s.claimState(t, taker); res.State != engine.Claimed {
		t.Fatalf("Claim after the lease ran out = %s; want Claimed (taken over)", stateName(res.State))
	}
	if res := s.claimAgain(t, taker); res.State != engine.InFlight {
		t.Errorf("Claim after the takeover = %s; want InFlight (the new holder's lease runs)", stateName(res.State))
	}
	stored := engine.Response{Status: 201, Body: []byte(`{}`)}
	if err := store.Complete(ctx, old, stored); !errors.Is(err, engine.ErrClaimLost) {
		t.Errorf("Complete by the holder whose claim was taken over: %v; want engine.ErrClaimLost", err)
	}
	name := uniqueName("Overtaken")
	var c capture
	if _, err := s.Engine.Create(ctx, s.Company, s.subject.reg.Name, s.subject.input(name), c.receipt(old)); !errors.Is(err, engine.ErrClaimLost) {
		t.Errorf("Create under a claim that was taken over: %v; want engine.ErrClaimLost (409, never 500)", err)
	}
	if n := len(s.walk(t, s.Company, s.subject.reg.Name, 10, s.named(name))); n != 0 {
		t.Errorf("Create under a claim that was taken over left %d records; want none", n)
	}
	if err := store.Complete(ctx, taker, stored); err != nil {
		t.Fatalf("Complete by the new holder: %v", err)
	}
	if res := s.claimAgain(t, taker); res.State != engine.Replay {
		t.Errorf("Claim after the new holder completed = %s; want Replay", stateName(res.State))
	}
}

// testPrune: Prune deletes completed keys created before the cut (a key
// pruned can be claimed afresh), and only those, and keeps holds whose
// lease still runs.
func testPrune(t *testing.T, s *suite) {
	ctx := context.Background()
	store := s.Engine.Idempotency()
	done := s.claim(t, "pruned", "fp")
	if err := store.Complete(ctx, done, engine.Response{Status: 201, Body: []byte(`{}`)}); err != nil {
		t.Fatalf("Complete: %v", err)
	}
	held := s.claim(t, "held", "fp")
	s.Clock.Advance(10 * time.Millisecond)

	n, err := store.Prune(ctx, s.Clock.Now().Add(time.Second))
	if err != nil {
		t.Fatalf("Prune: %v", err)
	}
	if n != 1 {
		t.Errorf("Prune = %d; want 1, the completed key (the held one's lease runs)", n)
	}
	if res := s.claimAgain(t, done); res.State != engine.Claimed {
		t.Errorf("Claim of a pruned key = %s; want Claimed", stateName(res.State))
	}
	if res := s.claimAgain(t, held); res.State != engine.InFlight {
		t.Errorf("Claim of a key held within its lease after Prune = %s; want InFlight", stateName(res.State))
	}
}
