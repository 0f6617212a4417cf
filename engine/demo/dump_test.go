package demo_test

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"fieldapi/catalog"
	"fieldapi/engine/demo"
	"fieldapi/engine/reference"
)

var update = flag.Bool("update", false, "rewrite testdata/demo.dump from the current load")

// The tables the dump leaves out: keys, tokens and stored responses are
// never demo data.
var notDumped = map[string]bool{"api_keys": true, "api_tokens": true, "idempotency": true}

// TestDemoDumpIsUnchanged loads the demo data into a fresh SQLite
// database on a fixed clock and compares every row of every table (both
// companies) with testdata/demo.dump. The dump was recorded from the
// engine's former Go-coded demo loader, before the demo data moved into
// data files, so it proves that `fieldapi init --demo` produces the same
// data as it did; from now on it shows every change to the demo data.
func TestDemoDumpIsUnchanged(t *testing.T) {
	path := filepath.Join(t.TempDir(), "demo.db")
	loadDemo(t, "sqlite:"+path)
	got := dumpSQLite(t, path)
	golden := filepath.Join("testdata", "demo.dump")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		gotLines, wantLines := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := range min(len(gotLines), len(wantLines)) {
			if gotLines[i] != wantLines[i] {
				t.Fatalf("dump differs from %s at line %d:\n got: %s\nwant: %s", golden, i+1, gotLines[i], wantLines[i])
			}
		}
		t.Fatalf("dump differs from %s: %d lines, want %d", golden, len(gotLines), len(wantLines))
	}
}

// demoClock is the engine clock of the dump: every Modified and marker.
var demoClock = time.Date(2025, 6, 2, 8, 0, 0, 0, time.UTC)

func openEngine(t *testing.T, dsn string) *reference.Engine {
	t.Helper()
	ctx := context.Background()
	cat, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	eng, err := reference.Open(ctx, dsn, cat, reference.Options{Now: func() time.Time { return demoClock }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	if err := eng.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	return eng
}

func loadDemo(t *testing.T, dsn string) {
	t.Helper()
	eng := openEngine(t, dsn)
	if err := demo.Load(context.Background(), eng); err != nil {
		t.Fatal(err)
	}
	if err := eng.Close(); err != nil {
		t.Fatal(err)
	}
}

// dumpSQLite renders every row of every table, one JSON object a line,
// tables by name and rows in column order. Binary content is shown by its
// hash, and the demo manual's path (under the machine's temporary
// directory) by a placeholder.
func dumpSQLite(t *testing.T, path string) string {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var tables []string
	rows, err := db.Query(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		if !notDumped[name] {
			tables = append(tables, name)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	manual := filepath.Join(os.TempDir(), "fieldapi-demo")
	var out strings.Builder
	for _, table := range tables {
		lines := dumpTable(t, db, table)
		sort.Strings(lines)
		fmt.Fprintf(&out, "# %s: %d rows\n", table, len(lines))
		for _, l := range lines {
			out.WriteString(strings.ReplaceAll(l, manual, "$TMPDIR/fieldapi-demo") + "\n")
		}
	}
	return out.String()
}

func dumpTable(t *testing.T, db *sql.DB, table string) []string {
	t.Helper()
	rows, err := db.Query(`SELECT * FROM "` + table + `"`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for i, c := range cols {
			v := vals[i]
			if raw, ok := v.([]byte); ok {
				sum := sha256.Sum256(raw)
				v = "sha256:" + hex.EncodeToString(sum[:])
			}
			j, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			if i > 0 {
				b.WriteString(" ")
			}
			fmt.Fprintf(&b, "%s=%s", c, j)
		}
		lines = append(lines, b.String())
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}
