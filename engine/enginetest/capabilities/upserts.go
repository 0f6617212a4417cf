package capabilities

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"fieldapi/engine"
	"fieldapi/engine/enginetest/kit"
)

// The optional engine.Upserts (PUT by key), on the subject register when
// the client may give its key.
func init() {
	Tests = append(Tests,
		test("upserts create then update (engine.Upserts)", testUpsertCreatesThenUpdates),
		test("upserts of one new key run exactly once (engine.Upserts)", testUpsertExactlyOnce),
	)
}

// upsertCapture is an upsert's receipt that notes which answer rendered.
type upsertCapture struct {
	mu      sync.Mutex
	created int
	updated int
	rec     engine.Record
}

func (c *upsertCapture) receipt() engine.UpsertReceipt {
	render := func(status int, count *int) func(engine.Record) (engine.Response, error) {
		return func(rec engine.Record) (engine.Response, error) {
			c.mu.Lock()
			defer c.mu.Unlock()
			*count++
			c.rec = rec
			body, err := json.Marshal(rec)
			return engine.Response{Status: status, Body: body}, err
		}
	}
	return engine.UpsertReceipt{Created: render(201, &c.created), Updated: render(200, &c.updated)}
}

// upserts returns the capability and the subject's key, or skips.
func (s *suite) upserts(t *testing.T) engine.Upserts {
	t.Helper()
	ups := capability[engine.Upserts](t, s, "engine.Upserts")
	if !s.Subject.Reg.Upserts(s.Subject.Reg.KeyField()) {
		t.Skipf("the subject %s cannot be written by its key (PUT)", s.Subject.Reg.Name)
	}
	return ups
}

// testUpsertCreatesThenUpdates: an upsert of a new key creates the record
// with it (the created answer); the same input again changes nothing (the
// updated answer, Modified kept); other values update it; If-None-Match: *
// refuses a record that is there, If-Match (* or a version) one that is
// not, and neither writes.
func testUpsertCreatesThenUpdates(t *testing.T, s *suite) {
	ups := s.upserts(t)
	ctx := context.Background()
	reg := s.Subject.Reg.Name
	key := kit.UniqueName("upsert")
	by := engine.KeyRef{Field: s.Subject.Key, Value: key}
	upsert := func(in engine.Input, only engine.Presence) (*upsertCapture, error) {
		var c upsertCapture
		_, err := ups.Upsert(ctx, s.Company, reg, by, in, only, c.receipt())
		return &c, err
	}
	in := s.Subject.Input("Upserted")
	c, err := upsert(in, engine.CreateOrUpdate)
	if err != nil || c.created != 1 || c.updated != 0 {
		t.Fatalf("first Upsert: %v, created %d, updated %d; want a create", err, c.created, c.updated)
	}
	if got := kit.KeyIn(t, c.rec, s.Subject.Key); got != key {
		t.Fatalf("created %s %q; want the key given, %q", s.Subject.Key, got, key)
	}
	modified := c.rec["Modified"]
	s.Clock.Advance(time.Second)
	again, err := upsert(s.Subject.Input("Upserted"), engine.CreateOrUpdate)
	if err != nil || again.updated != 1 || again.created != 0 {
		t.Fatalf("Upsert of the same values: %v, created %d, updated %d; want the update answer", err, again.created, again.updated)
	}
	if again.rec["Modified"] != modified {
		t.Errorf("Upsert of the same values moved Modified from %v to %v; want no write", modified, again.rec["Modified"])
	}
	changed := engine.NewInput()
	changed.Values[s.Subject.Name] = "Upserted again"
	c, err = upsert(changed, engine.CreateOrUpdate)
	if err != nil || c.updated != 1 || c.rec[s.Subject.Name] != "Upserted again" {
		t.Fatalf("Upsert of a change: %v, updated %d, %s %v", err, c.updated, s.Subject.Name, c.rec[s.Subject.Name])
	}
	got, err := ups.GetBy(ctx, s.Company, reg, by)
	if err != nil || got[s.Subject.Name] != "Upserted again" {
		t.Fatalf("GetBy after the change: %v, %v", err, got)
	}

	if _, err := upsert(changed, engine.CreateOnly); !errors.Is(err, engine.ErrPreconditionFailed) {
		t.Errorf("CreateOnly on a record that is there: %v; want ErrPreconditionFailed", err)
	}
	absent := engine.KeyRef{Field: s.Subject.Key, Value: kit.UniqueName("absent")}
	for _, tc := range []struct {
		name    string
		only    engine.Presence
		ifMatch []string
	}{{"UpdateOnly", engine.UpdateOnly, nil}, {"If-Match a version", engine.UpdateOnly, []string{got.Version()}}} {
		in := s.Subject.Input("Never")
		in.IfMatch = tc.ifMatch
		var c upsertCapture
		if _, err := ups.Upsert(ctx, s.Company, reg, absent, in, tc.only, c.receipt()); !errors.Is(err, engine.ErrPreconditionFailed) {
			t.Errorf("%s on no record: %v; want ErrPreconditionFailed", tc.name, err)
		}
	}
	if _, err := ups.GetBy(ctx, s.Company, reg, absent); !errors.Is(err, engine.ErrNotFound) {
		t.Errorf("after the refused upserts, GetBy: %v; want ErrNotFound (nothing created)", err)
	}
	stale := s.Subject.Input("Stale")
	stale.IfMatch = []string{"not-a-version"}
	if _, err := upsert(stale, engine.UpdateOnly); !errors.Is(err, engine.ErrPreconditionFailed) {
		t.Errorf("If-Match of another version: %v; want ErrPreconditionFailed", err)
	}
	if _, err := ups.GetBy(ctx, s.Other, reg, by); !errors.Is(err, engine.ErrNotFound) {
		t.Errorf("GetBy from the other company: %v; want ErrNotFound", err)
	}
}

// testUpsertExactlyOnce: parallel upserts of one new key leave one record;
// every call succeeds, exactly one with the created answer.
func testUpsertExactlyOnce(t *testing.T, s *suite) {
	ups := s.upserts(t)
	const n = 16
	by := engine.KeyRef{Field: s.Subject.Key, Value: kit.UniqueName("race")}
	var wg sync.WaitGroup
	var c upsertCapture
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = ups.Upsert(context.Background(), s.Company, s.Subject.Reg.Name, by, s.Subject.Input("Race"), engine.CreateOrUpdate, c.receipt())
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("upsert %d: %v; want every one to succeed", i, err)
		}
	}
	if c.created != 1 || c.updated != n-1 {
		t.Errorf("created %d, updated %d; want 1 and %d", c.created, c.updated, n-1)
	}
	page, err := s.Engine.List(context.Background(), s.Company, s.Subject.Reg.Name,
		engine.Query{Limit: 10, Where: []engine.Condition{{Field: s.Subject.Key, Op: engine.OpEquals, Values: []any{by.Value}}}})
	if err != nil || len(page.Records) != 1 {
		t.Fatalf("records with the key: %v, %d; want 1", err, len(page.Records))
	}
}
