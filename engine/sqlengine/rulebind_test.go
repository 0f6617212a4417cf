package sqlengine

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/matryer/is"

	"fieldapi/catalog"
)

// TestOpenRefusesARenamedRegisterWithRules: rules are bound to their
// register by name; renaming tasks in the catalog used to detach them
// silently. Now Open refuses, naming the file the rules expect.
func TestOpenRefusesARenamedRegisterWithRules(t *testing.T) {
	is := is.New(t)
	cat, err := catalog.BuiltinWith(func(files map[string]string) {
		files["jobs.yaml"] = strings.Replace(files["tasks.yaml"], "register: tasks", "register: jobs", 1)
		files["tasks.yaml"] = ""
	})
	is.NoErr(err) // the catalog itself is valid

	dsn := "sqlite:" + filepath.Join(t.TempDir(), "engine.db")
	_, err = Open(t.Context(), dsn, cat, Options{})
	is.True(err != nil)
	is.True(strings.Contains(err.Error(), "catalog/tasks.yaml: the task id and note rules need register tasks, which the catalog does not declare")) // names file, rule, register
}
