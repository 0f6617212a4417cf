package sqlengine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/matryer/is"

	"fieldapi/catalog"
)

// TestOpenRefusesARenamedRegisterWithRules: rules are bound to their
// register by name; renaming tasks in the catalog used to detach them
// silently. Now Open refuses, naming the file the rules expect.
func TestOpenRefusesARenamedRegisterWithRules(t *testing.T) {
	is := is.New(t)
	fsys := fstest.MapFS{}
	paths, err := filepath.Glob("../../catalog/*.yaml")
	is.NoErr(err)
	for _, p := range paths {
		data, err := os.ReadFile(p)
		is.NoErr(err)
		name := filepath.Base(p)
		if name == "tasks.yaml" {
			name, data = "jobs.yaml", []byte(strings.Replace(string(data), "register: tasks", "register: jobs", 1))
		}
		fsys[name] = &fstest.MapFile{Data: data}
	}
	cat, err := catalog.LoadFS(fsys)
	is.NoErr(err) // the catalog itself is valid

	dsn := "sqlite:" + filepath.Join(t.TempDir(), "engine.db")
	_, err = Open(t.Context(), dsn, cat, Options{})
	is.True(err != nil)
	is.True(strings.Contains(err.Error(), "catalog/tasks.yaml: the task id and note rules need register tasks, which the catalog does not declare")) // names file, rule, register
}
