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

// Receipt renders the answer of a webhook write from the value it answers
// with (the Webhook, the Delivery): Render gets the value's JSON object as
// its record, as it gets a register's record. A write that answers an
// Idempotency-Key stores the answer through settle, in its transaction; a
// write without a Render answers nothing.
func Receipt(r engine.Receipt, v any, settle func(engine.Claim, engine.Response) error) (engine.Response, error) {
	if r.Render == nil {
		return engine.Response{}, nil
	}
	body, err := json.Marshal(v)
	if err != nil {
		return engine.Response{}, err
	}
	var rec engine.Record
	if err := json.Unmarshal(body, &rec); err != nil {
		return engine.Response{}, err
	}
	resp, err := r.Render(rec)
	if err == nil && r.Claim.Key != "" {
		err = settle(r.Claim, resp)
	}
	if err != nil {
		return engine.Response{}, err
	}
	return resp, nil
}

// Stored is t as the platforms keep times: UTC, to the microsecond.
func Stored(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }
