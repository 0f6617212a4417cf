package memplatform

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"time"

	"fieldapi/engine"
	"fieldapi/engine/platform"
)

// hook is a subscription with its deliveries.
type hook struct {
	engine.Webhook                    // as listed: no Secret, no PreviousExpiry
	owner          platform.Signature // who subscribed: the events it gets are those this signature may read
	secret         string
	previousSecret string
	previousUntil  time.Time
	cursor         int64       // the last feed position dispatched to it
	deliveries     []*delivery // oldest first: ids increase
}

// view is the subscription as listed, the caller's to keep.
func (h *hook) view() engine.Webhook {
	w := h.Webhook
	w.EventTypes = slices.Clone(w.EventTypes)
	return w
}

// delivery returns one of the subscription's deliveries, or nil.
func (h *hook) delivery(id int64) *delivery {
	i, found := slices.BinarySearchFunc(h.deliveries, id, func(d *delivery, id int64) int { return cmp.Compare(d.id, id) })
	if !found {
		return nil
	}
	return h.deliveries[i]
}

// delivery is one message to one subscription.
type delivery struct {
	id          int64
	company     string
	webhookID   string
	messageID   string
	eventType   string
	payload     []byte // shared with the feed: never changed
	state       string
	tries       int
	nextAttempt time.Time // while pending
	lease       string    // the worker's hold, "" when none
	leaseUntil  time.Time
	created     time.Time
	attempts    []engine.Attempt
}

// view is the delivery as listed, the caller's to keep.
func (d *delivery) view() engine.Delivery {
	v := engine.Delivery{ID: d.id, WebhookID: d.webhookID, MessageID: d.messageID, EventType: d.eventType, State: d.state,
		Attempts: append([]engine.Attempt{}, d.attempts...), Created: d.created}
	if d.state == engine.DeliveryPending {
		next := d.nextAttempt
		v.NextAttemptAt = &next
	}
	return v
}

// newDelivery is a delivery due now, with the next id; it is the
// subscription's once queue adds it. The caller holds the mutex.
func (p *Platform) newDelivery(h *hook, messageID, eventType string, payload []byte) *delivery {
	now := p.now()
	return &delivery{id: p.deliveries + 1, company: h.owner.Company, webhookID: h.ID, messageID: messageID, eventType: eventType,
		payload: payload, state: engine.DeliveryPending, nextAttempt: now, created: now}
}

// queue adds a delivery made by newDelivery to its subscription.
func (p *Platform) queue(h *hook, d *delivery) {
	p.deliveries = d.id
	h.deliveries = append(h.deliveries, d)
}

// webhookStore is the platform's engine.WebhookStore.
type webhookStore struct{ *Platform }

var errWebhookIDTaken = errors.New("memplatform: the webhook id is taken")

// withHook runs f under the mutex on one subscription of the company, or
// fails with engine.ErrNotFound.
func withHook[T any](p *Platform, company, id string, f func(h *hook) (T, error)) (T, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	h := p.hooks[id]
	if h == nil || h.owner.Company != company {
		var none T
		return none, engine.ErrNotFound
	}
	return f(h)
}

// settled renders the receipt of a webhook write from v and stores it
// with the write's claim, then makes the write (apply). When the receipt
// cannot be rendered or the claim was lost, nothing changes: the write
// rolls back. The caller holds the mutex.
func (p *Platform) settled(r engine.Receipt, v any, apply func()) (engine.Response, error) {
	resp, err := platform.Receipt(r, v, func(c engine.Claim, resp engine.Response) error {
		_, err := p.settle(c, resp)
		return err
	})
	if err == nil {
		apply()
	}
	return resp, err
}

