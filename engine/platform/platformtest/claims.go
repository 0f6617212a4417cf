package platformtest

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"fieldapi/engine"
	"fieldapi/engine/platform"
)

var claimTests = []test{
	{"claim states", testClaimStates},
	{"one of many concurrent claims wins", testConcurrentClaims},
	{"an abandoned claim is taken over after its lease", testLeaseTakeover},
	{"pruning claims", testPruneClaims},
}

// testClaimStates walks keys through every state: Claimed, InFlight while
// held, Mismatch for other content, Replay once completed; Release
// forgets a hold, but only with its own token; scopes keep keys apart.
func testClaimStates(t *testing.T, s *suite) {
	idem := s.Platform.Idempotency()
	first := newClaim("k1", "fp-1", "tok-a", time.Minute)
	s.expectState(t, "a new key", first, engine.Claimed)
	s.expectState(t, "the same key and content while held", newClaim("k1", "fp-1", "tok-b", time.Minute), engine.InFlight)
	s.expectState(t, "the same key with other content while held", newClaim("k1", "fp-2", "tok-b", time.Minute), engine.Mismatch)

	stored := engine.Response{Status: 422, Body: []byte(`{"title":"command_failed"}`), Version: "not stored"}
	if err := idem.Complete(s.ctx, first, stored); err != nil {
		t.Fatalf("Complete: %v", err)
	}
	res := s.expectState(t, "the same key and content once completed", newClaim("k1", "fp-1", "tok-c", time.Minute), engine.Replay)
	if res.Response.Status != 422 || string(res.Response.Body) != string(stored.Body) || res.Response.Version != "" {
		t.Errorf("Replay response = %+v; want status 422, the stored body and no version", res.Response)
	}
	s.expectState(t, "the same key with other content once completed", newClaim("k1", "fp-2", "tok-c", time.Minute), engine.Mismatch)
	if err := idem.Complete(s.ctx, first, stored); !errors.Is(err, engine.ErrClaimLost) {
		t.Errorf("Complete of a key completed already: %v; want engine.ErrClaimLost", err)
	}

	elsewhere := newClaim("k1", "fp-1", "tok-d", time.Minute)
	elsewhere.Scope += "\x00elsewhere"
	s.expectState(t, "the same key in another scope", elsewhere, engine.Claimed)

	held := newClaim("k2", "fp", "tok-a", time.Minute)
	s.expectState(t, "a new key", held, engine.Claimed)
	if err := idem.Release(s.ctx, newClaim("k2", "fp", "tok-other", time.Minute)); err != nil {
		t.Fatalf("Release with another token: %v", err)
	}
	s.expectState(t, "after a Release with another token", newClaim("k2", "fp", "tok-b", time.Minute), engine.InFlight)
	if err := idem.Release(s.ctx, held); err != nil {
		t.Fatalf("Release: %v", err)
	}
	s.expectState(t, "after the holder's Release", newClaim("k2", "fp", "tok-b", time.Minute), engine.Claimed)
	if err := idem.Complete(s.ctx, held, stored); !errors.Is(err, engine.ErrClaimLost) {
		t.Errorf("Complete by a holder that released its key: %v; want engine.ErrClaimLost", err)
	}
}

// testConcurrentClaims: of many executions claiming one key at once,
// exactly one runs; the others see it in flight.
func testConcurrentClaims(t *testing.T, s *suite) {
	const n = 16
	results := make([]engine.ClaimResult, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			results[i], errs[i] = s.Platform.Idempotency().Claim(s.ctx, newClaim("same", "fp", fmt.Sprintf("tok-%d", i), time.Minute))
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
		t.Errorf("%d of %d concurrent claims won; want exactly 1", claimed, n)
	}
}

// testLeaseTakeover: a hold is in flight until its lease ends, then the
// next execution takes it over and the old holder can no longer complete
// it; a claim without a lease holds for platform.DefaultLease.
func testLeaseTakeover(t *testing.T, s *suite) {
	idem := s.Platform.Idempotency()
	old := newClaim("k", "fp", "tok-old", time.Second)
	s.expectState(t, "a new key", old, engine.Claimed)
	s.Clock.Advance(999 * time.Millisecond)
	s.expectState(t, "just before the lease ends", newClaim("k", "fp", "tok-new", time.Second), engine.InFlight)
	s.Clock.Advance(2 * time.Millisecond)
	taker := newClaim("k", "fp", "tok-new", time.Minute)
	s.expectState(t, "after the lease ended", taker, engine.Claimed)
	s.expectState(t, "once taken over, with the taker's lease", newClaim("k", "fp", "tok-third", time.Second), engine.InFlight)
	if err := idem.Complete(s.ctx, old, engine.Response{Status: 201}); !errors.Is(err, engine.ErrClaimLost) {
		t.Errorf("Complete by the holder whose claim was taken over: %v; want engine.ErrClaimLost", err)
	}
	if err := idem.Complete(s.ctx, taker, engine.Response{Status: 201}); err != nil {
		t.Errorf("Complete by the taker: %v", err)
	}

	unleased := newClaim("default", "fp", "tok-a", 0)
	s.expectState(t, "a new key without a lease", unleased, engine.Claimed)
	s.Clock.Advance(platform.DefaultLease - time.Second)
	s.expectState(t, "before the default lease ends", newClaim("default", "fp", "tok-b", 0), engine.InFlight)
	s.Clock.Advance(2 * time.Second)
	s.expectState(t, "after the default lease ended", newClaim("default", "fp", "tok-b", 0), engine.Claimed)
}

// testPruneClaims: Prune deletes completed keys created before the cut
// and holds whose lease ended before it, and keeps the others.
func testPruneClaims(t *testing.T, s *suite) {
	idem := s.Platform.Idempotency()
	done := newClaim("done-old", "fp", "tok", time.Minute)
	s.expectState(t, "a new key", done, engine.Claimed)
	if err := idem.Complete(s.ctx, done, engine.Response{Status: 200}); err != nil {
		t.Fatal(err)
	}
	s.expectState(t, "a new key", newClaim("abandoned", "fp", "tok", time.Minute), engine.Claimed)
	s.Clock.Advance(10 * time.Minute)
	recent := newClaim("done-recent", "fp", "tok", time.Minute)
	s.expectState(t, "a new key", recent, engine.Claimed)
	if err := idem.Complete(s.ctx, recent, engine.Response{Status: 200}); err != nil {
		t.Fatal(err)
	}
	s.expectState(t, "a new key", newClaim("held", "fp", "tok", time.Hour), engine.Claimed)

	n, err := idem.Prune(s.ctx, s.Clock.Now().Add(-time.Minute))
	if err != nil || n != 2 {
		t.Errorf("Prune = %d, %v; want 2 (the old completed key and the abandoned hold)", n, err)
	}
	s.expectState(t, "a pruned completed key", newClaim("done-old", "other-fp", "tok-2", time.Minute), engine.Claimed)
	s.expectState(t, "a kept completed key", newClaim("done-recent", "fp", "tok-2", time.Minute), engine.Replay)
	s.expectState(t, "a kept hold", newClaim("held", "fp", "tok-2", time.Minute), engine.InFlight)
}
