// Package platform is the port of the service's own state beside the
// records: API keys and tokens, Idempotency-Keys with the responses they
// replay, the event feed, webhook subscriptions and their durable delivery
// queue. It knows nothing of registers or business rules; the pipeline
// (engine/pipeline) decides what an event says and who may read it.
//
// Two implementations: engine/platform/sqlplatform, on the SQL database
// the records live in (engine/sqldb), and engine/platform/memplatform, in
// memory beside engine/store/memstore. A write's receipt and its events
// must commit with the write: Bind gives the platform's writes inside a
// transaction of the record store it shares its storage with.
package platform

import (
	"context"
	"encoding/json"
	"strconv"
	"time"

	"fieldapi/engine"
	"fieldapi/engine/store"
	"fieldapi/internal/jsontext"
)

// Platform is the service's own state.
type Platform interface {
	// Keys stores API keys and tokens. CreateKey stores what it is given:
	// whether the company and signature exist is the pipeline's check.
	Keys() engine.KeyStore
	// Idempotency stores the responses of writes.
	Idempotency() engine.IdempotencyStore
	// Webhooks keeps the companies' subscriptions.
	Webhooks() engine.WebhookStore

	// Feed reads a company's events after q.After, oldest first, of the
	// registers in readable (nil: every register). ErrCursorExpired: events
	// right after the cursor were pruned.
	Feed(ctx context.Context, company string, q engine.EventQuery, readable []string) (engine.EventPage, error)
	// Dispatch turns newly recorded events into deliveries of the
	// subscriptions they match, of the registers the subscription's
	// signature may read (readable), and returns how many it queued.
	Dispatch(ctx context.Context, limit int, readable Readable) (int, error)
	// Claim, Finish and PruneEvents are engine.DeliveryQueue's.
	Claim(ctx context.Context, lease time.Duration, limit int) ([]engine.ClaimedDelivery, error)
	Finish(ctx context.Context, c engine.ClaimedDelivery, o engine.Outcome) error
	PruneEvents(ctx context.Context, before time.Time) (int, error)

	// Bind returns the platform's writes inside tx, a transaction of the
	// record store the platform shares its storage with; an error when tx
	// is another store's.
	Bind(tx store.Tx) (Writes, error)
}

// Readable lists the registers a company's signature may read, nil when
// it may read every one.
type Readable func(ctx context.Context, company, sign string) ([]string, error)

// Writes are what a write of the records does on the platform in its own
// transaction, so that they commit or roll back with it.
type Writes interface {
	// Settle stores the write's Idempotency-Key with its response, or
	// fails with engine.ErrClaimLost when another execution of the key
	// stored its response first (in a concurrent transaction it waits
	// for that one's end). A claim without a Key (a write that answers no
	// Idempotency-Key) is a no-op.
	Settle(ctx context.Context, c engine.Claim, r engine.Response) error
	// Record adds events to the company's feed, in order. Their positions
	// are the company's next ones: gap-free, and no event ever appears in
	// the feed before one with a lower position.
	Record(ctx context.Context, company string, events []Event) error
}

// Judge says what claim c finds in a key whose response is stored with
// the given fingerprint.
func Judge(c engine.Claim, fingerprint string, stored engine.Response) engine.ClaimResult {
	if fingerprint != c.Fingerprint {
		return engine.ClaimResult{State: engine.Mismatch}
	}
	return engine.ClaimResult{State: engine.Replay, Response: stored}
}

// Event is one recorded change as the feed lists it and a webhook
// delivers it: the JSON of Event, with the Position the platform gives it.
type Event struct {
	ID            string        `json:"id"`
	Position      int64         `json:"position"`
	Type          string        `json:"type"`
	OccurredAt    string        `json:"occurredAt"`
	Company       string        `json:"company"`
	Register      string        `json:"register"`
	Key           string        `json:"key"`
	Actor         Actor         `json:"actor"`
	ChangedFields []string      `json:"changedFields"`
	Data          engine.Record `json:"data"` // the record as read after the change
}

// Recorded is an event's payload as written before it had its feed
// position (Payload with Position 0), the record's data kept as JSON: an
// outbox sets the position without reading the record again. Its JSON is
// the Event's, field for field (TestRecordedIsAnEvent).
type Recorded struct {
	ID            string          `json:"id"`
	Position      int64           `json:"position"`
	Type          string          `json:"type"`
	OccurredAt    string          `json:"occurredAt"`
	Company       string          `json:"company"`
	Register      string          `json:"register"`
	Key           string          `json:"key"`
	Actor         Actor           `json:"actor"`
	ChangedFields []string        `json:"changedFields"`
	Data          json.RawMessage `json:"data"`
}

// Actor is who made a change.
type Actor struct {
	ClientID string `json:"clientId"`
	Sign     string `json:"sign"`
}

// Payload is the event's JSON as delivered, byte for byte: json.Marshal
// of the Event, written by hand (every write pays for its events' JSON in
// its transaction, and reflection over the record was a twentieth of a
// create's time).
func (e Event) Payload() ([]byte, error) {
	return e.AppendPayload(make([]byte, 0, 4096)) // a task with a few lines fits
}

// AppendPayload appends the event's Payload to b.
func (e Event) AppendPayload(b []byte) ([]byte, error) {
	b = jsontext.AppendString(append(b, `{"id":`...), e.ID)
	b = strconv.AppendInt(append(b, `,"position":`...), e.Position, 10)
	b = jsontext.AppendString(append(b, `,"type":`...), e.Type)
	b = jsontext.AppendString(append(b, `,"occurredAt":`...), e.OccurredAt)
	b = jsontext.AppendString(append(b, `,"company":`...), e.Company)
	b = jsontext.AppendString(append(b, `,"register":`...), e.Register)
	b = jsontext.AppendString(append(b, `,"key":`...), e.Key)
	b = jsontext.AppendString(append(b, `,"actor":{"clientId":`...), e.Actor.ClientID)
	b = jsontext.AppendString(append(b, `,"sign":`...), e.Actor.Sign)
	b = append(b, `},"changedFields":`...)
	if e.ChangedFields == nil {
		b = append(b, "null"...)
	} else {
		b = jsontext.AppendStrings(b, e.ChangedFields)
	}
	b, err := e.Data.AppendJSON(append(b, `,"data":`...))
	if err != nil {
		return nil, err
	}
	return append(b, '}'), nil
}

// PingType is the type of the message POST /v1/webhooks/{id}/test sends.
const PingType = "webhook.ping"
