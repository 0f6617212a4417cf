// Package memplatform keeps the service's own state (platform.Platform)
// in memory, beside engine/store/memstore: for tests and disposable
// servers. It does what engine/platform/sqlplatform does, checked by the
// same suite (engine/platform/platformtest).
//
// One sync.Mutex guards everything; no call holds it while calling out (a
// Readable, a store's OnRollback). Writes bound to a record store's
// transaction (Bind) change the state at once and register their undo
// with its OnRollback. Until the transaction ends they are visible to
// readers already (store.Tx has no commit hook): the pipeline settles and
// records last, just before the commit. Times are kept to the
// microsecond, as the SQL platform stores them.
package memplatform

import (
	"context"
	"errors"
	"sync"
	"time"

	"fieldapi/engine"
	"fieldapi/engine/platform"
	"fieldapi/engine/store"
)

// Options tunes the platform.
type Options struct {
	// Now is the clock of claims, leases, tokens, subscriptions and
	// deliveries; nil = time.Now.
	Now func() time.Time
}

// Platform is a platform.Platform in memory. It is safe for concurrent use.
type Platform struct {
	clock func() time.Time

	mu         sync.Mutex
	keys       map[string]engine.Key   // by client id
	tokens     map[string]engine.Token // by id
	claims     map[claimID]*claim
	feeds      map[string]*feed // by company
	hooks      map[string]*hook // by id
	deliveries int64            // the last delivery id given
}

var _ platform.Platform = (*Platform)(nil)

// New returns an empty platform.
func New(opt Options) *Platform {
	if opt.Now == nil {
		opt.Now = time.Now
	}
	return &Platform{
		clock:  opt.Now,
		keys:   map[string]engine.Key{},
		tokens: map[string]engine.Token{},
		claims: map[claimID]*claim{},
		feeds:  map[string]*feed{},
		hooks:  map[string]*hook{},
	}
}

// Keys stores API keys and tokens.
func (p *Platform) Keys() engine.KeyStore { return keyStore{p} }

// Idempotency stores the responses of writes.
func (p *Platform) Idempotency() engine.IdempotencyStore { return idempotencyStore{p} }

// Webhooks keeps the companies' subscriptions.
func (p *Platform) Webhooks() engine.WebhookStore { return webhookStore{p} }

// now is the clock's time as stored.
func (p *Platform) now() time.Time { return platform.Stored(p.clock()) }

var errNoTx = errors.New("memplatform: Bind needs a transaction")

// Bind returns the platform's writes inside tx, a transaction of any
// record store: what they change is undone through tx.OnRollback.
func (p *Platform) Bind(tx store.Tx) (platform.Writes, error) {
	if tx == nil {
		return nil, errNoTx
	}
	return writes{p: p, tx: tx}, nil
}

// writes are the platform's writes in a transaction of the record store.
// Each changes the state under the mutex, then registers its undo outside
// it: a store may run OnRollback functions under a lock of its own.
type writes struct {
	p  *Platform
	tx store.Tx
}

// Settle stores the claim's key with the response; a write without an
// Idempotency-Key has no claim to settle.
func (w writes) Settle(_ context.Context, c engine.Claim, r engine.Response) error {
	if c.Key == "" {
		return nil
	}
	p := w.p
	p.mu.Lock()
	held, err := p.settle(c, r)
	p.mu.Unlock()
	if err != nil {
		return err
	}
	w.undo(func() {
		if p.claims[idOf(c)] == held {
			delete(p.claims, idOf(c))
		}
	})
	return nil
}

// Record adds the events to the company's feed with its next positions.
func (w writes) Record(_ context.Context, company string, events []platform.Event) error {
	if len(events) == 0 {
		return nil
	}
	p := w.p
	p.mu.Lock()
	first, last, err := p.record(company, events)
	p.mu.Unlock()
	if err != nil {
		return err
	}
	w.undo(func() { p.unrecord(company, first, last) })
	return nil
}

// undo runs f under the mutex if the transaction rolls back.
func (w writes) undo(f func()) {
	w.tx.OnRollback(func() {
		w.p.mu.Lock()
		defer w.p.mu.Unlock()
		f()
	})
}