func (p webhookStore) CreateWebhook(_ context.Context, s engine.Session, w engine.Webhook, r engine.Receipt) (engine.Response, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, taken := p.hooks[w.ID]; taken {
		return engine.Response{}, errWebhookIDTaken
	}
	now := p.now()
	w.Created, w.Modified = now, now
	return p.settled(r, w, func() {
		h := &hook{Webhook: w, owner: platform.Signature{Company: s.Company, Sign: s.Sign}, secret: w.Secret}
		h.EventTypes, h.DisabledReason, h.Secret, h.PreviousExpiry = slices.Clone(w.EventTypes), "", "", nil
		if f := p.feeds[s.Company]; f != nil {
			h.cursor = f.last // events recorded before the subscription are not its business
		}
		p.hooks[w.ID] = h
	})
}

func (p webhookStore) ListWebhooks(_ context.Context, s engine.Session) ([]engine.Webhook, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := []engine.Webhook{}
	for _, h := range p.hooks {
		if h.owner.Company == s.Company {
			out = append(out, h.view())
		}
	}
	slices.SortFunc(out, func(a, b engine.Webhook) int { return cmp.Or(a.Created.Compare(b.Created), cmp.Compare(a.ID, b.ID)) })
	return out, nil
}

func (p webhookStore) GetWebhook(_ context.Context, s engine.Session, id string) (engine.Webhook, error) {
	return withHook(p.Platform, s.Company, id, func(h *hook) (engine.Webhook, error) { return h.view(), nil })
}

func (p webhookStore) UpdateWebhook(_ context.Context, s engine.Session, id string, c engine.WebhookChange, r engine.Receipt) (engine.Response, error) {
	return withHook(p.Platform, s.Company, id, func(h *hook) (engine.Response, error) {
		w := h.view()
		platform.ApplyChange(&w, c)
		w.Modified = p.now()
		return p.settled(r, w, func() { h.Webhook = w })
	})
}

func (p webhookStore) RotateSecret(_ context.Context, s engine.Session, id, secret string, keepOld time.Duration, r engine.Receipt) (engine.Response, error) {
	return withHook(p.Platform, s.Company, id, func(h *hook) (engine.Response, error) {
		w := h.view()
		w.Modified = p.now()
		until := w.Modified.Add(keepOld)
		answer := w
		answer.Secret, answer.PreviousExpiry = secret, &until
		return p.settled(r, answer, func() {
			h.previousSecret, h.previousUntil, h.secret = h.secret, platform.Stored(until), secret
			h.Webhook = w
		})
	})
}

func (p webhookStore) DeleteWebhook(_ context.Context, s engine.Session, id string) error {
	_, err := withHook(p.Platform, s.Company, id, func(*hook) (bool, error) {
		delete(p.hooks, id) // with its deliveries
		return true, nil
	})
	return err
}

func (p webhookStore) Deliveries(_ context.Context, s engine.Session, id string, limit int) ([]engine.Delivery, error) {
	return withHook(p.Platform, s.Company, id, func(h *hook) ([]engine.Delivery, error) {
		out := []engine.Delivery{}
		for i := len(h.deliveries) - 1; i >= 0 && len(out) < limit; i-- {
			out = append(out, h.deliveries[i].view())
		}
		return out, nil
	})
}

func (p webhookStore) Redeliver(_ context.Context, s engine.Session, id string, delivery int64, r engine.Receipt) (engine.Response, error) {
	return withHook(p.Platform, s.Company, id, func(h *hook) (engine.Response, error) {
		d := h.delivery(delivery)
		if d == nil {
			return engine.Response{}, engine.ErrNotFound
		}
		again := *d
		// Due now; a worker still holding it keeps its lease, as in SQL.
		again.state, again.nextAttempt, again.leaseUntil = engine.DeliveryPending, p.now(), time.Time{}
		return p.settled(r, again.view(), func() { *d = again })
	})
}

func (p webhookStore) Ping(_ context.Context, s engine.Session, id string, r engine.Receipt) (engine.Response, error) {
	return withHook(p.Platform, s.Company, id, func(h *hook) (engine.Response, error) {
		msgID, payload := platform.NewPing(s.Company, id, p.clock())
		d := p.newDelivery(h, msgID, platform.PingType, payload)
		return p.settled(r, d.view(), func() { p.queue(h, d) })
	})
}
