package apitest

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fieldapi/catalog"
	"fieldapi/engine/demo"
	"fieldapi/engine/reference"
)

// Building the schema and demo data takes most of a test's setup (seconds
// on PostgreSQL). RunWithTemplates builds them once per test binary; each
// test then starts from a copy: a file copy on SQLite, CREATE DATABASE ...
// TEMPLATE on PostgreSQL.
//
//	func TestMain(m *testing.M) { os.Exit(apitest.RunWithTemplates(m)) }
func RunWithTemplates(m *testing.M) int {
	dir, err := os.MkdirTemp("", "fieldapi-templates-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "apitest:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	sqliteTemplate = filepath.Join(dir, "template.db")
	if err := buildTemplate("sqlite:" + sqliteTemplate); err != nil {
		fmt.Fprintln(os.Stderr, "apitest: sqlite template:", err)
		return 1
	}
	if pg := os.Getenv(PostgresEnv); pg != "" && !fuzzing() {
		name := "fieldapi_tmpl_" + randomHex(6)
		if err := createPostgresTemplate(pg, name); err != nil {
			fmt.Fprintln(os.Stderr, "apitest: postgres template:", err)
			return 1
		}
		postgresTemplate = name
		defer dropDatabase(pg, name)
	}
	return m.Run()
}

// fuzzing reports whether the binary runs a fuzz target (or is one of its
// workers, each of which runs TestMain): the fuzz targets run on SQLite, so
// a PostgreSQL template would only delay each worker's start.
func fuzzing() bool {
	for _, arg := range os.Args[1:] {
		if strings.HasPrefix(arg, "-test.fuzz=") || strings.HasPrefix(arg, "-test.fuzzworker") {
			return true
		}
	}
	return false
}

// The templates of this test binary; empty when RunWithTemplates did not run.
var sqliteTemplate, postgresTemplate string

// buildTemplate migrates and loads the demo data, then closes the engine
// so nothing is left in SQLite's WAL and no connection holds the template.
func buildTemplate(dsn string) error {
	ctx := context.Background()
	cat, err := catalog.Builtin()
	if err != nil {
		return err
	}
	eng, err := reference.Open(ctx, dsn, cat, reference.Options{})
	if err != nil {
		return err
	}
	defer eng.Close()
	if err := eng.Migrate(ctx); err != nil {
		return err
	}
	return demo.Load(ctx, eng)
}

func createPostgresTemplate(dsn, name string) error {
	if err := exec(dsn, `CREATE DATABASE `+name); err != nil {
		return err
	}
	if err := buildTemplate(withDatabase(dsn, name)); err != nil {
		dropDatabase(dsn, name)
		return err
	}
	return nil
}

// sqliteCopy copies the template into the test's temporary directory.
func sqliteCopy(t testing.TB) string {
	path := filepath.Join(t.TempDir(), "fieldapi.db")
	if sqliteTemplate == "" {
		return "sqlite:" + path // no template: the test builds its own database
	}
	src, err := os.Open(sqliteTemplate)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
	return "sqlite:" + path
}

// postgresCopy creates a database of the test's own from the template, or
// an empty one, and drops it after the test.
func postgresCopy(t testing.TB, dsn string) string {
	name := "t_" + randomHex(6)
	create := `CREATE DATABASE ` + name
	if postgresTemplate != "" {
		create += ` TEMPLATE ` + postgresTemplate
	}
	if err := exec(dsn, create); err != nil {
		t.Fatalf("postgres: %v", err)
	}
	t.Cleanup(func() { dropDatabase(dsn, name) })
	return withDatabase(dsn, name)
}

func exec(dsn, statement string) error {
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	_, err = db.Exec(statement)
	return err
}

func dropDatabase(dsn, name string) {
	exec(dsn, `DROP DATABASE IF EXISTS `+name+` WITH (FORCE)`)
}

// withDatabase is the DSN with another database name.
func withDatabase(dsn, name string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return dsn
	}
	u.Path = "/" + strings.TrimPrefix(name, "/")
	return u.String()
}
