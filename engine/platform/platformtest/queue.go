package platformtest

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"fieldapi/engine"
	"fieldapi/engine/platform"
	"fieldapi/engine/store"
)

var queueTests = []test{
	{"dispatch, claim and finish", testDispatchClaimFinish},
	{"retries, then giving up disables the subscription", testRetryAndGiveUp},
	{"a finish with a lost lease is ignored", testLostLease},
	{"redeliver and ping", testRedeliverAndPing},
	{"a rotated secret signs until it expires", testRotatedSecret},
	{"dispatch asks what a signature may read outside its transaction", testDispatchReadableOutside},
}

// dispatch runs Dispatch with the suite's readable registers.
func (s *suite) dispatch(t *testing.T, want int) {
	t.Helper()
	n, err := s.Platform.Dispatch(s.ctx, 100, readable)
	if err != nil || n != want {
		t.Fatalf("Dispatch = %d, %v; want %d", n, err, want)
	}
}

// claimDue claims due deliveries for a minute.
func (s *suite) claimDue(t *testing.T, want int) []engine.ClaimedDelivery {
	t.Helper()
	claimed, err := s.Platform.Claim(s.ctx, time.Minute, 10)
	if err != nil || len(claimed) != want {
		t.Fatalf("Claim = %d deliveries, %v; want %d", len(claimed), err, want)
	}
	return claimed
}

func (s *suite) dispatchAndClaim(t *testing.T, want int) []engine.ClaimedDelivery {
	t.Helper()
	s.dispatch(t, want)
	return s.claimDue(t, want)
}

func sameAttempt(a, b engine.Attempt) bool {
	return a.At.Equal(b.At) && a.StatusCode == b.StatusCode && a.LatencyMs == b.LatencyMs && a.Error == b.Error
}

func (s *suite) finish(t *testing.T, c engine.ClaimedDelivery, o engine.Outcome) {
	t.Helper()
	if err := s.Platform.Finish(s.ctx, c, o); err != nil {
		t.Fatalf("Finish(%d): %v", c.ID, err)
	}
}

// deliveries lists a subscription of company A's deliveries.
func (s *suite) deliveries(t *testing.T, id string) []engine.Delivery {
	t.Helper()
	list, err := s.Platform.Webhooks().Deliveries(s.ctx, session(companyA, admin), id, 10)
	if err != nil {
		t.Fatalf("Deliveries(%s): %v", id, err)
	}
	return list
}

