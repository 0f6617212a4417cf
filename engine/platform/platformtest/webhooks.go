package platformtest

import (
	"errors"
	"slices"
	"testing"
	"time"

	"fieldapi/engine"
)

var webhookTests = []test{
	{"webhook subscriptions", testWebhooks},
	{"webhook writes store their receipts", testWebhookReceipts},
}

// subscribe creates a subscription without an Idempotency-Key.
func (s *suite) subscribe(t *testing.T, company, sign, id string, types ...string) engine.Webhook {
	t.Helper()
	w := engine.Webhook{ID: id, URL: "https://example.com/" + id, EventTypes: types, Description: "hook " + id, Enabled: true, Secret: "whsec_" + id}
	if _, err := s.Platform.Webhooks().CreateWebhook(s.ctx, session(company, sign), w, receipt(engine.Claim{})); err != nil {
		t.Fatalf("CreateWebhook(%s): %v", id, err)
	}
	return w
}

// getWebhook reads a subscription of company A.
func (s *suite) getWebhook(t *testing.T, id string) engine.Webhook {
	t.Helper()
	w, err := s.Platform.Webhooks().GetWebhook(s.ctx, session(companyA, admin), id)
	if err != nil {
		t.Fatalf("GetWebhook(%s): %v", id, err)
	}
	return w
}

func sameWebhook(a, b engine.Webhook) bool {
	return a.ID == b.ID && a.URL == b.URL && slices.Equal(a.EventTypes, b.EventTypes) && a.Description == b.Description &&
		a.Enabled == b.Enabled && a.DisabledReason == b.DisabledReason && a.Created.Equal(b.Created) && a.Modified.Equal(b.Modified)
}

