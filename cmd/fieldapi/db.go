package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"strings"

	"fieldapi/catalog"
	"fieldapi/engine/rules"
	"fieldapi/engine/sqlengine"
)

// openEngine opens the reference engine over the builtin catalog. Every
// command but init needs a database that exists: opening a SQLite path that
// does not would quietly create an empty one (a typo in --db).
func openEngine(ctx context.Context, dsn string, opt sqlengine.Options, mustExist bool) (*sqlengine.Engine, error) {
	return openEngineWith(ctx, nil, dsn, opt, mustExist)
}

// openEngineWith is openEngine over cat; nil is the builtin catalog. The
// engine refuses a catalog its rules cannot run on, naming the YAML file,
// the rule and the field.
func openEngineWith(ctx context.Context, cat *catalog.Catalog, dsn string, opt sqlengine.Options, mustExist bool) (*sqlengine.Engine, error) {
	if mustExist {
		if err := requireExistingDatabase(dsn); err != nil {
			return nil, err
		}
	}
	if cat == nil {
		var err error
		if cat, err = catalog.Builtin(); err != nil {
			return nil, fmt.Errorf("load catalog: %w", err)
		}
	}
	eng, err := sqlengine.Open(ctx, dsn, cat, opt)
	var mismatch *rules.CatalogError
	if errors.As(err, &mismatch) {
		return nil, err // about the catalog, not the database: it names the file
	}
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	return eng, nil
}

// requireExistingDatabase refuses a SQLite DSN whose file is missing.
// PostgreSQL databases are created by their operator, so they always pass.
func requireExistingDatabase(dsn string) error {
	path, isSQLite := strings.CutPrefix(dsn, "sqlite:")
	if !isSQLite {
		return nil
	}
	path, _, _ = strings.Cut(path, "?")
	if path == "" || path == ":memory:" || strings.HasPrefix(path, "file:") {
		return nil // malformed or special: the engine reports or handles it
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("no database at %s: run \"fieldapi init --db %s\" first", path, dsn)
	}
	return nil
}

// redactDSN hides a password in a PostgreSQL DSN, so a DSN can be logged.
func redactDSN(dsn string) string {
	if strings.HasPrefix(dsn, "sqlite:") {
		return dsn
	}
	u, err := url.Parse(dsn)
	if err != nil {
		return "(unparsable DSN)"
	}
	return u.Redacted()
}