// testDispatchClaimFinish: Dispatch gives each enabled subscription the
// events recorded after it was created that match its types and that its
// signature may read, once; Claim hands them out under a lease with what a
// worker sends; Finish records a success; the deliveries list newest first.
func testDispatchClaimFinish(t *testing.T, s *suite) {
	s.record(t, companyA, 1, s.event(companyA, "tasks", "task.created", "before"))
	s.subscribe(t, companyA, admin, "wh-tasks", "task.*")
	s.subscribe(t, companyA, limited, "wh-limited", "*")
	s.subscribe(t, companyB, admin, "wh-b", "*")
	off := s.subscribe(t, companyA, admin, "wh-off", "*")
	enabled := false
	if _, err := s.Platform.Webhooks().UpdateWebhook(s.ctx, session(companyA, admin), off.ID, engine.WebhookChange{Enabled: &enabled}, receipt(engine.Claim{})); err != nil {
		t.Fatal(err)
	}
	a := s.record(t, companyA, 2,
		s.event(companyA, "tasks", "task.created", "T1"),
		s.event(companyA, "customers", "customer.created", "C1"),
		s.event(companyA, "tasks", "task.status_changed", "T1"))
	s.record(t, companyB, 1, s.event(companyB, "orders", "order.line_added", "O1"))

	s.dispatch(t, 4) // wh-tasks: 2 task events; wh-limited: the customer event; wh-b: 1
	s.dispatch(t, 0)
	created := s.Clock.Now()
	claimed := s.claimDue(t, 4)
	if more, err := s.Platform.Claim(s.ctx, time.Minute, 10); err != nil || len(more) != 0 {
		t.Errorf("Claim while the deliveries are leased = %d, %v; want none", len(more), err)
	}
	byHook := map[string][]engine.ClaimedDelivery{}
	for _, c := range claimed {
		byHook[c.WebhookID] = append(byHook[c.WebhookID], c)
	}
	if len(byHook["wh-tasks"]) != 2 || len(byHook["wh-limited"]) != 1 || len(byHook["wh-b"]) != 1 {
		t.Fatalf("claimed per subscription: %d, %d, %d; want 2 (wh-tasks), 1 (wh-limited), 1 (wh-b)",
			len(byHook["wh-tasks"]), len(byHook["wh-limited"]), len(byHook["wh-b"]))
	}
	want := []platform.Event{a[0], a[2]}
	for i, c := range byHook["wh-tasks"] {
		payload, _ := want[i].Payload()
		if c.Company != companyA || c.URL != "https://example.com/wh-tasks" || !slices.Equal(c.Secrets, []string{"whsec_wh-tasks"}) ||
			c.MessageID != want[i].ID || string(c.Payload) != string(payload) || c.Tries != 0 || !c.Created.Equal(created) || c.Lease == "" {
			t.Errorf("claimed delivery %d = %+v; want event %d of %s, signed with its secret, payload %s", i, c, want[i].Position, companyA, payload)
		}
	}
	if c := byHook["wh-limited"][0]; c.MessageID != a[1].ID {
		t.Errorf("the limited signature's delivery is %s; want the customer event %s", c.MessageID, a[1].ID)
	}

	s.Clock.Advance(time.Second)
	attempt := engine.Attempt{At: s.Clock.Now(), StatusCode: 204, LatencyMs: 12.5}
	s.finish(t, byHook["wh-tasks"][0], engine.Outcome{Attempt: attempt, Done: true})
	list := s.deliveries(t, "wh-tasks")
	if len(list) != 2 {
		t.Fatalf("Deliveries = %d; want 2", len(list))
	}
	pending, done := list[0], list[1]
	if done.ID != byHook["wh-tasks"][0].ID || done.State != engine.DeliverySucceeded || done.NextAttemptAt != nil ||
		len(done.Attempts) != 1 || !sameAttempt(done.Attempts[0], attempt) || done.MessageID != a[0].ID || done.EventType != "task.created" || !done.Created.Equal(created) {
		t.Errorf("the delivered one, listed last = %+v; want succeeded with its attempt %+v", done, attempt)
	}
	if pending.State != engine.DeliveryPending || pending.NextAttemptAt == nil || len(pending.Attempts) != 0 || pending.Attempts == nil {
		t.Errorf("the other, listed first = %+v; want pending with its next attempt and no attempts", pending)
	}
	if list, err := s.Platform.Webhooks().Deliveries(s.ctx, session(companyA, admin), "wh-tasks", 1); err != nil || len(list) != 1 || list[0].ID != pending.ID {
		t.Errorf("Deliveries limited to 1 = %v, %v; want the newest", list, err)
	}
	if _, err := s.Platform.Webhooks().Deliveries(s.ctx, session(companyA, admin), "wh-b", 10); !errors.Is(err, engine.ErrNotFound) {
		t.Errorf("Deliveries of another company's subscription: %v; want engine.ErrNotFound", err)
	}

	// Deleting a subscription deletes its deliveries; a worker's finish of
	// one then changes nothing.
	if err := s.Platform.Webhooks().DeleteWebhook(s.ctx, session(companyA, admin), "wh-tasks"); err != nil {
		t.Fatal(err)
	}
	s.finish(t, byHook["wh-tasks"][1], engine.Outcome{Attempt: attempt, Done: true})
	s.Clock.Advance(2 * time.Minute)
	s.claimDue(t, 2) // wh-limited's and wh-b's, their leases over
}

