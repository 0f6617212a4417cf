package reference_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fieldapi/catalog/catalogtest"
	"fieldapi/engine"
	"fieldapi/engine/reference"
)

// TestOpenRefusesBadDSN: a DSN the engine cannot open is refused by Open
// (what each error says is engine/sqldb's TestOpenRefusesBadDSN).
func TestOpenRefusesBadDSN(t *testing.T) {
	t.Parallel()
	cat := builtin(t)
	for _, dsn := range []string{"mysql://x", "fieldapi.db", "sqlite:", "sqlite::memory:", "sqlite:/no/such/dir/x.db",
		"postgres://bad host:x/", reference.MemoryDSN + "x"} {
		e, err := reference.Open(context.Background(), dsn, cat, reference.Options{})
		if err == nil {
			e.Close()
			t.Errorf("Open(%q) succeeded; want it refused", dsn)
			continue
		}
		t.Logf("Open(%q): %v", dsn, err)
	}
}

// TestOpenRefusesARenamedRegisterWithRules: rules are bound to their
// register by name; renaming tasks in the catalog would detach them
// silently. Open refuses, naming the file the rules expect, before it
// opens (or creates) the database.
func TestOpenRefusesARenamedRegisterWithRules(t *testing.T) {
	t.Parallel()
	cat, err := catalogtest.BuiltinWith(func(files map[string]string) {
		files["jobs.yaml"] = strings.Replace(files["tasks.yaml"], "register: tasks", "register: jobs", 1)
		files["tasks.yaml"] = ""
	})
	if err != nil {
		t.Fatal(err) // the catalog itself is valid
	}
	path := filepath.Join(t.TempDir(), "engine.db")
	e, err := reference.Open(context.Background(), "sqlite:"+path, cat, reference.Options{})
	if err == nil {
		e.Close()
		t.Fatal("Open with tasks renamed succeeded; want it refused")
	}
	const want = "catalog/tasks.yaml: the task note rules need register tasks, which the catalog does not declare"
	if !strings.Contains(err.Error(), want) || !reference.IsCatalogError(err) {
		t.Errorf("Open with tasks renamed: %v; want a catalog error saying %q", err, want)
	}
	if _, statErr := os.Stat(path); !errors.Is(statErr, os.ErrNotExist) {
		t.Errorf("the refused Open created the database file (%v)", statErr)
	}
}

// TestPostgresUnreachable: a PostgreSQL that does not answer makes calls
// fail with engine.ErrUnreachable; Open itself does not need it.
func TestPostgresUnreachable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := openEngine(t, unreachablePostgres, builtin(t), reference.Options{})
	if err := e.Ping(ctx); !errors.Is(err, engine.ErrUnreachable) {
		t.Errorf("Ping: %v; want engine.ErrUnreachable", err)
	}
	if _, err := e.List(ctx, demoAPI, "customers", engine.Query{Limit: 1}); !errors.Is(err, engine.ErrUnreachable) {
		t.Errorf("List: %v; want engine.ErrUnreachable", err)
	}
}
