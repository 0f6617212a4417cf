package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"fieldapi/catalog"
	"fieldapi/engine/reference"
)

// dbUse is what a command needs of its database.
type dbUse int

const (
	// existing: a database that exists (every command but init, seed and
	// serve on memory): opening a SQLite path that does not would quietly
	// create an empty one, a typo in --db.
	existing dbUse = iota
	// creating: init and seed create the database.
	creating
	// serving: serve, which also takes the memory database (it lives in
	// the serving process: no other command can reach it).
	serving
)

// openEngine opens the reference engine over the builtin catalog.
func openEngine(ctx context.Context, dsn string, opt reference.Options, use dbUse) (*reference.Engine, error) {
	return openEngineWith(ctx, nil, dsn, opt, use)
}

// openEngineWith is openEngine over cat; nil is the builtin catalog. The
// engine refuses a catalog its rules cannot run on, naming the YAML file,
// the rule and the field.
func openEngineWith(ctx context.Context, cat *catalog.Catalog, dsn string, opt reference.Options, use dbUse) (*reference.Engine, error) {
	if isMemory(dsn) && use != serving {
		return nil, fmt.Errorf("the %s database lives inside one serve process, which no other command can reach: use \"fieldapi serve --db %s --demo\"",
			reference.MemoryDSN, reference.MemoryDSN)
	}
	if err := checkSQLitePath(dsn, use == existing); err != nil {
		return nil, err
	}
	if cat == nil {
		var err error
		if cat, err = catalog.Builtin(); err != nil {
			return nil, fmt.Errorf("load catalog: %w", err)
		}
	}
	eng, err := reference.Open(ctx, dsn, cat, opt)
	if reference.IsCatalogError(err) {
		return nil, err // about the catalog, not the database: it names the file
	}
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	return eng, nil
}

// checkSQLitePath says what is wrong with the file of a SQLite DSN before
// the engine opens it, where the driver would only answer "engine
// unreachable: unable to open database file": a directory that does not
// exist, or, when mustExist, a database that does not (opening it would
// quietly create an empty one: a typo in --db). PostgreSQL databases are
// created by their operator, so they always pass.
func checkSQLitePath(dsn string, mustExist bool) error {
	path, isSQLite := strings.CutPrefix(dsn, "sqlite:")
	if !isSQLite {
		return nil
	}
	path, _, _ = strings.Cut(path, "?")
	if path == "" || path == ":memory:" || strings.HasPrefix(path, "file:") {
		return nil // malformed or special: the engine reports or handles it
	}
	dir := filepath.Dir(path)
	info, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist) && mustExist:
		return fmt.Errorf("no database at %s: the directory %s does not exist; check the path, or create the directory and run \"fieldapi init --db %s\"",
			path, describeDir(dir), shellQuote(dsn))
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("cannot create the database %s: the directory %s does not exist; create it first (mkdir -p %s) or choose another path",
			path, describeDir(dir), shellQuote(dir))
	case err != nil:
		return fmt.Errorf("database %s: %w", path, err)
	case !info.IsDir():
		return fmt.Errorf("database %s: %s is not a directory", path, describeDir(dir))
	}
	if _, err := os.Stat(path); mustExist && errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("no database at %s: run \"fieldapi init --db %s\" first", path, shellQuote(dsn))
	}
	return nil
}

// describeDir names a directory as given and, when that is relative, where
// it is: the working directory of a command is not always the one its user
// has in mind.
func describeDir(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil && abs != dir {
		return dir + " (" + abs + ")"
	}
	return dir
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

// shellQuote quotes s for a POSIX shell when it holds anything but
// characters that are safe unquoted (a PostgreSQL DSN's ? and &).
func shellQuote(s string) string {
	safe := func(r rune) bool {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("@%+=:,./_-", r)
	}
	if s != "" && strings.IndexFunc(s, func(r rune) bool { return !safe(r) }) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
