package enginetest

import (
	"context"
	"errors"
	"slices"
	"testing"

	"fieldapi/catalog"
	"fieldapi/engine"
)

// engine.Atomic, when the engine offers it (POST /v1/batch with "atomic":
// true answers 501 otherwise): the writes made inside Atomically commit
// together with the response stored under the claim, and when fn fails
// none of them remains, nor any event or stored response.
var atomicTests = []test{
	{"writes commit together, with the claim's response", testAtomicCommits},
	{"a failure rolls every write back, events and claim included", testAtomicRollsBack},
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
	feed := s.feed(t)
	var end int64
	if feed != nil {
		end = s.feedEnd(t, feed, s.Company)
	}
	claim := s.claim(t, "atomic", "fp")
	var first engine.Record
	resp, err := atomic.Atomically(ctx, s.Company, claim, func(ctx context.Context) (engine.Response, error) {
		var c capture
		if _, err := s.Engine.Create(ctx, s.Company, s.subject.reg.Name, s.subject.input("atomic one"), c.receipt(noClaim)); err != nil {
			return engine.Response{}, err
		}
		first = c.rec
		// The second write reads what the first wrote: an update of it.
		in := engine.NewInput()
		in.Values[s.subject.name] = "atomic one, changed"
		if _, err := s.Engine.Update(ctx, s.Company, s.subject.reg.Name, s.keyOf(t, first), in, c.receipt(noClaim)); err != nil {
			return engine.Response{}, err
		}
		if _, err := s.Engine.Create(ctx, s.Company, s.subject.reg.Name, s.subject.input("atomic two"), c.receipt(noClaim)); err != nil {
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
	got, err := s.Engine.Get(ctx, s.Company, s.subject.reg.Name, s.keyOf(t, first))
	if err != nil {
		t.Fatalf("Get after Atomically: %v", err)
	}
	if name := got.Text(s.subject.name); name == nil || *name != "atomic one, changed" {
		t.Errorf("%s = %v; want the update made in the same transaction", s.subject.name, name)
	}
	if n := len(s.walk(t, s.Company, s.subject.reg.Name, 50, s.named("atomic two"))); n != 1 {
		t.Errorf("%d records of the second create; want 1", n)
	}
	if res := s.claimAgain(t, claim); res.State != engine.Replay || string(res.Response.Body) != `{"batch":true}` {
		t.Errorf("Claim after Atomically = %s %s; want Replay of fn's response", stateName(res.State), res.Response.Body)
	}
	if feed != nil {
		// Every write's event, in the order written.
		var types []string
		for _, ev := range s.eventsAfter(t, feed, s.Company, end) {
			types = append(types, ev.Type)
		}
		want := []string{s.eventType(s.subject.reg.Name, catalog.EventCreated), s.eventType(s.subject.reg.Name, catalog.EventUpdated), s.eventType(s.subject.reg.Name, catalog.EventCreated)}
		if !slices.Equal(types, want) {
			t.Errorf("events after Atomically: %v; want %v", types, want)
		}
	}
	if log, ok := s.Engine.(engine.ChangeLog); ok {
		changes, err := log.Changes(ctx, s.Company, s.subject.reg.Name, s.keyOf(t, first), engine.ChangeQuery{})
		if err != nil || len(changes) != 2 {
			t.Errorf("Changes of the record created and updated in Atomically: %d entries, %v; want 2", len(changes), err)
		}
	}
}

func testAtomicRollsBack(t *testing.T, s *suite) {
	atomic := s.atomic(t)
	ctx := context.Background()
	feed := s.feed(t)
	var end int64
	if feed != nil {
		end = s.feedEnd(t, feed, s.Company)
	}
	before := s.total(t, s.Company, s.subject.reg.Name)
	claim := s.claim(t, "atomic-fails", "fp")
	failure := errors.New("the third write failed")
	_, err := atomic.Atomically(ctx, s.Company, claim, func(ctx context.Context) (engine.Response, error) {
		for _, name := range []string{"rolled back one", "rolled back two"} {
			var c capture
			if _, err := s.Engine.Create(ctx, s.Company, s.subject.reg.Name, s.subject.input(name), c.receipt(noClaim)); err != nil {
				return engine.Response{}, err
			}
		}
		return engine.Response{}, failure
	})
	if !errors.Is(err, failure) {
		t.Fatalf("Atomically = %v; want fn's error", err)
	}
	if got := s.total(t, s.Company, s.subject.reg.Name); got != before {
		t.Errorf("%d records after the rollback; want %d", got, before)
	}
	if n := len(s.walk(t, s.Company, s.subject.reg.Name, 50, s.named("rolled back"))); n != 0 {
		t.Errorf("%d records of the rolled-back creates remain", n)
	}
	if feed != nil {
		if evs := s.eventsAfter(t, feed, s.Company, end); len(evs) != 0 {
			t.Errorf("%d events of rolled-back writes: %v", len(evs), evs)
		}
	}
	if res := s.claimAgain(t, claim); res.State != engine.Claimed {
		t.Errorf("Claim after a failed Atomically = %s; want Claimed (nothing stored)", stateName(res.State))
	}
	// The engine writes normally afterwards.
	s.mustCreate(t, s.Company, "after the rollback")
}
