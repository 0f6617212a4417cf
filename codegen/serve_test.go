package codegen

import (
	"path/filepath"
	"strings"
	"testing"

	"fieldapi/catalog"
	"fieldapi/codegen/internal/modeltest"
	"fieldapi/codegen/model"
	"fieldapi/internal/dbtest"
	"fieldapi/internal/gomodtest"
)

// TestGeneratedRegisterServesHTTP proves a register needs YAML alone: the
// real catalog plus testdata/serve/machines.yaml is generated into a
// temporary module that uses this repository (replace fieldapi => root),
// and testdata/serve/machines_test.go serves it over HTTP with the demo
// data on every store — memory, SQLite and, when FIELDAPI_TEST_POSTGRES
// names a server, PostgreSQL (the repository's internal/dbtest is copied
// into the module for its databases): POST, replay, GET, PATCH, list, the
// strict decoders, and its lookup keys through every route. The golden
// output and the every-combination catalog are built in the same module,
// so the generator's output is known to compile.
//
// It needs no network: go.mod's requirements and go.sum are copied from
// the repository, GOPROXY=off, and the module and build caches are shared,
// so only the generated packages and the test binary are compiled anew.
func TestGeneratedRegisterServesHTTP(t *testing.T) {
	mod := gomodtest.New(t, "..", "fieldgentest", true)

	// The combined catalog: every real register and machines.
	catDir := filepath.Join(mod.Dir, "catalog")
	real, err := filepath.Glob(filepath.Join(mod.Root, "catalog", catalog.RegisterFiles))
	if err != nil || len(real) == 0 {
		t.Fatalf("no real catalog files (%v)", err)
	}
	for _, src := range append(real, filepath.Join("testdata", "serve", "machines.yaml")) {
		mod.CopyFile(src, filepath.Join("catalog", filepath.Base(src)))
	}
	sets, err := filepath.Glob(filepath.Join(mod.Root, "catalog", catalog.FieldSetFiles))
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range sets { // the field sets the real registers use
		mod.CopyFile(src, filepath.Join("catalog", "fieldsets", filepath.Base(src)))
	}
	cat, err := catalog.LoadDir(catDir)
	if err != nil {
		t.Fatal(err)
	}
	m, err := model.New(cat)
	if err != nil {
		t.Fatal(err)
	}
	if m.Registers[0].Name == "machines" || cat.Register("machines") == nil {
		t.Fatal("machines is not part of the combined catalog")
	}
	writeGenerated(t, m, "fieldgentest/generated", filepath.Join(mod.Dir, "generated"))
	writeGenerated(t, modeltest.OfFS(t, modeltest.EveryCombination()), "fieldgentest/combos", filepath.Join(mod.Dir, "combos"))
	if err := WriteDir(filepath.Join(mod.Dir, "golden"), readDir(t, goldenDir, func(string) bool { return true })); err != nil {
		t.Fatal(err)
	}
	mod.CopyFile(filepath.Join("testdata", "serve", "machines_test.go"), filepath.Join("serve", "machines_test.go"))
	mod.CopyFile(filepath.Join(mod.Root, "internal", "dbtest", "dbtest.go"), filepath.Join("internal", "dbtest", "dbtest.go"))

	mod.Setenv("FIELDGEN_CATALOG=" + catDir)
	mod.Go("", "vet", "./generated", "./combos", "./golden", "./serve")
	out := mod.Go("", "test", "-count=1", "-v", "./serve")
	// Which test ran on which store, and which store was skipped and why.
	for _, line := range strings.Split(out, "\n") {
		if trimmed := strings.TrimSpace(line); strings.HasPrefix(trimmed, "--- ") || strings.Contains(trimmed, dbtest.PostgresEnv) {
			t.Log(trimmed)
		}
	}
}

// writeGenerated generates a model as the package pkgPath into dir.
func writeGenerated(t *testing.T, m *model.Model, pkgPath, dir string) {
	t.Helper()
	files, err := Generate(m, Options{PkgPath: pkgPath})
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteDir(dir, files); err != nil {
		t.Fatal(err)
	}
}
