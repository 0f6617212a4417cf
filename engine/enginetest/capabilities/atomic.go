package capabilities

import (
	"context"
	"errors"
	"slices"
	"testing"

	"fieldapi/catalog"
	"fieldapi/engine"
	"fieldapi/engine/enginetest/kit"
)

// engine.Atomic, when the engine offers it (POST /v1/batch with "atomic":
// true answers 501 otherwise): the writes made inside Atomically commit
// together with the response stored under the claim, and when fn fails
// none of them remains, nor any event or stored response.
var Atomic = []kit.Test{
	test("writes commit together, with the claim's response", testAtomicCommits),
	test("a failure rolls every write back, events and claim included", testAtomicRollsBack),
}

func (s *suite) atomic(t *testing.T) engine.Atomic {
	t.Helper()
	a, ok := s.Engine.(engine.Atomic)
	if !ok {
		t.Skip("the engine offers no engine.Atomic")
	}
	return a
}

func testAtomicCommits(t *testing.T, s *suite) {
	atomic := s.atomic(t)
	ctx := context.Background()
	feed := s.Feed(t)
	var end int64
	if feed != nil {
		end = s.FeedEnd(t, feed, s.Company)
	}
	claim := s.Claim(t, "atomic", "fp")
	var first engine.Record
	resp, err := atomic.Atomically(ctx, s.Company, claim, func(ctx context.Context) (engine.Response, error) {
		var c kit.Capture
		if _, err := s.Engine.Create(ctx, s.Company, s.Subject.Reg.Name, s.Subject.Input("atomic one"), c.Receipt(kit.NoClaim)); err != nil {
			return engine.Response{}, err
		}
		first = c.Rec
		// The second write reads what the first wrote: an update of it.
		in := engine.NewInput()
		in.Values[s.Subject.Name] = "atomic one, changed"
		if _, err := s.Engine.Update(ctx, s.Company, s.Subject.Reg.Name, s.KeyOf(t, first), in, c.Receipt(kit.NoClaim)); err != nil {
			return engine.Response{}, err
		}
		if _, err := s.Engine.Create(ctx, s.Company, s.Subject.Reg.Name, s.Subject.Input("atomic two"), c.Receipt(kit.NoClaim)); err != nil {
			return engine.Response{}, err
		}
		return engine.Response{Status: 200, Body: []byte(`{"batch":true}`)}, nil
	})
	if err != nil {
		t.Fatalf("Atomically: %v", err)
	}
	if string(resp.Body) != `{"batch":true}` {
		t.Errorf("Atomically answered %s; want fn's response", resp.Body)
	}
	got, err := s.Engine.Get(ctx, s.Company, s.Subject.Reg.Name, s.KeyOf(t, first))
	if err != nil {
		t.Fatalf("Get after Atomically: %v", err)
	}
	if name := got.Text(s.Subject.Name); name == nil || *name != "atomic one, changed" {
		t.Errorf("%s = %v; want the update made in the same transaction", s.Subject.Name, name)
	}
	if n := len(s.Walk(t, s.Company, s.Subject.Reg.Name, 50, s.Named("atomic two"))); n != 1 {
		t.Errorf("%d records of the second create; want 1", n)
	}
	if res := s.ClaimAgain(t, claim); res.State != engine.Replay || string(res.Response.Body) != `{"batch":true}` {
		t.Errorf("Claim after Atomically = %s %s; want Replay of fn's response", res.State, res.Response.Body)
	}
	if feed != nil {
		// Every write's event, in the order written.
		var types []string
		for _, ev := range s.EventsAfter(t, feed, s.Company, end) {
			types = append(types, ev.Type)
		}
		want := []string{s.EventType(s.Subject.Reg.Name, catalog.EventCreated), s.EventType(s.Subject.Reg.Name, catalog.EventUpdated), s.EventType(s.Subject.Reg.Name, catalog.EventCreated)}
		if !slices.Equal(types, want) {
			t.Errorf("events after Atomically: %v; want %v", types, want)
		}
	}
	if log, ok := s.Engine.(engine.ChangeLog); ok {
		changes, err := log.Changes(ctx, s.Company, s.Subject.Reg.Name, s.KeyOf(t, first), engine.ChangeQuery{})
		if err != nil || len(changes) != 2 {
			t.Errorf("Changes of the record created and updated in Atomically: %d entries, %v; want 2", len(changes), err)
		}
	}
}

func testAtomicRollsBack(t *testing.T, s *suite) {
	atomic := s.atomic(t)
	ctx := context.Background()
	feed := s.Feed(t)
	var end int64
	if feed != nil {
		end = s.FeedEnd(t, feed, s.Company)
	}
	before := s.Total(t, s.Company, s.Subject.Reg.Name)
	claim := s.Claim(t, "atomic-fails", "fp")
	failure := errors.New("the third write failed")
	_, err := atomic.Atomically(ctx, s.Company, claim, func(ctx context.Context) (engine.Response, error) {
		for _, name := range []string{"rolled back one", "rolled back two"} {
			var c kit.Capture
			if _, err := s.Engine.Create(ctx, s.Company, s.Subject.Reg.Name, s.Subject.Input(name), c.Receipt(kit.NoClaim)); err != nil {
				return engine.Response{}, err
			}
		}
		return engine.Response{}, failure
	})
	if !errors.Is(err, failure) {
		t.Fatalf("Atomically = %v; want fn's error", err)
	}
	if got := s.Total(t, s.Company, s.Subject.Reg.Name); got != before {
		t.Errorf("%d records after the rollback; want %d", got, before)
	}
	if n := len(s.Walk(t, s.Company, s.Subject.Reg.Name, 50, s.Named("rolled back"))); n != 0 {
		t.Errorf("%d records of the rolled-back creates remain", n)
	}
	if feed != nil {
		if evs := s.EventsAfter(t, feed, s.Company, end); len(evs) != 0 {
			t.Errorf("%d events of rolled-back writes: %v", len(evs), evs)
		}
	}
	if res := s.ClaimAgain(t, claim); res.State != engine.Claimed {
		t.Errorf("Claim after a failed Atomically = %s; want Claimed (nothing stored)", res.State)
	}
	// The engine writes normally afterwards.
	s.MustCreate(t, s.Company, "after the rollback")
}
