package platform

import (
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
