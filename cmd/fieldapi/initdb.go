package main

import (
	"context"
	"fmt"

	"fieldapi/engine/demo"
	"fieldapi/engine/sqlengine"
)

// initDB serves "fieldapi init": create or upgrade the schema and, with
// --demo, load the demo companies. Both steps are idempotent.
func (a *app) initDB(ctx context.Context, args []string) error {
	fs := newFlagSet("init", "init --db DSN [--demo]", a.stderr)
	dsn := fs.String("db", defaultDSN, "database: sqlite:PATH or postgres://USER@HOST:PORT/DB")
	withDemo := fs.Bool("demo", false, "load the demo companies demo and demo2 (idempotent)")
	if err := parseFlags(fs, args, a.getenv); err != nil {
		return err
	}
	eng, err := openEngineWith(ctx, a.catalog, *dsn, sqlengine.Options{}, false)
	if err != nil {
		return err
	}
	defer eng.Close()
	if err := eng.Migrate(ctx); err != nil {
		return fmt.Errorf("create schema: %w", err)
	}
	fmt.Fprintf(a.stdout, "schema ready in %s\n", redactDSN(*dsn))
	if !*withDemo {
		return nil
	}
	if err := demo.Load(ctx, eng); err != nil {
		return fmt.Errorf("load demo data: %w", err)
	}
	fmt.Fprintf(a.stdout, "demo data ready: companies demo and demo2, user sign API\n")
	fmt.Fprintf(a.stdout, "next: fieldapi keys create --db %s --company demo --sign API --scopes '*'\n", *dsn)
	return nil
}