// testWebhooks: subscriptions are created, listed per company oldest
// first, read without their secret, changed field by field, and deleted;
// another company's or an unknown one is engine.ErrNotFound.
func testWebhooks(t *testing.T, s *suite) {
	hooks := s.Platform.Webhooks()
	a := session(companyA, admin)
	created := s.Clock.Now()
	first := s.subscribe(t, companyA, admin, "wh-2", "task.*")
	s.Clock.Advance(time.Second)
	s.subscribe(t, companyA, admin, "wh-1", "*")
	s.subscribe(t, companyB, admin, "wh-b", "*")

	got := s.getWebhook(t, "wh-2")
	want := first
	want.Secret, want.Created, want.Modified = "", created, created
	if !sameWebhook(got, want) || got.Secret != "" || got.PreviousExpiry != nil {
		t.Errorf("GetWebhook = %+v; want %+v, without secrets", got, want)
	}
	list, err := hooks.ListWebhooks(s.ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, w := range list {
		ids = append(ids, w.ID)
	}
	if !slices.Equal(ids, []string{"wh-2", "wh-1"}) {
		t.Errorf("ListWebhooks = %v; want company A's, oldest first: wh-2, wh-1", ids)
	}
	for _, id := range []string{"wh-b", "no-such-hook"} {
		if _, err := hooks.GetWebhook(s.ctx, a, id); !errors.Is(err, engine.ErrNotFound) {
			t.Errorf("GetWebhook(%s) from company A: %v; want engine.ErrNotFound", id, err)
		}
		if _, err := hooks.UpdateWebhook(s.ctx, a, id, engine.WebhookChange{}, receipt(engine.Claim{})); !errors.Is(err, engine.ErrNotFound) {
			t.Errorf("UpdateWebhook(%s) from company A: %v; want engine.ErrNotFound", id, err)
		}
		if err := hooks.DeleteWebhook(s.ctx, a, id); !errors.Is(err, engine.ErrNotFound) {
			t.Errorf("DeleteWebhook(%s) from company A: %v; want engine.ErrNotFound", id, err)
		}
	}

	s.Clock.Advance(time.Minute)
	url, off := "https://example.com/moved", false
	resp, err := hooks.UpdateWebhook(s.ctx, a, "wh-2", engine.WebhookChange{URL: &url, EventTypes: []string{"order.*"}, Enabled: &off}, receipt(engine.Claim{}))
	if err != nil {
		t.Fatalf("UpdateWebhook: %v", err)
	}
	want.URL, want.EventTypes, want.Enabled, want.Modified = url, []string{"order.*"}, false, s.Clock.Now()
	if got := s.getWebhook(t, "wh-2"); !sameWebhook(got, want) {
		t.Errorf("GetWebhook after UpdateWebhook = %+v; want %+v (the description kept)", got, want)
	}
	if body := decode(t, resp); body["url"] != url || body["enabled"] != false || body["description"] != want.Description {
		t.Errorf("UpdateWebhook rendered %s; want the subscription as changed", resp.Body)
	}

	s.Clock.Advance(time.Minute)
	resp, err = hooks.RotateSecret(s.ctx, a, "wh-2", "whsec_new", time.Hour, receipt(engine.Claim{}))
	if err != nil {
		t.Fatalf("RotateSecret: %v", err)
	}
	body := decode(t, resp)
	expires, _ := time.Parse(time.RFC3339Nano, body["previousSecretExpires"].(string))
	if body["secret"] != "whsec_new" || !expires.Equal(s.Clock.Now().Add(time.Hour)) {
		t.Errorf("RotateSecret rendered %s; want the new secret, the old one expiring in an hour", resp.Body)
	}
	if got := s.getWebhook(t, "wh-2"); !got.Modified.Equal(s.Clock.Now()) || got.Secret != "" {
		t.Errorf("GetWebhook after RotateSecret = %+v; want it modified now, without the secret", got)
	}

	if err := hooks.DeleteWebhook(s.ctx, a, "wh-2"); err != nil {
		t.Fatalf("DeleteWebhook: %v", err)
	}
	if _, err := hooks.GetWebhook(s.ctx, a, "wh-2"); !errors.Is(err, engine.ErrNotFound) {
		t.Errorf("GetWebhook of a deleted subscription: %v; want engine.ErrNotFound", err)
	}
	if list, _ := hooks.ListWebhooks(s.ctx, a); len(list) != 1 {
		t.Errorf("ListWebhooks after a delete lists %d; want 1", len(list))
	}
}

// testWebhookReceipts: a webhook write with an Idempotency-Key stores its
// rendered answer with the claim, which then replays; a write whose key
// another execution answered first, or whose answer cannot be rendered,
// changes nothing.
func testWebhookReceipts(t *testing.T, s *suite) {
	hooks := s.Platform.Webhooks()
	a := session(companyA, admin)
	c := newClaim("create-hook", "fp")
	s.expectState(t, "a new key", c, engine.Claimed)
	w := engine.Webhook{ID: "wh-1", URL: "https://example.com/in", EventTypes: []string{"*"}, Enabled: true, Secret: "whsec_1"}
	resp, err := hooks.CreateWebhook(s.ctx, a, w, receipt(c))
	if err != nil {
		t.Fatalf("CreateWebhook: %v", err)
	}
	if body := decode(t, resp); body["id"] != "wh-1" || body["secret"] != "whsec_1" || resp.Status != 200 {
		t.Errorf("CreateWebhook rendered %d %s; want the subscription with its secret", resp.Status, resp.Body)
	}
	res := s.expectState(t, "the key of a created subscription", newClaim("create-hook", "fp"), engine.Replay)
	if string(res.Response.Body) != string(resp.Body) {
		t.Errorf("Replay = %s; want the rendered %s", res.Response.Body, resp.Body)
	}

	lost := newClaim("update-hook", "fp")
	s.expectState(t, "a new key", lost, engine.Claimed)
	if err := s.Platform.Idempotency().Complete(s.ctx, lost, engine.Response{Status: 422}); err != nil {
		t.Fatal(err) // another execution of the key answered first
	}
	before := s.getWebhook(t, "wh-1")
	desc := "changed"
	if _, err := hooks.UpdateWebhook(s.ctx, a, "wh-1", engine.WebhookChange{Description: &desc}, receipt(lost)); !errors.Is(err, engine.ErrClaimLost) {
		t.Errorf("UpdateWebhook with a lost claim: %v; want engine.ErrClaimLost", err)
	}
	if _, err := hooks.RotateSecret(s.ctx, a, "wh-1", "whsec_2", time.Hour, receipt(lost)); !errors.Is(err, engine.ErrClaimLost) {
		t.Errorf("RotateSecret with a lost claim: %v; want engine.ErrClaimLost", err)
	}
	if _, err := hooks.Ping(s.ctx, a, "wh-1", receipt(lost)); !errors.Is(err, engine.ErrClaimLost) {
		t.Errorf("Ping with a lost claim: %v; want engine.ErrClaimLost", err)
	}
	failing := engine.Receipt{Render: func(engine.Record) (engine.Response, error) { return engine.Response{}, errRollBack }}
	if _, err := hooks.UpdateWebhook(s.ctx, a, "wh-1", engine.WebhookChange{Description: &desc}, failing); !errors.Is(err, errRollBack) {
		t.Errorf("UpdateWebhook whose answer cannot be rendered: %v; want the render's error", err)
	}
	lostCreate := w
	lostCreate.ID = "wh-lost"
	if _, err := hooks.CreateWebhook(s.ctx, a, lostCreate, receipt(lost)); !errors.Is(err, engine.ErrClaimLost) {
		t.Errorf("CreateWebhook with a lost claim: %v; want engine.ErrClaimLost", err)
	}
	if got := s.getWebhook(t, "wh-1"); !sameWebhook(got, before) {
		t.Errorf("subscription after failed writes = %+v; want it unchanged, %+v", got, before)
	}
	if _, err := hooks.GetWebhook(s.ctx, a, "wh-lost"); !errors.Is(err, engine.ErrNotFound) {
		t.Errorf("a subscription created with a lost claim: %v; want engine.ErrNotFound", err)
	}
	if list, err := hooks.Deliveries(s.ctx, a, "wh-1", 10); err != nil || len(list) != 0 {
		t.Errorf("deliveries after a ping with a lost claim = %v, %v; want none", list, err)
	}
	// Secrets unchanged: a delivery is still signed with the first one only.
	s.record(t, companyA, 1, s.event(companyA, "tasks", "task.created", "1"))
	claimed := s.dispatchAndClaim(t, 1)
	if !slices.Equal(claimed[0].Secrets, []string{"whsec_1"}) {
		t.Errorf("secrets after a rotation with a lost claim = %v; want only whsec_1", claimed[0].Secrets)
	}
}
