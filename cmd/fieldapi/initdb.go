package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"fieldapi/engine"
	"fieldapi/engine/dataset"
	"fieldapi/engine/demo"
	"fieldapi/engine/pipeline"
	"fieldapi/engine/reference"
)

// demoCompany and demoSign are what the demo data gives a newcomer to make
// a key for (package demo: sign API has every permission).
const (
	demoCompany = "demo"
	demoSign    = "API"
)

// initDB serves "fieldapi init": create or upgrade the schema (as
// "fieldapi migrate" does, saying what it changed) and, with --demo, load
// the demo companies. Both steps are idempotent.
func (a *app) initDB(ctx context.Context, args []string) error {
	fs := newFlagSet("init", "init --db DSN [--demo]", a.stderr)
	dsn := fs.String("db", defaultDSN, "database: sqlite:PATH or postgres://USER@HOST:PORT/DB")
	withDemo := fs.Bool("demo", false, "load the demo companies demo and demo2 (idempotent)")
	hints := fs.Bool("hints", true, "print the command to run next; false when a script runs it itself (as make run does)")
	if err := parseFlags(fs, args, a.getenv); err != nil {
		return err
	}
	eng, err := openEngineWith(ctx, a.catalog, *dsn, reference.Options{}, creating)
	if err != nil {
		return err
	}
	defer eng.Close()
	m, err := eng.ApplyMigration(ctx)
	if err != nil {
		return migrationError(err, *dsn)
	}
	fmt.Fprintf(a.stdout, "schema ready in %s\n", redactDSN(*dsn))
	printMigration(a.stdout, m)
	if !*withDemo {
		return nil
	}
	load := &demoLoad{importer: eng, dir: eng}
	if err := demo.Load(ctx, load); err != nil {
		return fmt.Errorf("load demo data: %w", err)
	}
	all, err := eng.Companies(ctx)
	if err != nil {
		return err
	}
	load.report(a.stdout, all)
	if *hints {
		return printDemoNextStep(ctx, a.stdout, eng.Keys(), *dsn)
	}
	return nil
}

// demoLoad is the engine's import path as the demo loader calls it, noting
// for each company which batches the database had already (the import
// skips them) and which it imported now.
type demoLoad struct {
	importer demo.Importer
	dir      companyDirectory
	loaded   []loadedCompany
}

// loadedCompany is what the load did to one demo company.
type loadedCompany struct {
	pipeline.Company
	added, kept []string // batch names
}

func (l *demoLoad) Import(ctx context.Context, c dataset.Company) error {
	before, err := l.dir.ImportedBatches(ctx, c.ID)
	if err != nil {
		return err
	}
	if err := l.importer.Import(ctx, c); err != nil {
		return err
	}
	after, err := l.dir.ImportedBatches(ctx, c.ID)
	if err != nil {
		return err
	}
	done := loadedCompany{Company: pipeline.Company{ID: c.ID, Name: c.Name}}
	for _, b := range c.Batches {
		switch {
		case before[b.Name]:
			done.kept = append(done.kept, b.Name)
		case after[b.Name]:
			done.added = append(done.added, b.Name)
		}
		// In neither: a batch for a register the catalog lacks, skipped
		// until the register exists.
	}
	l.loaded = append(l.loaded, done)
	return nil
}

// report says what the load did, and which other companies the database
// holds (all of them, before and after: a load adds no other company).
func (l *demoLoad) report(w io.Writer, all []pipeline.Company) {
	var demoCompanies []pipeline.Company
	var added, kept bool
	for _, c := range l.loaded {
		demoCompanies = append(demoCompanies, c.Company)
		added = added || len(c.added) > 0
		kept = kept || len(c.kept) > 0
	}
	switch {
	case !kept:
		fmt.Fprintf(w, "demo data loaded: %s, user sign %s in each\n", describeCompanies(demoCompanies), demoSign)
	case !added:
		fmt.Fprintf(w, "demo data already loaded: kept %s as they are\n", describeCompanies(demoCompanies))
		fmt.Fprintln(w, "  (init --demo adds only what is missing and never undoes a change; for fresh demo data, init a new database)")
	default:
		fmt.Fprintln(w, "demo data updated (init --demo adds only what is missing and never undoes a change):")
		for _, c := range l.loaded {
			var parts []string
			if len(c.added) > 0 {
				parts = append(parts, "added "+strings.Join(c.added, ", "))
			}
			if len(c.kept) > 0 {
				parts = append(parts, fmt.Sprintf("kept the %d batches loaded before", len(c.kept)))
			}
			fmt.Fprintf(w, "  %s: %s\n", c.ID, strings.Join(parts, "; "))
		}
	}
	var others []pipeline.Company
	for _, c := range all {
		if !slices.ContainsFunc(demoCompanies, func(d pipeline.Company) bool { return d.ID == c.ID }) {
			others = append(others, c)
		}
	}
	switch len(others) {
	case 0:
	case 1:
		fmt.Fprintf(w, "kept the other %s as it is\n", describeCompanies(others))
	default:
		fmt.Fprintf(w, "kept the other %s as they are\n", describeCompanies(others))
	}
}

// printDemoNextStep prints the command a newcomer runs after init --demo:
// make a key for the demo company, or serve when it has one.
func printDemoNextStep(ctx context.Context, w io.Writer, keys engine.KeyStore, dsn string) error {
	existing, err := keys.ListKeys(ctx, demoCompany)
	if err != nil {
		return err
	}
	db := shellQuote(redactDSN(dsn))
	if slices.ContainsFunc(existing, func(k engine.Key) bool { return k.Revoked == nil }) {
		fmt.Fprintf(w, "next: fieldapi serve --db %s   (company %s has keys: fieldapi keys list --db %s --company %s)\n",
			db, demoCompany, db, demoCompany)
		return nil
	}
	fmt.Fprintf(w, "next: fieldapi keys create --db %s --company %s --sign %s --scopes '*'\n", db, demoCompany, demoSign)
	fmt.Fprintf(w, "then: fieldapi serve --db %s\n", db)
	return nil
}
