package engine

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"time"
)

// Events is the optional capability of an engine that records an event
// with every committed write, in the write's own transaction, and keeps
// webhook subscriptions with their durable delivery queue. The runtime
// answers 501 on /v1/events and /v1/webhooks when the engine lacks it.
type Events interface {
	// EventTypes lists every event type the engine records (catalog.EventTypes).
	EventTypes() []string
	// Events reads the company's feed after a cursor, oldest first.
	// ErrCursorExpired: events after the cursor were pruned.
	Events(ctx context.Context, s Session, q EventQuery) (EventPage, error)
	// Webhooks keeps the company's subscriptions.
	Webhooks() WebhookStore
	// Queue is the delivery queue the webhook workers drain.
	Queue() DeliveryQueue
}

// Event is one recorded change. Payload is the JSON the feed lists and a
// webhook delivers, byte for byte.
type Event struct {
	Position int64 // the company's feed position: gap-free, in commit order
	ID       string
	Type     string
	Payload  json.RawMessage
}

// EventQuery selects a page of the feed.
type EventQuery struct {
	After    int64    // position to continue after; 0 = from the oldest kept
	Types    []string // only these types (patterns such as task.* allowed); empty = all
	Register string   // only events of this register; "" = all
	Limit    int
}

// EventPage is one page of the feed. Next is the cursor to pass as After:
// the last position read, or After itself when nothing new committed.
type EventPage struct {
	Events []Event
	Next   int64
}

// ErrCursorExpired: the feed no longer holds events right after the cursor
// (they are older than the retention).
var ErrCursorExpired = errors.New("the cursor is older than the event retention")

// MatchEventType reports whether an event type matches a subscription
// pattern: the type itself, "<prefix>.*" or "*".
func MatchEventType(pattern, eventType string) bool {
	if pattern == "*" || pattern == eventType {
		return true
	}
	n := len(pattern)
	return n > 2 && pattern[n-2:] == ".*" && len(eventType) > n-1 && eventType[:n-1] == pattern[:n-1]
}

// MatchAny reports whether an event type matches one of the patterns, or
// the list is empty.
func MatchAny(patterns []string, eventType string) bool {
	return len(patterns) == 0 || slices.ContainsFunc(patterns, func(p string) bool { return MatchEventType(p, eventType) })
}

// Webhook is one subscription of a company.
type Webhook struct {
	ID             string     `json:"id"`
	URL            string     `json:"url"`
	EventTypes     []string   `json:"eventTypes"` // patterns such as task.* or *
	Description    string     `json:"description"`
	Enabled        bool       `json:"enabled"`
	DisabledReason string     `json:"disabledReason"` // why the service disabled it; "" otherwise
	Created        time.Time  `json:"created"`
	Modified       time.Time  `json:"modified"`
	Secret         string     `json:"secret,omitempty"` // only in the answer that creates or rotates it
	PreviousExpiry *time.Time `json:"previousSecretExpires,omitempty"`
}

// WebhookChange is a PATCH of a subscription: nil fields are left.
type WebhookChange struct {
	URL         *string
	EventTypes  []string // nil = leave
	Description *string
	Enabled     *bool
}

// WebhookStore keeps a company's subscriptions. Writes that answer an
// Idempotency-Key store the receipt in their transaction, like the
// register writes.
type WebhookStore interface {
	CreateWebhook(ctx context.Context, s Session, w Webhook, r Receipt) (Response, error)
	ListWebhooks(ctx context.Context, s Session) ([]Webhook, error)
	GetWebhook(ctx context.Context, s Session, id string) (Webhook, error)
	UpdateWebhook(ctx context.Context, s Session, id string, c WebhookChange, r Receipt) (Response, error)
	// RotateSecret sets a new secret; the previous one keeps signing
	// deliveries until keepOld has passed.
	RotateSecret(ctx context.Context, s Session, id, secret string, keepOld time.Duration, r Receipt) (Response, error)
	DeleteWebhook(ctx context.Context, s Session, id string) error
	// Deliveries lists a subscription's deliveries, newest first, with their attempts.
	Deliveries(ctx context.Context, s Session, id string, limit int) ([]Delivery, error)
	// Redeliver queues a delivery again, to be sent now.
	Redeliver(ctx context.Context, s Session, id string, delivery int64, r Receipt) (Response, error)
	// Ping queues a webhook.ping message to the subscription.
	Ping(ctx context.Context, s Session, id string, r Receipt) (Response, error)
}

// Delivery states.
const (
	DeliveryPending   = "pending"   // waiting for its next attempt
	DeliverySucceeded = "succeeded" // the receiver answered 2xx
	DeliveryFailed    = "failed"    // retries ran out; the subscription was disabled
)

// Delivery is one message to one subscription.
type Delivery struct {
	ID            int64      `json:"id"`
	WebhookID     string     `json:"webhookId"`
	MessageID     string     `json:"messageId"` // the webhook-id header: the event id, the same on every attempt
	EventType     string     `json:"eventType"`
	State         string     `json:"state"`
	Attempts      []Attempt  `json:"attempts"`
	NextAttemptAt *time.Time `json:"nextAttemptAt"`
	Created       time.Time  `json:"created"`
}

// Attempt is one try of a delivery.
type Attempt struct {
	At         time.Time `json:"at"`
	StatusCode int       `json:"statusCode"` // 0 when no answer came
	LatencyMs  float64   `json:"latencyMs"`
	Error      string    `json:"error"` // "" on success
}

// ClaimedDelivery is a delivery a worker holds under a lease, with what it needs
// to send it.
type ClaimedDelivery struct {
	ID        int64
	Company   string
	WebhookID string
	URL       string
	Secrets   []string // the current secret, then the previous one while it is valid
	MessageID string
	Payload   []byte
	Tries     int       // attempts made before this one
	Created   time.Time // when the delivery was queued: retries stop some days after
	Lease     string    // the worker's hold; a finish with a lost lease is ignored
}

// Outcome is how a worker's attempt ended and what happens next.
type Outcome struct {
	Attempt Attempt
	Done    bool      // delivered: no more attempts
	RetryAt time.Time // when not Done and not GiveUp
	GiveUp  string    // when set: the delivery failed for good and the subscription is disabled with this reason
}

// DeliveryQueue is the durable queue the webhook workers of every process
// drain together: a claim holds a delivery for one worker until its lease
// ends, so a killed worker's deliveries are taken over afterwards.
type DeliveryQueue interface {
	// Dispatch turns newly committed events into deliveries of the
	// subscriptions they match; it returns how many it queued.
	Dispatch(ctx context.Context, limit int) (int, error)
	// Claim takes up to limit due deliveries for lease.
	Claim(ctx context.Context, lease time.Duration, limit int) ([]ClaimedDelivery, error)
	// Finish records an attempt's outcome, if the lease is still held.
	Finish(ctx context.Context, c ClaimedDelivery, o Outcome) error
	// PruneEvents deletes events recorded before the given time.
	PruneEvents(ctx context.Context, before time.Time) (int, error)
}
