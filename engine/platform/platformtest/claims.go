package platformtest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"fieldapi/engine"
	"fieldapi/engine/platform"
)

var claimTests = []test{
	{"claim states", testClaimStates},
	{"of concurrent executions of one key, the first to store its response wins", testConcurrentExecutions},
	{"pruning claims", testPruneClaims},
}

// testClaimStates walks keys through every state: Claimed until a
// response is stored (a Claim stores nothing), then Replay for the same
// content and Mismatch for other content; a key stores one response
// only; scopes keep keys apart.
func testClaimStates(t *testing.T, s *suite) {
	idem := s.Platform.Idempotency()
	first := newClaim("k1", "fp-1")
	s.expectState(t, "a new key", first, engine.Claimed)
	s.expectState(t, "a key claimed but not answered", newClaim("k1", "fp-2"), engine.Claimed)

	stored := engine.Response{Status: 422, Body: []byte(`{"title":"command_failed"}`), Version: "not stored"}
	if err := idem.Complete(s.ctx, first, stored); err != nil {
		t.Fatalf("Complete: %v", err)
	}
	res := s.expectState(t, "the same key and content once completed", newClaim("k1", "fp-1"), engine.Replay)
	if res.Response.Status != 422 || string(res.Response.Body) != string(stored.Body) || res.Response.Version != "" {
		t.Errorf("Replay response = %+v; want status 422, the stored body and no version", res.Response)
	}
	s.expectState(t, "the same key with other content once completed", newClaim("k1", "fp-2"), engine.Mismatch)
	if err := idem.Complete(s.ctx, first, engine.Response{Status: 201}); !errors.Is(err, engine.ErrClaimLost) {
		t.Errorf("Complete of a key completed already: %v; want engine.ErrClaimLost", err)
	}
	if res := s.claim(t, first); res.Response.Status != 422 {
		t.Errorf("after a second Complete the key answers %d; want the first response, 422", res.Response.Status)
	}

	elsewhere := newClaim("k1", "fp-1")
	elsewhere.Scope += "\x00elsewhere"
	s.expectState(t, "the same key in another scope", elsewhere, engine.Claimed)
}

// testConcurrentExecutions: executions of one key that run at once each
// write and store their response in their transaction; exactly one
// commits, the others fail with engine.ErrClaimLost and leave nothing
// (their events are not in the feed), and the key replays the winner's
// response.
func testConcurrentExecutions(t *testing.T, s *suite) {
	const n = 8
	c := newClaim("same", "fp")
	errs := make([]error, n)
	events := make([]platform.Event, n)
	for i := range n {
		events[i] = s.event(companyA, "tasks", "task.created", fmt.Sprint(i))
	}
	s.expectState(t, "a key no execution answered yet", c, engine.Claimed)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			errs[i] = s.write(func(ctx context.Context, w platform.Writes) error {
				if err := w.Record(ctx, companyA, []platform.Event{events[i]}); err != nil {
					return err
				}
				return w.Settle(ctx, c, engine.Response{Status: 201, Body: fmt.Appendf(nil, `{"Nr":"%d"}`, i)})
			})
		})
	}
	wg.Wait()
	winner := -1
	for i, err := range errs {
		switch {
		case err == nil && winner >= 0:
			t.Errorf("executions %d and %d both stored their response", winner, i)
		case err == nil:
			winner = i
		case !errors.Is(err, engine.ErrClaimLost):
			t.Errorf("execution %d: %v; want success or engine.ErrClaimLost", i, err)
		}
	}
	if winner < 0 {
		t.Fatal("no execution stored its response")
	}
	res := s.expectState(t, "the key after the executions", c, engine.Replay)
	if want := fmt.Sprintf(`{"Nr":"%d"}`, winner); string(res.Response.Body) != want {
		t.Errorf("Replay = %s; want the winner's %s", res.Response.Body, want)
	}
	page := s.feed(t, companyA, engine.EventQuery{Limit: 10}, nil)
	if !slices.Equal(positions(page.Events), []int64{1}) {
		t.Fatalf("feed = %v; want only the winner's event, at position 1", positions(page.Events))
	}
	events[winner].Position = 1
	samePayload(t, page.Events[0], events[winner])
}

// testPruneClaims: Prune deletes keys stored before the cut and keeps the
// others.
func testPruneClaims(t *testing.T, s *suite) {
	idem := s.Platform.Idempotency()
	old := newClaim("done-old", "fp")
	if err := idem.Complete(s.ctx, old, engine.Response{Status: 200}); err != nil {
		t.Fatal(err)
	}
	s.Clock.Advance(10 * time.Minute)
	recent := newClaim("done-recent", "fp")
	if err := idem.Complete(s.ctx, recent, engine.Response{Status: 200}); err != nil {
		t.Fatal(err)
	}

	n, err := idem.Prune(s.ctx, s.Clock.Now().Add(-time.Minute))
	if err != nil || n != 1 {
		t.Errorf("Prune = %d, %v; want 1 (the old key)", n, err)
	}
	s.expectState(t, "a pruned key", newClaim("done-old", "other-fp"), engine.Claimed)
	s.expectState(t, "a kept key", newClaim("done-recent", "fp"), engine.Replay)
}
