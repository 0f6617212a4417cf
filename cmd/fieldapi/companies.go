package main

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// company is one company a database holds.
type company struct{ id, name string }

// companyDirectory is what the CLI reads about the companies of a database
// beyond the engine's API: which companies exist (so a wrong --company is
// answered with the right ones) and which import batches each has (so
// init --demo can say what it loaded and what it kept). The engine offers
// neither read yet; sqlDirectory reads them through the same DSN, and an
// engine method can take its place behind this interface.
type companyDirectory interface {
	Companies(ctx context.Context) ([]company, error)
	// ImportedBatches holds the name of every import batch
	// (dataset.Batch) the company has imported, and may hold other names:
	// ask it about batch names only. It is empty for a company that does
	// not exist.
	ImportedBatches(ctx context.Context, companyID string) (map[string]bool, error)
	Close() error
}

// openDirectory opens a directory of the database dsn names. The engine
// must have opened that database first: it checks the DSN and, on SQLite,
// opening a missing file would create it.
func openDirectory(dsn string) (companyDirectory, error) {
	// Both drivers are registered by engine/sqlengine, which this command
	// links.
	driver, driverDSN, d := "pgx", dsn, sqlDirectory{placeholder: "$1"}
	if path, ok := strings.CutPrefix(dsn, "sqlite:"); ok {
		sep := "?"
		if strings.Contains(path, "?") {
			sep = "&"
		}
		driver, driverDSN, d.placeholder = "sqlite", path+sep+"_pragma=busy_timeout(5000)", "?"
	}
	var err error
	if d.db, err = sql.Open(driver, driverDSN); err != nil {
		return nil, fmt.Errorf("read companies: %w", err)
	}
	d.db.SetMaxOpenConns(1)
	return d, nil
}

// sqlDirectory reads the engine's tables "companies" (id, name) and
// "settings" (company, name), where the import records each batch it has
// run as a setting named after the batch.
type sqlDirectory struct {
	db          *sql.DB
	placeholder string // of the one parameter a query takes
}

func (d sqlDirectory) Close() error { return d.db.Close() }

func (d sqlDirectory) Companies(ctx context.Context) ([]company, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT "id", "name" FROM "companies" ORDER BY "id"`)
	if err != nil {
		return nil, fmt.Errorf("read companies: %w", err)
	}
	defer rows.Close()
	var companies []company
	for rows.Next() {
		var c company
		if err := rows.Scan(&c.id, &c.name); err != nil {
			return nil, fmt.Errorf("read companies: %w", err)
		}
		companies = append(companies, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read companies: %w", err)
	}
	return companies, nil
}

func (d sqlDirectory) ImportedBatches(ctx context.Context, companyID string) (map[string]bool, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT "name" FROM "settings" WHERE "company" = `+d.placeholder, companyID)
	if err != nil {
		return nil, fmt.Errorf("read the imported batches of %s: %w", companyID, err)
	}
	defer rows.Close()
	names := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, fmt.Errorf("read the imported batches of %s: %w", companyID, err)
		}
		names[name] = true
	}
	return names, rows.Err()
}
