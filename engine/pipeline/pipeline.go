// Package pipeline is the engine: every catalog semantic of a read and a
// write, and the business rules, interpreted once above a narrow record
// store (engine/store) and the platform's state (engine/platform), so
// SQLite, PostgreSQL, memory, or a real business system differ only in
// storage. It implements engine.Engine, Commands, Events, ChangeLog and
// Atomic.
//
// This package puts the engine together and serves keys, companies, the
// event feed and webhooks; the work is done in its packages, each using
// only those listed before it:
//
//   - registers: the catalog's registers as stored, their tables (Schema);
//   - permissions: whether a signature may read or write a register;
//   - settings: a company's settings, kept briefly;
//   - read: lists, gets, shaped and expanded reads, change logs;
//   - write: creates, updates, upserts, lines, actions and atomic batches,
//     with every check, rule hook, change log, event and receipt;
//   - importer: data sets written as they are given (demo data, bulk loads).
package pipeline

import (
	"context"
	"time"

	"fieldapi/catalog"
	"fieldapi/engine"
	"fieldapi/engine/extrafields"
	"fieldapi/engine/pipeline/importer"
	"fieldapi/engine/pipeline/permissions"
	"fieldapi/engine/pipeline/read"
	"fieldapi/engine/pipeline/registers"
	"fieldapi/engine/pipeline/settings"
	"fieldapi/engine/pipeline/write"
	"fieldapi/engine/platform"
	"fieldapi/engine/rules"
	"fieldapi/engine/store"
)

// Options tunes the pipeline.
type Options struct {
	Now func() time.Time // clock; nil = time.Now
	// NoEvents records no events with writes: the feed and webhooks stay
	// empty. Only for measuring what recording costs (make bench).
	NoEvents bool
}

// Engine is the engine over one store and platform: its reads, writes and
// import path, with what it serves itself. It is safe for concurrent use.
type Engine struct {
	*read.Reads
	*write.Writes
	*importer.Importer

	cat      *catalog.Catalog
	store    store.Store
	platform platform.Platform
	perms    *permissions.Checker
	opt      Options
}

var (
	_ engine.Engine    = (*Engine)(nil)
	_ engine.Commands  = (*Engine)(nil)
	_ engine.Events    = (*Engine)(nil)
	_ engine.ChangeLog = (*Engine)(nil)
	_ engine.Atomic    = (*Engine)(nil)
)

// New makes the engine of a catalog over a store (which keeps
// registers.Schema(cat) and the modules' tables) and a platform bound to
// it, running the rules bound to the catalog (rules.Bind(cat,
// rules.Builtin()...) for the reference engine: bind them first, so a
// catalog the rules cannot run on is refused before any storage opens).
func New(cat *catalog.Catalog, ruleSet *rules.Set, st store.Store, p platform.Platform, opt Options) (*Engine, error) {
	if opt.Now == nil {
		opt.Now = time.Now
	}
	regs, err := registers.Of(cat)
	if err != nil {
		return nil, err
	}
	perms := permissions.New(cat, st, cacheTTL, opt.Now)
	extra := extrafields.New(cacheTTL, opt.Now)
	companySettings := settings.New(cacheTTL, opt.Now)
	reads := read.New(st, regs, ruleSet, perms, extra)
	writes := write.New(write.Config{Catalog: cat, Registers: regs, Rules: ruleSet, Store: st, Platform: p,
		Reads: reads, Permissions: perms, Extra: extra, Settings: companySettings, Now: opt.Now, NoEvents: opt.NoEvents})
	return &Engine{
		Reads: reads, Writes: writes, Importer: importer.New(cat, regs, st, companySettings, opt.Now),
		cat: cat, store: st, platform: p, perms: perms, opt: opt,
	}, nil
}

// Catalog is the catalog the engine serves.
func (e *Engine) Catalog() *catalog.Catalog { return e.cat }

// Store is the record store the engine runs on.
func (e *Engine) Store() store.Store { return e.store }

// Ping reports whether the store answers.
func (e *Engine) Ping(ctx context.Context) error { return e.store.Ping(ctx) }

// Idempotency returns the store of write responses.
func (e *Engine) Idempotency() engine.IdempotencyStore { return e.platform.Idempotency() }

// cacheTTL is how long a signature's permissions, a company's extra-field
// definitions and its settings are trusted: a change made in the engine's
// administration (or by an import in another process) shows within it.
const cacheTTL = 2 * time.Second

// Now is the engine's clock as stored text (Modified), for modules.
func (e *Engine) Now() string { return registers.FormatTime(e.opt.Now()) }

// Authorize checks the signature may read (write false) or write a
// register, for the modules beside the pipeline (locations, documents).
func (e *Engine) Authorize(ctx context.Context, s engine.Session, register string, write bool) error {
	a := permissions.Read
	if write {
		a = permissions.Write
	}
	err := e.perms.Check(ctx, e.store, s, register, a)
	if write {
		err = read.NothingWritten(err)
	}
	return err
}
