package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matryer/is"

	"fieldapi/catalog/catalogtest"
)

// TestInitDemoRefusesACatalogTheRulesCannotRunOn: with AssigneeStatuses
// deleted from tasks.yaml (which generates, builds and vets), init --demo
// stops before touching the database, with a message naming the file, the
// rule and the field, never a panic half-way through the demo data.
func TestInitDemoRefusesACatalogTheRulesCannotRunOn(t *testing.T) {
	is := is.New(t)
	const field = `  - {name: AssigneeStatuses, type: object, description: "Each assignee's own status on the task, by signature."}` + "\n"
	const example = `"AssigneeStatuses": {"ERJO": "Finished"}, ` // the field in the example record
	cat, err := catalogtest.BuiltinWith(func(files map[string]string) {
		is.True(strings.Contains(files["tasks.yaml"], field))   // the field is there to remove
		is.True(strings.Contains(files["tasks.yaml"], example)) // and its value in the example
		files["tasks.yaml"] = strings.Replace(files["tasks.yaml"], field, "", 1)
		files["tasks.yaml"] = strings.Replace(files["tasks.yaml"], example, "", 1)
	})
	is.NoErr(err) // the catalog itself is valid

	path := filepath.Join(t.TempDir(), "fieldapi.db")
	var stdout, stderr bytes.Buffer
	a := &app{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }, catalog: cat}
	code := a.run(t.Context(), []string{"init", "--db", "sqlite:" + path, "--demo"})
	is.Equal(code, exitError)
	is.Equal(stderr.String(), "fieldapi init: catalog/tasks.yaml: the task status rules need field AssigneeStatuses (object)\n") // names file, rule, field
	_, err = os.Stat(path)
	is.True(os.IsNotExist(err)) // no database was created
}
