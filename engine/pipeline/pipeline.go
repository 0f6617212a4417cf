// Package pipeline is the engine: every catalog semantic of a read and a
// write, and the business rules, interpreted once above storage. It
// implements engine.Engine (and engine.Commands and engine.Events) over a
// narrow record store (engine/store) and the platform's state
// (engine/platform), so SQLite, PostgreSQL, memory, or a real business
// system differ only in storage.
//
// What it holds: values typed and checked against the catalog, defaults,
// create-only and engine-assigned fields, writable and required fields,
// references and the names they copy, defaults taken from referenced
// records, line lists with what they inherit, number series, extra
// fields, the signature's permissions, the change log, events, receipts
// committed with their writes, the import path, and the rule hooks of
// engine/rules, which it runs through rules.Tx.
//
// Files by concern: pipeline.go (the engine), package registers (its
// registers as stored and the tables they need), package permissions,
// package read (lists, gets, shapes, expansions, change logs: records
// assembled from rows), values.go (values as the catalog types them),
// write.go (creates, updates, the writer), checks.go (what a write must
// pass), references.go (references, lookups and the per-write cache),
// ruletx.go (what rules may do), commands.go (lines and actions),
// changelog.go, events.go, settings.go; package importer (data sets
// written as they are given).
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

// Engine is the engine over one store and platform. It is safe for
// concurrent use.
type Engine struct {
	*read.Reads
	*importer.Importer

	cat       *catalog.Catalog
	store     store.Store
	platform  platform.Platform
	rules     *rules.Set
	registers registers.Set
	opt       Options

	perms *permissions.Checker
	extra *extrafields.Definitions // by company and register
}

var (
	_ engine.Engine    = (*Engine)(nil)
	_ engine.Commands  = (*Engine)(nil)
	_ engine.Events    = (*Engine)(nil)
	_ engine.ChangeLog = (*Engine)(nil)
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
	e := &Engine{cat: cat, store: st, platform: p, rules: ruleSet, registers: regs, opt: opt, perms: perms, extra: extra}
	e.Reads = read.New(st, regs, ruleSet, perms, extra)
	e.Importer = importer.New(cat, regs, st, opt.Now)
	return e, nil
}

// Catalog is the catalog the engine serves.
func (e *Engine) Catalog() *catalog.Catalog { return e.cat }

// Store is the record store the engine runs on.
func (e *Engine) Store() store.Store { return e.store }

// Ping reports whether the store answers.
func (e *Engine) Ping(ctx context.Context) error { return e.store.Ping(ctx) }

// Idempotency returns the store of write responses.
func (e *Engine) Idempotency() engine.IdempotencyStore { return e.platform.Idempotency() }

// cacheTTL is how long a signature's permissions and a company's
// extra-field definitions are trusted: a change made in the engine's
// administration shows within it.
const cacheTTL = 2 * time.Second

// now is the engine's clock as stored text.
func (e *Engine) now() string { return registers.FormatTime(e.opt.Now()) }

// Now is the engine's clock as stored text (Modified), for modules.
func (e *Engine) Now() string { return e.now() }

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
