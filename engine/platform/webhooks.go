package platform

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"slices"
	"time"

	"fieldapi/engine"
)

// ApplyChange applies a PATCH to a subscription. Enabling one clears the
// reason the service disabled it for.
func ApplyChange(w *engine.Webhook, c engine.WebhookChange) {
	if c.URL != nil {
		w.URL = *c.URL
	}
	if c.EventTypes != nil {
		w.EventTypes = slices.Clone(c.EventTypes)
	}
	if c.Description != nil {
		w.Description = *c.Description
	}
	if c.Enabled != nil {
		w.Enabled = *c.Enabled
		if w.Enabled {
			w.DisabledReason = ""
		}
	}
}

// AfterAttempt is the state a delivery is in after an attempt's outcome:
// succeeded, failed for good, or pending again until o.RetryAt.
func AfterAttempt(o engine.Outcome) string {
	switch {
	case o.Done:
		return engine.DeliverySucceeded
	case o.GiveUp != "":
		return engine.DeliveryFailed
	}
	return engine.DeliveryPending
}

// NewPing is the message WebhookStore.Ping queues at the given time: its
// message id (the webhook-id header) and its payload.
func NewPing(company, webhookID string, at time.Time) (messageID string, payload []byte) {
	messageID = NewID("msg_")
	payload, _ = json.Marshal(map[string]any{ // a map of strings always marshals
		"id": messageID, "type": PingType, "occurredAt": OccurredAt(at), "company": company, "webhookId": webhookID,
	})
	return messageID, payload
}

// NewID is a random id after a prefix: "evt_" for an event, "msg_" for a
// ping, "lease_" for a worker's hold on deliveries.
func NewID(prefix string) string {
	var b [12]byte
	rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// occurredAtLayout is the feed's time format: UTC, fixed width, so text
// order is time order (the layout engine/sqldb stores times in).
const occurredAtLayout = "2006-01-02T15:04:05.000000Z"

// OccurredAt is an event's OccurredAt for a change at t. PruneEvents
// compares OccurredAt as text with the cut formatted so: events given
// another format are pruned at the wrong time.
func OccurredAt(t time.Time) string { return t.UTC().Format(occurredAtLayout) }

// DispatchBatch is how many subscriptions one Dispatch serves.
const DispatchBatch = 20

// Signature is whose reading rights filter a subscription's deliveries:
// the signature that subscribed, in its company.
type Signature struct{ Company, Sign string }

// AskReadable asks readable once per signature what it may read. A
// dispatcher asks before it takes its lock or opens its transaction:
// readable reads the records, through the storage's other connections.
func AskReadable(ctx context.Context, readable Readable, who []Signature) (map[Signature][]string, error) {
	registers := make(map[Signature][]string, len(who))
	for _, s := range who {
		if _, asked := registers[s]; asked {
			continue
		}
		list, err := readable(ctx, s.Company, s.Sign)
		if err != nil {
			return nil, err
		}
		registers[s] = list
	}
	return registers, nil
}

// Delivers reports whether a subscription to patterns, made by a
// signature that may read the registers readable (nil: every one), gets
// an event of eventType in register.
func Delivers(patterns, readable []string, eventType, register string) bool {
	return engine.MatchAny(patterns, eventType) && (readable == nil || slices.Contains(readable, register))
}

// RenderReceipt renders the answer of a webhook write from the value it
// answers with (the Webhook, the Delivery): Render gets the value's JSON
// object as its record, as it gets a register's record. settle reports
// whether the answer must be stored with the claim in the write's
// transaction: a write without a Render or without an Idempotency-Key
// stores nothing.
func RenderReceipt(r engine.Receipt, v any) (resp engine.Response, settle bool, err error) {
	if r.Render == nil {
		return engine.Response{}, false, nil
	}
	body, err := json.Marshal(v)
	if err != nil {
		return engine.Response{}, false, err
	}
	var rec engine.Record
	if err := json.Unmarshal(body, &rec); err != nil {
		return engine.Response{}, false, err
	}
	if resp, err = r.Render(rec); err != nil {
		return engine.Response{}, false, err
	}
	return resp, r.Claim.Key != "", nil
}