// testRetryAndGiveUp: a failed attempt makes the delivery due again at
// RetryAt, with its tries counted; giving up fails it for good and
// disables the subscription with the reason, whose other deliveries are
// then not claimed and whose cursor stays until it is enabled again.
func testRetryAndGiveUp(t *testing.T, s *suite) {
	s.subscribe(t, companyA, admin, "wh", "*")
	s.record(t, companyA, 1, s.event(companyA, "tasks", "task.created", "1"), s.event(companyA, "tasks", "task.created", "2"))
	s.dispatch(t, 2)
	claimed, err := s.Platform.Claim(s.ctx, time.Minute, 1)
	if err != nil || len(claimed) != 1 {
		t.Fatalf("Claim of 1 = %d, %v", len(claimed), err)
	}
	first := claimed[0]
	retryAt := s.Clock.Now().Add(30 * time.Second) // before the other's lease ends
	s.finish(t, first, engine.Outcome{Attempt: engine.Attempt{At: s.Clock.Now(), Error: "timeout"}, RetryAt: retryAt})
	list := s.deliveries(t, "wh")
	if d := list[1]; d.State != engine.DeliveryPending || d.NextAttemptAt == nil || !d.NextAttemptAt.Equal(retryAt) || len(d.Attempts) != 1 || d.Attempts[0].Error != "timeout" {
		t.Errorf("a delivery to retry = %+v; want pending until %v with its failed attempt", d, retryAt)
	}
	second := s.claimDue(t, 1)[0] // the other one; the first is not due yet
	if second.ID == first.ID {
		t.Fatal("Claim handed out a delivery before its retry time")
	}
	s.Clock.Advance(30 * time.Second)
	again := s.claimDue(t, 1)[0]
	if again.ID != first.ID || again.Tries != 1 {
		t.Fatalf("Claim at the retry time = delivery %d, tries %d; want %d, tries 1", again.ID, again.Tries, first.ID)
	}

	s.finish(t, again, engine.Outcome{Attempt: engine.Attempt{At: s.Clock.Now(), StatusCode: 410}, GiveUp: "the receiver answered 410 Gone"})
	w := s.getWebhook(t, "wh")
	if w.Enabled || w.DisabledReason != "the receiver answered 410 Gone" || !w.Modified.Equal(s.Clock.Now()) {
		t.Errorf("subscription after giving up = %+v; want disabled with the reason, modified now", w)
	}
	if d := s.deliveries(t, "wh")[1]; d.State != engine.DeliveryFailed || d.NextAttemptAt != nil || len(d.Attempts) != 2 {
		t.Errorf("a delivery given up = %+v; want failed with 2 attempts", d)
	}
	s.Clock.Advance(2 * time.Minute) // the second delivery's lease is over, but its subscription is disabled
	s.claimDue(t, 0)
	s.record(t, companyA, 3, s.event(companyA, "tasks", "task.created", "3"))
	s.dispatch(t, 0)

	on := true
	if _, err := s.Platform.Webhooks().UpdateWebhook(s.ctx, session(companyA, admin), "wh", engine.WebhookChange{Enabled: &on}, receipt(engine.Claim{})); err != nil {
		t.Fatal(err)
	}
	if w := s.getWebhook(t, "wh"); !w.Enabled || w.DisabledReason != "" {
		t.Errorf("subscription enabled again = %+v; want enabled, its reason cleared", w)
	}
	s.dispatch(t, 1) // the event recorded while it was disabled
	s.claimDue(t, 2) // that one and the second, whose lease ran out
}

