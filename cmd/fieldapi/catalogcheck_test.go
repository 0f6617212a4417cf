package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/matryer/is"

	"fieldapi/catalog"
)

// TestInitDemoRefusesACatalogTheRulesCannotRunOn: with AssigneeStatuses
// deleted from tasks.yaml (which generates, builds and vets), init --demo
// stops before touching the database, with a message naming the file, the
// rule and the field, never a panic half-way through the demo data.
func TestInitDemoRefusesACatalogTheRulesCannotRunOn(t *testing.T) {
	is := is.New(t)
	fsys := fstest.MapFS{}
	paths, err := filepath.Glob("../../catalog/*.yaml")
	is.NoErr(err)
	for _, p := range paths {
		data, err := os.ReadFile(p)
		is.NoErr(err)
		if filepath.Base(p) == "tasks.yaml" {
			kept := data
			data = withoutLinesContaining(data, "{name: AssigneeStatuses,")
			is.True(len(data) < len(kept)) // the field was there
		}
		fsys[filepath.Base(p)] = &fstest.MapFile{Data: data}
	}
	cat, err := catalog.LoadFS(fsys)
	is.NoErr(err) // the catalog itself is valid

	path := filepath.Join(t.TempDir(), "fieldapi.db")
	var stdout, stderr bytes.Buffer
	a := &app{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }, catalog: cat}
	code := a.run(t.Context(), []string{"init", "--db", "sqlite:" + path, "--demo"})
	is.Equal(code, exitError)
	is.True(strings.Contains(stderr.String(), "catalog/tasks.yaml: the task status rules need field AssigneeStatuses (object)")) // names file, rule, field
	is.True(!strings.Contains(stderr.String(), "panic"))
	_, err = os.Stat(path)
	is.True(os.IsNotExist(err)) // no database was created
}

// withoutLinesContaining drops every line of data containing s.
func withoutLinesContaining(data []byte, s string) []byte {
	var out [][]byte
	for _, line := range bytes.Split(data, []byte("\n")) {
		if !bytes.Contains(line, []byte(s)) {
			out = append(out, line)
		}
	}
	return bytes.Join(out, []byte("\n"))
}
