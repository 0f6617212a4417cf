package main

import (
	"context"
	"fmt"
	"io"

	"fieldapi/engine/reference"
)

// migrate serves "fieldapi migrate": with --plan, print what init and
// serve would change in the schema and change nothing; without, make the
// changes (init without the demo data). Data the catalog no longer
// declares refuses both: exit 1, naming the register, the field, the
// catalog file and the ways forward.
func (a *app) migrate(ctx context.Context, args []string) error {
	fs := newFlagSet("migrate", "migrate --db DSN [--plan] [--drop-register NAME]...", a.stderr)
	dsn := fs.String("db", defaultDSN, "database: sqlite:PATH or postgres://USER@HOST:PORT/DB")
	plan := fs.Bool("plan", false, "print what the migration would change, and change nothing")
	var drop listFlag
	fs.Var(&drop, "drop-register", "drop the table of a register whose catalog file is gone, with its records; repeat for more")
	if err := parseFlags(fs, args, a.getenv); err != nil {
		return err
	}
	use := creating // as init: a migration may create the database
	if *plan {
		use = existing // a plan never creates one
	}
	eng, err := openEngineWith(ctx, a.catalog, *dsn, reference.Options{MaxOpenConns: 1}, use)
	if err != nil {
		return err
	}
	defer eng.Close()
	if *plan {
		m, err := eng.PlanMigration(ctx, drop...)
		if err != nil {
			return fmt.Errorf("plan: %w", err)
		}
		printPlan(a.stdout, m, *dsn)
		if m.Refused() {
			return &reference.RefusedError{Migration: m}
		}
		return nil
	}
	m, err := eng.ApplyMigration(ctx, drop...)
	if err != nil {
		return migrationError(err, *dsn)
	}
	fmt.Fprintf(a.stdout, "schema ready in %s\n", redactDSN(*dsn))
	printMigration(a.stdout, m)
	return nil
}

// migrationError is the error of a migration that failed: a refusal
// ends with where to see the whole plan.
func migrationError(err error, dsn string) error {
	if reference.IsRefused(err) {
		return fmt.Errorf("%w\n\nEvery change the migration would make: fieldapi migrate --plan --db %s", err, shellQuote(redactDSN(dsn)))
	}
	return fmt.Errorf("migrate the schema: %w", err)
}

// printMigration lists what a migration changed and the leftovers it
// kept, under the line that says the schema is ready.
func printMigration(w io.Writer, m *reference.Migration) {
	if len(m.Changes) > 0 {
		fmt.Fprintln(w, "changes made:")
		for _, c := range m.Changes {
			fmt.Fprintln(w, "  "+c)
		}
	}
	printNotes(w, m)
}

// printPlan lists what a migration would change; its refusals are the
// command's error, on stderr.
func printPlan(w io.Writer, m *reference.Migration, dsn string) {
	db := redactDSN(dsn)
	switch {
	case m.Refused():
		fmt.Fprintf(w, "plan for %s: refused, so init, serve and migrate change nothing (why: below).\n", db)
		if len(m.Changes) > 0 {
			fmt.Fprintln(w, "Once that is settled, the migration makes these changes:")
		}
	case m.Fresh:
		fmt.Fprintf(w, "plan for %s: the database has no tables yet; the migration creates them all.\n", db)
	case len(m.Changes) == 0:
		fmt.Fprintf(w, "plan for %s: the schema matches the catalog; the migration changes nothing.\n", db)
	default:
		fmt.Fprintf(w, "plan for %s (nothing is changed until fieldapi migrate, init or serve runs):\n", db)
	}
	for _, c := range m.Changes {
		fmt.Fprintln(w, "  "+c)
	}
	printNotes(w, m)
}

// printNotes lists the leftovers a migration keeps.
func printNotes(w io.Writer, m *reference.Migration) {
	if len(m.Notes) == 0 {
		return
	}
	fmt.Fprintln(w, "left as they are (no data in them):")
	for _, n := range m.Notes {
		fmt.Fprintln(w, "  "+n)
	}
}
