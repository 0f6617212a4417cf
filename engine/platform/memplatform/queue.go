package memplatform

import (
	"cmp"
	"context"
	"slices"
	"time"

	"fieldapi/engine"
	"fieldapi/engine/platform"
)

// Dispatch gives each enabled subscription deliveries for the events
// recorded after its cursor, then moves the cursor.
func (p *Platform) Dispatch(ctx context.Context, limit int, readable platform.Readable) (int, error) {
	// Which subscriptions are behind, and what their signatures may read,
	// asked without the mutex: readable reads the records, and may call
	// the platform.
	var behind []*hook
	p.mu.Lock()
	for _, h := range p.hooks {
		if f := p.feeds[h.owner.Company]; h.Enabled && f != nil && h.cursor < f.last {
			behind = append(behind, h)
		}
	}
	slices.SortFunc(behind, func(a, b *hook) int { return cmp.Compare(a.ID, b.ID) })
	p.mu.Unlock()
	behind = behind[:min(len(behind), platform.DispatchBatch)]
	who := make([]platform.Signature, len(behind))
	for i, h := range behind {
		who[i] = h.owner // fixed at creation: read without the mutex
	}
	registers, err := platform.AskReadable(ctx, readable, who)
	if err != nil {
		return 0, err
	}

	p.mu.Lock()
	defer p.mu.Unlock()
	queued := 0
	for _, h := range behind {
		if p.hooks[h.ID] != h || !h.Enabled {
			continue // deleted or disabled meanwhile
		}
		queued += p.dispatchTo(h, registers[h.owner], limit)
	}
	return queued, nil
}

// dispatchTo queues a subscription's deliveries of up to limit events
// after its cursor, and moves the cursor past them. The caller holds the
// mutex.
func (p *Platform) dispatchTo(h *hook, readable []string, limit int) int {
	f := p.feeds[h.owner.Company]
	events := f.after(h.cursor)
	events = events[:min(len(events), max(limit, 0))]
	queued := 0
	for _, ev := range events {
		h.cursor = ev.Position
		if platform.Delivers(h.EventTypes, readable, ev.Type, ev.register) {
			p.queue(h, p.newDelivery(h, ev.ID, ev.Type, ev.Payload))
			queued++
		}
	}
	if len(events) < limit {
		h.cursor = max(h.cursor, f.last) // every event up to the last position was read
	}
	return queued
}

// Claim takes due deliveries of enabled subscriptions for a lease. A
// delivery whose lease ran out (its worker died) is due again.
func (p *Platform) Claim(_ context.Context, lease time.Duration, limit int) ([]engine.ClaimedDelivery, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	var due []*delivery
	for _, h := range p.hooks {
		if !h.Enabled {
			continue
		}
		for _, d := range h.deliveries {
			if d.state == engine.DeliveryPending && !d.nextAttempt.After(now) && !d.leaseUntil.After(now) {
				due = append(due, d)
			}
		}
	}
	slices.SortFunc(due, func(a, b *delivery) int { return cmp.Or(a.nextAttempt.Compare(b.nextAttempt), cmp.Compare(a.id, b.id)) })
	due = due[:min(len(due), max(limit, 0))]
	holder, until := platform.NewID("lease_"), platform.Stored(now.Add(lease))
	claimed := make([]engine.ClaimedDelivery, len(due))
	for i, d := range due {
		d.lease, d.leaseUntil = holder, until
		h := p.hooks[d.webhookID]
		c := engine.ClaimedDelivery{
			ID: d.id, Company: d.company, WebhookID: d.webhookID, URL: h.URL, Secrets: []string{h.secret},
			MessageID: d.messageID, Payload: d.payload, Tries: d.tries, Created: d.created, Lease: holder,
		}
		if h.previousSecret != "" && h.previousUntil.After(now) {
			c.Secrets = append(c.Secrets, h.previousSecret)
		}
		claimed[i] = c
	}
	return claimed, nil
}

// Finish records an attempt and what follows it, unless the lease was
// lost (another worker took the delivery over and will record its own).
// Giving up disables the subscription with the reason.
func (p *Platform) Finish(_ context.Context, c engine.ClaimedDelivery, o engine.Outcome) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	h := p.hooks[c.WebhookID]
	if h == nil {
		return nil // deleted with its deliveries
	}
	d := h.delivery(c.ID)
	if d == nil || d.lease != c.Lease {
		return nil
	}
	d.state, d.tries, d.nextAttempt, d.lease, d.leaseUntil = platform.AfterAttempt(o), d.tries+1, time.Time{}, "", time.Time{}
	if d.state == engine.DeliveryPending {
		d.nextAttempt = platform.Stored(o.RetryAt)
	}
	a := o.Attempt
	a.At = platform.Stored(a.At)
	d.attempts = append(d.attempts, a)
	if d.state == engine.DeliveryFailed {
		h.Enabled, h.DisabledReason, h.Modified = false, o.GiveUp, p.now()
	}
	return nil
}