// testLostLease: a delivery held under a lease is not claimed again
// until the lease ends; then another worker takes it, and the first
// worker's finish is ignored.
func testLostLease(t *testing.T, s *suite) {
	s.subscribe(t, companyA, admin, "wh", "*")
	s.record(t, companyA, 1, s.event(companyA, "tasks", "task.created", "1"))
	slow := s.dispatchAndClaim(t, 1)[0]
	s.Clock.Advance(30 * time.Second)
	s.claimDue(t, 0)
	s.Clock.Advance(31 * time.Second)
	fast := s.claimDue(t, 1)[0]
	if fast.ID != slow.ID || fast.Lease == slow.Lease {
		t.Fatalf("Claim after the lease ended = %d (lease %s); want %d under a new lease", fast.ID, fast.Lease, slow.ID)
	}
	s.finish(t, slow, engine.Outcome{Attempt: engine.Attempt{At: s.Clock.Now(), StatusCode: 200}, Done: true})
	if d := s.deliveries(t, "wh")[0]; d.State != engine.DeliveryPending || len(d.Attempts) != 0 {
		t.Errorf("delivery after a finish with a lost lease = %+v; want it pending, without attempts", d)
	}
	s.finish(t, fast, engine.Outcome{Attempt: engine.Attempt{At: s.Clock.Now(), StatusCode: 500, Error: "boom"}, GiveUp: "gave up"})
	if d := s.deliveries(t, "wh")[0]; d.State != engine.DeliveryFailed || len(d.Attempts) != 1 || d.Attempts[0].StatusCode != 500 {
		t.Errorf("delivery after the holder's finish = %+v; want failed with its attempt", d)
	}
	s.finish(t, fast, engine.Outcome{Attempt: engine.Attempt{At: s.Clock.Now(), StatusCode: 200}, Done: true})
	if d := s.deliveries(t, "wh")[0]; d.State != engine.DeliveryFailed || len(d.Attempts) != 1 {
		t.Errorf("delivery after a second finish with the same lease = %+v; want it unchanged", d)
	}
}

// testRedeliverAndPing: Redeliver makes a delivery due now again; Ping
// queues a webhook.ping message; both answer with the delivery, stored
// with their claim; another subscription's delivery is engine.ErrNotFound.
func testRedeliverAndPing(t *testing.T, s *suite) {
	hooks := s.Platform.Webhooks()
	a := session(companyA, admin)
	s.subscribe(t, companyA, admin, "wh", "*")
	s.subscribe(t, companyA, admin, "wh-other", "*")
	s.subscribe(t, companyB, admin, "wh-b", "*")
	s.record(t, companyA, 1, s.event(companyA, "tasks", "task.created", "1"))
	claimed := s.dispatchAndClaim(t, 2)
	for _, c := range claimed {
		s.finish(t, c, engine.Outcome{Attempt: engine.Attempt{At: s.Clock.Now(), StatusCode: 200}, Done: true})
	}
	delivered := s.deliveries(t, "wh")[0]

	s.Clock.Advance(time.Hour)
	c := newClaim("redeliver", "fp")
	s.expectState(t, "a new key", c, engine.Claimed)
	resp, err := hooks.Redeliver(s.ctx, a, "wh", delivered.ID, receipt(c))
	if err != nil {
		t.Fatalf("Redeliver: %v", err)
	}
	if body := decode(t, resp); body["state"] != engine.DeliveryPending || body["id"] != float64(delivered.ID) || len(body["attempts"].([]any)) != 1 {
		t.Errorf("Redeliver rendered %s; want the delivery, pending, with its attempt", resp.Body)
	}
	s.expectState(t, "the key of a redelivery", newClaim("redeliver", "fp"), engine.Replay)
	again := s.claimDue(t, 1)[0]
	if again.ID != delivered.ID || again.Tries != 1 {
		t.Errorf("Claim after Redeliver = %d, tries %d; want %d, tries 1", again.ID, again.Tries, delivered.ID)
	}
	for _, wrong := range []struct {
		hook     string
		delivery int64
	}{{"wh-other", delivered.ID}, {"wh", delivered.ID + 1000}, {"wh-b", delivered.ID}} {
		if _, err := hooks.Redeliver(s.ctx, a, wrong.hook, wrong.delivery, receipt(engine.Claim{})); !errors.Is(err, engine.ErrNotFound) {
			t.Errorf("Redeliver(%s, %d): %v; want engine.ErrNotFound", wrong.hook, wrong.delivery, err)
		}
	}

	if _, err := hooks.Ping(s.ctx, a, "wh-b", receipt(engine.Claim{})); !errors.Is(err, engine.ErrNotFound) {
		t.Errorf("Ping of another company's subscription: %v; want engine.ErrNotFound", err)
	}
	resp, err = hooks.Ping(s.ctx, a, "wh-other", receipt(engine.Claim{}))
	if err != nil {
		t.Fatalf("Ping: %v", err)
	}
	if body := decode(t, resp); body["eventType"] != platform.PingType || body["state"] != engine.DeliveryPending || body["webhookId"] != "wh-other" {
		t.Errorf("Ping rendered %s; want a pending %s delivery", resp.Body, platform.PingType)
	}
	ping := s.claimDue(t, 1)[0]
	var msg map[string]any
	if err := json.Unmarshal(ping.Payload, &msg); err != nil {
		t.Fatal(err)
	}
	if ping.WebhookID != "wh-other" || !strings.HasPrefix(ping.MessageID, "msg_") || msg["id"] != ping.MessageID ||
		msg["type"] != platform.PingType || msg["company"] != companyA || msg["webhookId"] != "wh-other" || msg["occurredAt"] != platform.OccurredAt(s.Clock.Now()) {
		t.Errorf("claimed ping = %+v, payload %s; want a webhook.ping message of wh-other", ping, ping.Payload)
	}
}

