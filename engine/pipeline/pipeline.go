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
// Files by concern: pipeline.go (the engine and its registers), schema.go
// (the tables it needs), values.go (values as the catalog types them),
// read.go (lists, gets, records assembled from rows), write.go (creates,
// updates, the writer), checks.go (what a write must pass), references.go
// (references, lookups and the per-write cache), ruletx.go (what rules may
// do), commands.go (lines and actions), extrafields.go, permissions.go,
// changelog.go, events.go, settings.go, importer.go, cache.go.
package pipeline

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"fieldapi/catalog"
	"fieldapi/engine"
	"fieldapi/engine/extrafields"
	"fieldapi/engine/internal/ttlcache"
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
	cat       *catalog.Catalog
	store     store.Store
	platform  platform.Platform
	rules     *rules.Set
	registers map[string]*register
	opt       Options

	permissions *ttlcache.Cache[userAccess] // by company and sign
	extra       *extrafields.Definitions    // by company and register
	importers   []RecordImporter            // the modules' parts of Import
}

var (
	_ engine.Engine    = (*Engine)(nil)
	_ engine.Commands  = (*Engine)(nil)
	_ engine.Events    = (*Engine)(nil)
	_ engine.ChangeLog = (*Engine)(nil)
)

// New makes the engine of a catalog over a store (which keeps Schema(cat)
// and the modules' tables) and a platform bound to it, running the rules
// bound to the catalog (rules.Bind(cat, rules.Builtin()...) for the
// reference engine: bind them first, so a catalog the rules cannot run on
// is refused before any storage opens).
func New(cat *catalog.Catalog, ruleSet *rules.Set, st store.Store, p platform.Platform, opt Options) (*Engine, error) {
	if opt.Now == nil {
		opt.Now = time.Now
	}
	regs, err := registersOf(cat)
	if err != nil {
		return nil, err
	}
	return &Engine{
		cat: cat, store: st, platform: p, rules: ruleSet, registers: regs, opt: opt,
		permissions: ttlcache.New[userAccess](cacheTTL, opt.Now),
		extra:       extrafields.New(cacheTTL, opt.Now),
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

// register is one register as the pipeline works with it.
type register struct {
	reg         *catalog.Register
	key         *catalog.Field
	engineKeyed bool             // the key is the decimal text of the row's Seq, not a column
	stored      []*catalog.Field // fields with a column, in catalog order
	lookups     []*catalog.Field // lookup keys: unique per company
	owners      []ownerLink      // where this register is a line list of another
}

// ownerLink says that records of a register are lines of an owner
// register: a write to such a record is also logged on the owner.
type ownerLink struct {
	owner *catalog.Register
	line  *catalog.Line
}

// registersOf derives the registers of a catalog and checks what the
// pipeline needs of it beyond the catalog's own validation.
func registersOf(cat *catalog.Catalog) (map[string]*register, error) {
	regs := map[string]*register{}
	reserved := []string{"seq", "company", "modified"}
	for _, r := range cat.Registers {
		reg := &register{reg: r, key: r.KeyField(), engineKeyed: r.EngineKeyed(), lookups: r.LookupKeys()}
		for _, f := range r.Fields {
			if reg.engineKeyed && f == reg.key {
				continue
			}
			if slices.Contains(reserved, f.Column) || (r.Name == usersRegister && f.Column == permissions) {
				return nil, fmt.Errorf("%s: field %s: column %q is used by the engine", r.File, f.Name, f.Column)
			}
			reg.stored = append(reg.stored, f)
		}
		regs[r.Name] = reg
	}
	for _, r := range cat.Registers {
		for _, l := range r.Lines {
			lr := regs[l.Register]
			lr.owners = append(lr.owners, ownerLink{owner: r, line: l})
		}
	}
	users := cat.Register(usersRegister)
	if users == nil || users.Key != "Sign" || users.Field("Status") == nil {
		return nil, fmt.Errorf("catalog: the engine needs a users register keyed by Sign with a Status field (its signatures)")
	}
	return regs, nil
}

// register returns a register, or an error naming the unknown one.
func (e *Engine) register(name string) (*register, error) {
	r := e.registers[name]
	if r == nil {
		return nil, fmt.Errorf("unknown register %q", name)
	}
	return r, nil
}

// keyCond is the condition that finds a record by its key; ok is false
// for a key that cannot exist (an engine-assigned Id that is no number).
func (r *register) keyCond(key string) (store.Cond, bool) {
	if r.engineKeyed {
		seq, err := strconv.ParseInt(key, 10, 64)
		if err != nil || seq <= 0 {
			return store.Cond{}, false
		}
		return store.Equal(store.SeqField, seq), true
	}
	return store.Equal(r.key.Name, key), true
}

// keyOf is a record's key as read from its row.
func (r *register) keyOf(row store.Row) string {
	if r.engineKeyed {
		return strconv.FormatInt(row.Seq, 10)
	}
	key, _ := row.Values[r.key.Name].(string)
	return key
}

// line returns the register's line list with the given name, or nil.
func (r *register) line(name string) *catalog.Line {
	for _, l := range r.reg.Lines {
		if l.Name == name {
			return l
		}
	}
	return nil
}

// cacheTTL is how long a signature's permissions and a company's
// extra-field definitions are trusted: a change made in the engine's
// administration shows within it.
const cacheTTL = 2 * time.Second

// timestampLayout is how Modified and every time the pipeline stores
// reads: UTC and fixed width, so text order is time order.
const timestampLayout = "2006-01-02T15:04:05.000000Z"

func formatTime(t time.Time) string { return t.UTC().Format(timestampLayout) }

// now is the engine's clock as stored text.
func (e *Engine) now() string { return formatTime(e.opt.Now()) }

// Now is the engine's clock as stored text (Modified), for modules.
func (e *Engine) Now() string { return e.now() }
