package pipeline

import (
	"context"

	"fieldapi/engine"
	"fieldapi/engine/pipeline/permissions"
	"fieldapi/engine/pipeline/read"
	"fieldapi/engine/platform"
)

// EventTypes lists every event type the catalog's registers emit.
func (e *Engine) EventTypes() []string {
	var names []string
	for _, et := range e.cat.EventTypes() {
		names = append(names, et.Name)
	}
	return names
}

// Events reads one page of the company's feed, oldest first, of the
// registers the signature may read.
func (e *Engine) Events(ctx context.Context, s engine.Session, q engine.EventQuery) (_ engine.EventPage, err error) {
	defer func() { err = read.NothingWritten(err) }()
	readable, err := e.perms.Readable(ctx, s.Company, s.Sign)
	if err != nil {
		return engine.EventPage{}, err
	}
	return e.platform.Feed(ctx, s.Company, q, readable)
}

// Webhooks returns the store of webhook subscriptions.
func (e *Engine) Webhooks() engine.WebhookStore { return e.platform.Webhooks() }

// Queue returns the webhook delivery queue: a subscription gets the events
// of the registers its signature may read.
func (e *Engine) Queue() engine.DeliveryQueue { return deliveryQueue{e.platform, e.perms} }

// deliveryQueue is the platform's, dispatching by the signatures' permissions.
type deliveryQueue struct {
	platform.Platform
	perms *permissions.Checker
}

func (q deliveryQueue) Dispatch(ctx context.Context, limit int) (int, error) {
	return q.Platform.Dispatch(ctx, limit, q.perms.Readable)
}
