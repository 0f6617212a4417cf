// Package sqlplatform keeps the service's own state (platform.Platform)
// in the SQL database the records live in, on engine/sqldb. Its tables
// are column for column those of the engine before the pipeline, so a
// database it created keeps working.
//
// A write of the records (engine/store/sqlstore on the same sqldb.DB)
// settles its Idempotency-Key claim and records its events in its own
// transaction through Bind; the platform's own writes run in
// transactions of their own.
package sqlplatform

import (
	"context"
	"errors"
	"fmt"
	"time"

	"fieldapi/engine"
	"fieldapi/engine/platform"
	"fieldapi/engine/sqldb"
	"fieldapi/engine/store"
)

// Options tunes the platform.
type Options struct {
	// Now is the clock of claims, leases, tokens, subscriptions and
	// deliveries; nil = time.Now.
	Now func() time.Time
}

// Platform is a platform.Platform on one SQL database. It is safe for
// concurrent use.
type Platform struct {
	db     *sqldb.DB
	now    func() time.Time
	outbox *sqldb.Sweeper  // vacuums the outbox rows the sequencer deletes (PostgreSQL)
	keys   *sqldb.Analyzer // keeps the idempotency table's statistics, which replays plan by, current (PostgreSQL)

	pruneChunk int // events PruneEvents deletes per transaction at most
}

var _ platform.Platform = (*Platform)(nil)

// New keeps the platform's state on db. Migrate creates its tables.
func New(db *sqldb.DB, opt Options) *Platform {
	if opt.Now == nil {
		opt.Now = time.Now
	}
	return &Platform{db: db, now: opt.Now, outbox: db.Sweeper(outboxTable), keys: db.Analyzer("idempotency"), pruneChunk: 5000}
}

// Keys stores API keys and tokens.
func (p *Platform) Keys() engine.KeyStore { return keyStore{p} }

// Idempotency stores the responses of writes.
func (p *Platform) Idempotency() engine.IdempotencyStore { return idempotencyStore{p} }

// Webhooks keeps the companies' subscriptions.
func (p *Platform) Webhooks() engine.WebhookStore { return webhookStore{p} }

// stamp is the clock's time as stored.
func (p *Platform) stamp() string { return sqldb.FormatTime(p.now()) }

// sqlTransaction is a record store's transaction that runs in a SQL
// database: engine/store/sqlstore's Tx.
type sqlTransaction interface{ SQL() *sqldb.Tx }

var errForeignTx = errors.New("sqlplatform: Bind needs a transaction of a SQL record store (engine/store/sqlstore) on the platform's database")

// Bind returns the platform's writes inside tx, which must be a
// transaction of a sqlstore.Store on the platform's own sqldb.DB (which
// cannot be checked: another database would get the platform's rows).
func (p *Platform) Bind(tx store.Tx) (platform.Writes, error) {
	t, ok := tx.(sqlTransaction)
	if !ok {
		return nil, fmt.Errorf("%w, not a %T", errForeignTx, tx)
	}
	return writes{p: p, tx: t.SQL()}, nil
}

// writes are the platform's writes in a transaction of the record store.
type writes struct {
	p  *Platform
	tx *sqldb.Tx
}

// Settle stores the claim's key with the response; a write without an
// Idempotency-Key has no claim to settle.
func (w writes) Settle(ctx context.Context, c engine.Claim, r engine.Response) error {
	if c.Key == "" {
		return nil
	}
	return idempotencyStore{w.p}.settle(ctx, w.tx, c, r)
}

// Record adds the events in the write's transaction (see feed.go): on
// PostgreSQL to the outbox, on SQLite to the feed itself.
func (w writes) Record(ctx context.Context, company string, events []platform.Event) error {
	if len(events) == 0 {
		return nil
	}
	if !w.p.db.Dialect().Postgres() {
		return w.p.recordInFeed(ctx, w.tx, company, events)
	}
	return record(ctx, w.tx, company, events)
}
