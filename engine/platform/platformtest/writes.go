package platformtest

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"fieldapi/engine"
	"fieldapi/engine/platform"
)

var writeTests = []test{
	{"a settled claim and its events commit with the write", testSettleCommits},
	{"a write that rolls back stores no response and records nothing", testSettleRollsBack},
	{"settling a key another execution answered is ErrClaimLost", testSettleLost},
	{"concurrent writes take gap-free positions", testConcurrentPositions},
}

var errRollBack = errors.New("the write fails after the platform's writes")

// testSettleCommits: Settle and Record in a record store's transaction
// that commits: the key replays the response (without its version), the
// events are in the feed. A write without an Idempotency-Key settles
// nothing.
func testSettleCommits(t *testing.T, s *suite) {
	c := newClaim("create-1", "fp")
	s.expectState(t, "a new key", c, engine.Claimed)
	resp := engine.Response{Status: 201, Body: []byte(`{"Nr":"1"}`), Version: "v7"}
	ev := s.event(companyA, "tasks", "task.created", "1")
	err := s.write(func(ctx context.Context, w platform.Writes) error {
		if err := w.Settle(ctx, c, resp); err != nil {
			return err
		}
		return w.Record(ctx, companyA, []platform.Event{ev})
	})
	if err != nil {
		t.Fatalf("the write: %v", err)
	}
	res := s.expectState(t, "the key of a committed write", newClaim("create-1", "fp"), engine.Replay)
	if res.Response.Status != 201 || string(res.Response.Body) != string(resp.Body) || res.Response.Version != "" {
		t.Errorf("Replay response = %+v; want status 201, the body and no version", res.Response)
	}
	page := s.feed(t, companyA, engine.EventQuery{Limit: 10}, nil)
	if len(page.Events) != 1 {
		t.Fatalf("feed after the write = %v; want its event", positions(page.Events))
	}
	ev.Position = 1
	samePayload(t, page.Events[0], ev)

	if err := s.write(func(ctx context.Context, w platform.Writes) error {
		return w.Settle(ctx, engine.Claim{}, resp)
	}); err != nil {
		t.Errorf("Settle of a write without an Idempotency-Key: %v; want nothing to do", err)
	}
}

// testSettleRollsBack: a write that fails after Settle and Record rolls
// them back: the key has no response (a retry runs, and the call may
// still complete it), the feed is empty, and the next write's events take
// the positions the failed write gave back.
func testSettleRollsBack(t *testing.T, s *suite) {
	c := newClaim("create-1", "fp")
	s.expectState(t, "a new key", c, engine.Claimed)
	err := s.write(func(ctx context.Context, w platform.Writes) error {
		if err := w.Settle(ctx, c, engine.Response{Status: 201, Body: []byte(`{}`)}); err != nil {
			return err
		}
		if err := w.Record(ctx, companyA, []platform.Event{s.event(companyA, "tasks", "task.created", "1")}); err != nil {
			return err
		}
		return errRollBack
	})
	if !errors.Is(err, errRollBack) {
		t.Fatalf("the write = %v; want its own error", err)
	}
	s.expectState(t, "the key of a write that rolled back", newClaim("create-1", "fp"), engine.Claimed)
	if page := s.feed(t, companyA, engine.EventQuery{Limit: 10}, nil); len(page.Events) != 0 || page.Next != 0 {
		t.Errorf("feed after a write that rolled back = %v, next %d; want nothing, next 0", positions(page.Events), page.Next)
	}
	next := s.record(t, companyA, 1, s.event(companyA, "tasks", "task.created", "2"))
	page := s.feed(t, companyA, engine.EventQuery{Limit: 10}, nil)
	if !slices.Equal(positions(page.Events), []int64{1}) {
		t.Fatalf("feed after the next write = %v; want [1]: positions are gap-free", positions(page.Events))
	}
	samePayload(t, page.Events[0], next[0])
	if err := s.Platform.Idempotency().Complete(s.ctx, c, engine.Response{Status: 422}); err != nil {
		t.Errorf("Complete after the write rolled back: %v", err)
	}
}

// testSettleLost: a write whose key another execution answered already
// fails with engine.ErrClaimLost and commits nothing.
func testSettleLost(t *testing.T, s *suite) {
	done := newClaim("done", "fp")
	if err := s.Platform.Idempotency().Complete(s.ctx, done, engine.Response{Status: 422}); err != nil {
		t.Fatal(err)
	}
	err := s.write(func(ctx context.Context, w platform.Writes) error {
		if err := w.Record(ctx, companyA, []platform.Event{s.event(companyA, "tasks", "task.created", "1")}); err != nil {
			return err
		}
		return w.Settle(ctx, done, engine.Response{Status: 201})
	})
	if !errors.Is(err, engine.ErrClaimLost) {
		t.Errorf("a write whose key was answered = %v; want engine.ErrClaimLost", err)
	}
	if page := s.feed(t, companyA, engine.EventQuery{Limit: 10}, nil); len(page.Events) != 0 {
		t.Errorf("feed after a write that lost its claim = %v; want nothing", positions(page.Events))
	}
	if res := s.claim(t, done); res.Response.Status != 422 {
		t.Errorf("the key answers %d; want the first response, 422", res.Response.Status)
	}
}

// testConcurrentPositions: writes recording events of one company at once
// get positions 1..n, each once, and another company's start at 1.
func testConcurrentPositions(t *testing.T, s *suite) {
	const writers, writes, perWrite = 6, 3, 2
	var wg sync.WaitGroup
	errs := make(chan error, writers*writes)
	for range writers {
		wg.Go(func() {
			for range writes {
				events := []platform.Event{s.event(companyA, "tasks", "task.created", "1"), s.event(companyA, "tasks", "task.updated", "1")}
				errs <- s.write(func(ctx context.Context, w platform.Writes) error { return w.Record(ctx, companyA, events) })
			}
		})
	}
	s.record(t, companyB, 1, s.event(companyB, "tasks", "task.created", "b"))
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("a concurrent write: %v", err)
		}
	}
	const n = writers * writes * perWrite
	page := s.feed(t, companyA, engine.EventQuery{Limit: 2 * n}, nil)
	want := make([]int64, n)
	for i := range want {
		want[i] = int64(i + 1)
	}
	if got := positions(page.Events); !slices.Equal(got, want) {
		t.Errorf("positions after concurrent writes = %v; want 1..%d", got, n)
	}
	// A write's events are consecutive and in the order given.
	for i := 0; i+1 < len(page.Events); i += perWrite {
		if page.Events[i].Type != "task.created" || page.Events[i+1].Type != "task.updated" {
			t.Errorf("events at %d and %d are %s, %s; want one write's created, updated", i+1, i+2, page.Events[i].Type, page.Events[i+1].Type)
		}
	}
	if page := s.feed(t, companyB, engine.EventQuery{Limit: 10}, nil); !slices.Equal(positions(page.Events), []int64{1}) {
		t.Errorf("other company's positions = %v; want [1]", positions(page.Events))
	}
}
