// Package platformtest is the conformance suite of engine/platform: what
// any platform.Platform must do, checked on a fresh platform per subtest.
// A platform proves itself with one test:
//
//	func TestPlatform(t *testing.T) {
//		platformtest.Run(t, func(t *testing.T) platformtest.Harness {
//			clock := platformtest.NewClock()
//			records := mystore.Open(t)  // an empty record store
//			return platformtest.Harness{
//				Platform: myplatform.New(records, clock.Now),
//				Store:    records,
//				Clock:    clock,
//			}
//		})
//	}
//
// It checks every state of an Idempotency-Key claim, with leases moved by
// the clock rather than waited for; a claim settled and events recorded in
// a record store's transaction that commits, rolls back, or lost its
// claim; API keys and tokens; the feed (gap-free positions per company,
// paging, type patterns, register and readable filters, cursor expiry);
// webhook subscriptions, and their deliveries from dispatch to claim to
// finish (success, retry, giving up, a lost lease, redelivery, ping).
//
// Files: platformtest.go (the harness and helpers), claims.go,
// writes.go, keys.go, feed.go, webhooks.go, queue.go.
package platformtest

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"

	"fieldapi/engine"
	"fieldapi/engine/platform"
	"fieldapi/engine/store"
	"fieldapi/internal/testclock"
)

// Harness is one platform under test.
type Harness struct {
	// Platform is empty, its storage ready.
	Platform platform.Platform
	// Store is a record store whose transactions Platform.Bind accepts.
	Store store.Store
	// Clock is the platform's clock: the suite moves it for leases,
	// retries and pruning, and never sleeps.
	Clock *Clock
}

// Clock is a clock the suite moves by hand.
type Clock = testclock.Clock

// NewClock returns a clock at a fixed instant, on a whole second.
func NewClock() *Clock { return testclock.New(time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)) }

type test struct {
	name string
	run  func(t *testing.T, s *suite)
}

// Run runs the suite. newHarness is called once per subtest, which run in
// parallel.
func Run(t *testing.T, newHarness func(t *testing.T) Harness) {
	var all []test
	for _, group := range [][]test{claimTests, writeTests, keyTests, feedTests, webhookTests, queueTests} {
		all = append(all, group...)
	}
	for _, tc := range all {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			if h.Platform == nil || h.Store == nil || h.Clock == nil {
				t.Fatal("platformtest: the harness needs a Platform, a Store and a Clock")
			}
			tc.run(t, &suite{Harness: h, ctx: context.Background()})
		})
	}
}

// suite is one subtest's harness with the helpers the tests share.
type suite struct {
	Harness
	ctx context.Context
}

// The companies and signatures the suite uses.
const (
	companyA = "company-a"
	companyB = "company-b"
	admin    = "ADM"     // may read every register
	limited  = "LIMITED" // may read customers only
)

// readable is the suite's platform.Readable: limited reads customers only.
func readable(_ context.Context, _, sign string) ([]string, error) {
	if sign == limited {
		return []string{"customers"}, nil
	}
	return nil, nil
}

// write runs fn with the platform's writes in one transaction of the
// record store, and returns what the transaction returned.
func (s *suite) write(fn func(ctx context.Context, w platform.Writes) error) error {
	return s.Store.Write(s.ctx, func(ctx context.Context, tx store.Tx) error {
		w, err := s.Platform.Bind(tx)
		if err != nil {
			return err
		}
		return fn(ctx, w)
	})
}

// event is a change of a record at the clock's time.
func (s *suite) event(company, register, eventType, key string) platform.Event {
	return platform.Event{
		ID: platform.NewID("evt_"), Type: eventType, OccurredAt: platform.OccurredAt(s.Clock.Now()),
		Company: company, Register: register, Key: key,
		Actor:         platform.Actor{ClientID: "client-1", Sign: admin},
		ChangedFields: []string{"Name"}, Data: engine.Record{"Key": key, "Name": "Åsa \"quoted\" <b>"},
	}
}

// record commits events of the company in one write and returns them
// with the positions the suite expects them to get.
func (s *suite) record(t *testing.T, company string, first int64, events ...platform.Event) []platform.Event {
	t.Helper()
	if err := s.write(func(ctx context.Context, w platform.Writes) error { return w.Record(ctx, company, events) }); err != nil {
		t.Fatalf("a write recording %d events: %v", len(events), err)
	}
	out := make([]platform.Event, len(events))
	for i, ev := range events {
		ev.Position = first + int64(i)
		out[i] = ev
	}
	return out
}

// feed reads a page of the feed.
func (s *suite) feed(t *testing.T, company string, q engine.EventQuery, readable []string) engine.EventPage {
	t.Helper()
	page, err := s.Platform.Feed(s.ctx, company, q, readable)
	if err != nil {
		t.Fatalf("Feed(%s, %+v, %v): %v", company, q, readable, err)
	}
	return page
}

// positions lists a page's positions.
func positions(events []engine.Event) []int64 {
	out := []int64{}
	for _, e := range events {
		out = append(out, e.Position)
	}
	return out
}

// samePayload checks a listed event carries exactly want's payload, with
// its position.
func samePayload(t *testing.T, got engine.Event, want platform.Event) {
	t.Helper()
	payload, err := want.Payload()
	if err != nil {
		t.Fatal(err)
	}
	if got.Position != want.Position || got.ID != want.ID || got.Type != want.Type || !bytes.Equal(got.Payload, payload) {
		t.Errorf("event at %d = %d %s %s %s; want %d %s %s %s", want.Position,
			got.Position, got.ID, got.Type, got.Payload, want.Position, want.ID, want.Type, payload)
	}
}

// newClaim is a claim on key of the suite's scope, which holds NUL
// characters as the HTTP layer's scopes do.
func newClaim(key, fingerprint string) engine.Claim {
	return engine.Claim{Scope: "client-1\x00" + companyA + "\x00POST /v1/things", Key: key, Fingerprint: fingerprint}
}

// claim claims c and returns the outcome.
func (s *suite) claim(t *testing.T, c engine.Claim) engine.ClaimResult {
	t.Helper()
	res, err := s.Platform.Idempotency().Claim(s.ctx, c)
	if err != nil {
		t.Fatalf("Claim(%q): %v", c.Key, err)
	}
	return res
}

// expectState claims c and checks the state it finds.
func (s *suite) expectState(t *testing.T, what string, c engine.Claim, want engine.ClaimState) engine.ClaimResult {
	t.Helper()
	res := s.claim(t, c)
	if res.State != want {
		t.Errorf("%s: Claim = %s; want %s", what, res.State, want)
	}
	return res
}

// receipt renders a record as the HTTP layer does, as JSON, for claim c
// (none: a write without an Idempotency-Key).
func receipt(c engine.Claim) engine.Receipt {
	return engine.Receipt{Claim: c, Render: func(rec engine.Record) (engine.Response, error) {
		body, err := json.Marshal(rec)
		return engine.Response{Status: 200, Body: body, Version: "rendered"}, err
	}}
}

// decode reads a rendered response's JSON object.
func decode(t *testing.T, resp engine.Response) map[string]any {
	t.Helper()
	var obj map[string]any
	if err := json.Unmarshal(resp.Body, &obj); err != nil {
		t.Fatalf("rendered body %q: %v", resp.Body, err)
	}
	return obj
}

func session(company, sign string) engine.Session {
	return engine.Session{Company: company, Sign: sign, ClientID: "client-1"}
}