// testRotatedSecret: after a rotation deliveries carry the new secret and,
// until keepOld has passed, the previous one.
func testRotatedSecret(t *testing.T, s *suite) {
	s.subscribe(t, companyA, admin, "wh", "*")
	if _, err := s.Platform.Webhooks().RotateSecret(s.ctx, session(companyA, admin), "wh", "whsec_new", time.Hour, receipt(engine.Claim{})); err != nil {
		t.Fatal(err)
	}
	s.record(t, companyA, 1, s.event(companyA, "tasks", "task.created", "1"))
	if c := s.dispatchAndClaim(t, 1)[0]; !slices.Equal(c.Secrets, []string{"whsec_new", "whsec_wh"}) {
		t.Errorf("secrets within keepOld = %v; want the new one, then the old one", c.Secrets)
	}
	s.Clock.Advance(time.Hour + time.Second)
	s.record(t, companyA, 2, s.event(companyA, "tasks", "task.created", "2"))
	s.dispatch(t, 1)
	for _, c := range s.claimDue(t, 2) { // with the first, whose lease ran out
		if !slices.Equal(c.Secrets, []string{"whsec_new"}) {
			t.Errorf("secrets after keepOld = %v; want the new one only", c.Secrets)
		}
	}
}

// testDispatchReadableOutside: Dispatch asks readable before it opens its
// transaction: readable reads the records, through another connection of
// the storage, and must not wait on a write the dispatcher holds (on
// SQLite that deadlocked against the write lock). Here it writes to the
// record store and calls the platform, each with a deadline.
func testDispatchReadableOutside(t *testing.T, s *suite) {
	s.subscribe(t, companyA, admin, "wh-a", "*")
	s.subscribe(t, companyA, admin, "wh-b", "*")
	s.subscribe(t, companyA, limited, "wh-c", "*")
	s.record(t, companyA, 1, s.event(companyA, "tasks", "task.created", "1"))
	var asked atomic.Int32
	probe := func(ctx context.Context, company, sign string) ([]string, error) {
		asked.Add(1)
		ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		if err := s.Store.Write(ctx, func(context.Context, store.Tx) error { return nil }); err != nil {
			return nil, err
		}
		done := make(chan error, 1)
		go func() { _, err := s.Platform.Keys().ListKeys(ctx, company); done <- err }()
		select {
		case err := <-done:
			if err != nil {
				return nil, err
			}
		case <-ctx.Done():
			return nil, errors.New("the platform did not answer inside Dispatch's readable")
		}
		return readable(ctx, company, sign)
	}
	n, err := s.Platform.Dispatch(s.ctx, 100, probe)
	if err != nil || n != 2 {
		t.Fatalf("Dispatch with a readable that writes and reads = %d, %v; want 2 (the limited signature reads no tasks)", n, err)
	}
	if got := asked.Load(); got != 2 {
		t.Errorf("readable was asked %d times; want once per signature (2)", got)
	}
	if n, err := s.Platform.Dispatch(s.ctx, 100, func(context.Context, string, string) ([]string, error) {
		t.Error("readable asked when no subscription is behind")
		return nil, nil
	}); err != nil || n != 0 {
		t.Errorf("Dispatch with nothing new = %d, %v; want 0", n, err)
	}
}
