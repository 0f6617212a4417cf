// Package reference wires the reference engine once for the binary, the
// tests and the benchmark: the pipeline with the built-in rules, positions
// and documents, over SQL (sqlstore and sqlplatform on one SQLite or
// PostgreSQL database) or memory (memstore and memplatform).
package reference

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"fieldapi/catalog"
	"fieldapi/engine"
	"fieldapi/engine/documents"
	"fieldapi/engine/geocode"
	"fieldapi/engine/locations"
	"fieldapi/engine/pipeline"
	"fieldapi/engine/pipeline/registers"
	"fieldapi/engine/platform"
	"fieldapi/engine/platform/memplatform"
	"fieldapi/engine/platform/sqlplatform"
	"fieldapi/engine/rules"
	"fieldapi/engine/sqldb"
	"fieldapi/engine/store"
	"fieldapi/engine/store/memstore"
	"fieldapi/engine/store/sqlstore"
)

// Options tunes the engine.
type Options struct {
	MaxOpenConns     int              // SQL pool size; 0 = 10
	BusyTimeout      time.Duration    // SQLite: how long a writer waits for the lock; 0 = 5s
	StatementTimeout time.Duration    // 0 = none; a call past it returns engine.ErrTimeout
	Now              func() time.Time // clock; nil = time.Now
	Geocoder         geocode.Geocoder // locates records; nil = the offline geocode.Gazetteer
	LinkTimeout      time.Duration    // how long fetching a linked document may wait for its source; 0 = 10s
	// NoEvents records no events with writes: the feed and webhooks stay
	// empty. Only for measuring what recording costs (make bench).
	NoEvents bool
	// WrapDriver wraps the SQL database's driver, to see every statement
	// (tests count them); see sqldb.Options.
	WrapDriver func(driver.Driver) driver.Driver
	// Logger hears of the database's upkeep that failed; see
	// sqldb.Options.
	Logger *slog.Logger
}

// Engine is the reference engine: engine.Engine with every optional
// capability (commands, events, locations, documents). Close it when done.
type Engine struct {
	*pipeline.Engine
	engine.Locations
	engine.Documents

	cat             *catalog.Catalog
	schema          *store.Schema
	db              *sqldb.DB       // nil for memory storage
	sqlStore        *sqlstore.Store // nil for memory storage, which keeps nothing across starts
	platformMigrate func(ctx context.Context) error
}

// MemoryDSN opens an engine whose data lives in the process only.
const MemoryDSN = "memory:"

// Open opens the engine of cat on the database dsn names: "sqlite:PATH",
// "postgres://..." or "memory:". Call Migrate before first use of a new
// database. It refuses a catalog the rules cannot run on
// (*rules.CatalogError, naming the YAML file, the rule and the field).
func Open(ctx context.Context, dsn string, cat *catalog.Catalog, opt Options) (*Engine, error) {
	if opt.Now == nil {
		opt.Now = time.Now
	}
	// The rules state the fields they need: a catalog that no longer has
	// them stops here, before any database is opened or created.
	ruleSet, err := rules.Bind(cat, rules.Builtin()...)
	if err != nil {
		return nil, err
	}
	schema, err := Schema(cat)
	if err != nil {
		return nil, err
	}
	if strings.HasPrefix(dsn, MemoryDSN) {
		if dsn != MemoryDSN {
			return nil, fmt.Errorf("DSN %q: the memory database takes no path or options; want %s", dsn, MemoryDSN)
		}
		st, err := memstore.New(schema)
		if err != nil {
			return nil, err
		}
		return assemble(cat, schema, ruleSet, st, memplatform.New(memplatform.Options{Now: opt.Now}), opt)
	}
	db, err := sqldb.Open(ctx, dsn, sqldb.Options{MaxOpenConns: opt.MaxOpenConns, BusyTimeout: opt.BusyTimeout,
		StatementTimeout: opt.StatementTimeout, WrapDriver: opt.WrapDriver, Logger: opt.Logger})
	if err != nil {
		return nil, err
	}
	st, err := sqlstore.New(db, schema)
	if err != nil {
		db.Close()
		return nil, err
	}
	p := sqlplatform.New(db, sqlplatform.Options{Now: opt.Now})
	e, err := assemble(cat, schema, ruleSet, st, p, opt)
	if err != nil {
		db.Close()
		return nil, err
	}
	e.db = db
	e.sqlStore = st
	e.platformMigrate = p.Migrate
	return e, nil
}

// Schema is every table the reference engine keeps for a catalog.
func Schema(cat *catalog.Catalog) (*store.Schema, error) {
	schema, err := registers.Schema(cat)
	if err != nil {
		return nil, err
	}
	if err := schema.Add(append(locations.Tables(), documents.Tables()...)...); err != nil {
		return nil, fmt.Errorf("catalog: a register takes the name of an engine table: %w", err)
	}
	for _, name := range sqlplatform.TableNames() {
		if schema.Table(name) != nil {
			return nil, fmt.Errorf("catalog: register %s takes the name of a table the service keeps its own state in", name)
		}
	}
	return schema, schema.Check()
}

// assemble makes the engine over a store and platform, with the rules
// bound and its modules.
func assemble(cat *catalog.Catalog, schema *store.Schema, ruleSet *rules.Set, st store.Store, p platform.Platform, opt Options) (*Engine, error) {
	pe, err := pipeline.New(cat, ruleSet, st, p, pipeline.Options{Now: opt.Now, NoEvents: opt.NoEvents})
	if err != nil {
		return nil, err
	}
	return &Engine{
		cat:       cat,
		schema:    schema,
		Engine:    pe,
		Locations: locations.New(pe, opt.Geocoder),
		Documents: documents.New(pe, opt.LinkTimeout),
	}, nil
}

// Migrate creates or upgrades the schema (ApplyMigration, without its
// report). Data the catalog no longer declares refuses it: a
// *RefusedError, and nothing changed. Running it again changes nothing.
func (e *Engine) Migrate(ctx context.Context) error {
	_, err := e.ApplyMigration(ctx)
	return err
}

// Close releases the storage.
func (e *Engine) Close() error {
	if e.db == nil {
		return nil
	}
	return e.db.Close()
}

// DBStats reports the SQL database's statistics, for metrics; zero on
// memory.
func (e *Engine) DBStats() sqldb.Stats {
	if e.db == nil {
		return sqldb.Stats{}
	}
	return e.db.Stats()
}

// Analyze refreshes the database's statistics, which its query planner
// picks indexes by: run it after a bulk load. Memory has none.
func (e *Engine) Analyze(ctx context.Context) error {
	if st, ok := e.Store().(interface{ Analyze(context.Context) error }); ok {
		return st.Analyze(ctx)
	}
	return nil
}

// IsCatalogError reports whether err is about the catalog (it names the
// YAML file) rather than the database.
func IsCatalogError(err error) bool {
	_, ok := errors.AsType[*rules.CatalogError](err)
	return ok
}
