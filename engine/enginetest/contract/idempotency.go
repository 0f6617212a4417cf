package contract

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"fieldapi/engine"
	"fieldapi/engine/enginetest/kit"
)

var Idempotency = []kit.Test{
	test("claim states", testClaimStates),
	test("of concurrent creates under one key, one commits", testConcurrentCreates),
	test("prune", testPrune),
}

// testClaimStates walks one key through every state: Claimed until a
// response is stored (a Claim stores nothing), then Replay for the same
// content and Mismatch for other content; a key stores one response
// only; scopes keep keys apart.
func testClaimStates(t *testing.T, s *suite) {
	ctx := context.Background()
	store := s.Engine.Idempotency()
	expect := func(what string, c engine.Claim, want engine.ClaimState) engine.ClaimResult {
		t.Helper()
		res := s.ClaimState(t, c)
		if res.State != want {
			t.Errorf("%s: Claim = %s; want %s", what, res.State, want)
		}
		return res
	}
	withContent := func(c engine.Claim, fingerprint string) engine.Claim {
		c.Fingerprint = fingerprint
		return c
	}

	first := s.Claim(t, "states", "fp-1")
	expect("the same key and content before a response is stored", first, engine.Claimed)
	expect("the same key with other content before a response is stored", withContent(first, "fp-2"), engine.Claimed)

	stored := engine.Response{Status: 422, Body: []byte(`{"title":"command_failed"}`)}
	if err := store.Complete(ctx, first, stored); err != nil {
		t.Fatalf("Complete: %v", err)
	}
	res := expect("the same key and content once completed", first, engine.Replay)
	if res.Response.Status != stored.Status || string(res.Response.Body) != string(stored.Body) {
		t.Errorf("Replay response = %d %s; want the stored %d %s", res.Response.Status, res.Response.Body, stored.Status, stored.Body)
	}
	expect("the same key with other content once completed", withContent(first, "fp-2"), engine.Mismatch)
	if err := store.Complete(ctx, first, engine.Response{Status: 201}); !errors.Is(err, engine.ErrClaimLost) {
		t.Errorf("Complete of a key completed already: %v; want engine.ErrClaimLost", err)
	}

	// The same key in another scope is another key.
	elsewhere := first
	elsewhere.Scope += "\x00elsewhere"
	expect("the same key in another scope", elsewhere, engine.Claimed)
}

// testConcurrentCreates: creates that run at once under one key (a
// client's retries, sent before the first attempt answered) each run, and
// exactly one commits: the others fail with engine.ErrClaimLost (409,
// never 500) and leave no record and no event, and the key replays the
// response of the one that committed.
func testConcurrentCreates(t *testing.T, s *suite) {
	ctx := context.Background()
	sub := s.Subject
	feed, _ := s.Engine.(engine.Events)
	var events int64
	if feed != nil {
		events = s.FeedEnd(t, feed, s.Company)
	}
	const n = 8
	c := s.Claim(t, "concurrent", "fp")
	name := kit.UniqueName("Concurrent")
	responses := make([]engine.Response, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			var rc kit.Capture
			responses[i], errs[i] = s.Engine.Create(ctx, s.Company, sub.Reg.Name, sub.Input(name), rc.Receipt(c))
		})
	}
	wg.Wait()
	winner := -1
	for i, err := range errs {
		switch {
		case err == nil && winner >= 0:
			t.Errorf("creates %d and %d under one key both committed", winner, i)
		case err == nil:
			winner = i
		case !errors.Is(err, engine.ErrClaimLost):
			t.Errorf("create %d: %v; want success or engine.ErrClaimLost", i, err)
		}
	}
	if winner < 0 {
		t.Fatal("no create under the key committed")
	}
	if got := len(s.Walk(t, s.Company, sub.Reg.Name, 10, s.Named(name))); got != 1 {
		t.Errorf("%d records after %d concurrent creates under one key; want 1", got, n)
	}
	if res := s.ClaimAgain(t, c); res.State != engine.Replay || string(res.Response.Body) != string(responses[winner].Body) {
		t.Errorf("Claim after the creates = %s %s; want Replay of the committed create's response", res.State, res.Response.Body)
	}
	if feed != nil {
		if evs := s.EventsAfter(t, feed, s.Company, events); len(evs) != 1 {
			t.Errorf("the creates recorded %d events; want 1, the committed one's", len(evs))
		}
	}
}

// testPrune: Prune deletes keys stored before the cut (a key pruned can
// be claimed afresh), and only those.
func testPrune(t *testing.T, s *suite) {
	ctx := context.Background()
	store := s.Engine.Idempotency()
	done := s.Claim(t, "pruned", "fp")
	if err := store.Complete(ctx, done, engine.Response{Status: 201, Body: []byte(`{}`)}); err != nil {
		t.Fatalf("Complete: %v", err)
	}
	s.Clock.Advance(time.Hour)
	kept := s.Claim(t, "kept", "fp")
	if err := store.Complete(ctx, kept, engine.Response{Status: 201, Body: []byte(`{}`)}); err != nil {
		t.Fatalf("Complete: %v", err)
	}

	n, err := store.Prune(ctx, s.Clock.Now().Add(-time.Minute))
	if err != nil {
		t.Fatalf("Prune: %v", err)
	}
	if n != 1 {
		t.Errorf("Prune = %d; want 1, the key stored before the cut", n)
	}
	if res := s.ClaimAgain(t, done); res.State != engine.Claimed {
		t.Errorf("Claim of a pruned key = %s; want Claimed", res.State)
	}
	if res := s.ClaimAgain(t, kept); res.State != engine.Replay {
		t.Errorf("Claim of a kept key = %s; want Replay", res.State)
	}
}
