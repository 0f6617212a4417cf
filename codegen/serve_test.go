package codegen

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fieldapi/catalog"
)

// TestGeneratedRegisterServesHTTP proves a register needs YAML alone: the
// real catalog plus testdata/serve/machines.yaml is generated into a
// temporary module that uses this repository (replace fieldapi => root),
// and testdata/serve/machines_test.go serves it over HTTP on the SQLite
// engine with its demo data: POST, replay, GET, PATCH, list and the strict
// decoders. The golden output and the every-combination catalog are built
// in the same module, so the generator's output is known to compile.
//
// It needs no network: go.mod's requirements and go.sum are copied from
// the repository, GOPROXY=off, and the module and build caches are shared,
// so only the generated packages and the test binary are compiled anew.
func TestGeneratedRegisterServesHTTP(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the build of a temporary module that compiles and serves generated code (runs go build and go test)")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH:", err)
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	mod := t.TempDir()

	// The combined catalog: every real register and machines.
	catDir := filepath.Join(mod, "catalog")
	real, err := filepath.Glob(filepath.Join(root, "catalog", catalog.RegisterFiles))
	if err != nil || len(real) == 0 {
		t.Fatalf("no real catalog files (%v)", err)
	}
	for _, src := range append(real, filepath.Join("testdata", "serve", "machines.yaml")) {
		copyFile(t, src, filepath.Join(catDir, filepath.Base(src)))
	}
	sets, err := filepath.Glob(filepath.Join(root, "catalog", catalog.FieldSetFiles))
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range sets { // the field sets the real registers use
		copyFile(t, src, filepath.Join(catDir, "fieldsets", filepath.Base(src)))
	}
	cat, err := catalog.LoadDir(catDir)
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewModel(cat)
	if err != nil {
		t.Fatal(err)
	}
	if m.Registers[0].Name == "machines" || cat.Register("machines") == nil {
		t.Fatal("machines is not part of the combined catalog")
	}
	writeGenerated(t, m, "fieldgentest/generated", filepath.Join(mod, "generated"))
	writeGenerated(t, modelOfFS(t, everyCombination()), "fieldgentest/combos", filepath.Join(mod, "combos"))
	if err := WriteDir(filepath.Join(mod, "golden"), readDir(t, goldenDir, func(string) bool { return true })); err != nil {
		t.Fatal(err)
	}
	copyFile(t, filepath.Join("testdata", "serve", "machines_test.go"), filepath.Join(mod, "serve", "machines_test.go"))
	writeFile(t, filepath.Join(mod, "go.mod"), tempGoMod(t, root))
	copyFile(t, filepath.Join(root, "go.sum"), filepath.Join(mod, "go.sum"))

	env := append(os.Environ(),
		"GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off", "GOTOOLCHAIN=local",
		"FIELDGEN_CATALOG="+catDir,
	)
	run := func(args ...string) {
		t.Helper()
		start := time.Now()
		cmd := exec.Command(goBin, args...)
		cmd.Dir, cmd.Env = mod, env
		out, err := cmd.CombinedOutput()
		t.Logf("go %s: %s", strings.Join(args, " "), time.Since(start).Round(time.Millisecond))
		if err != nil {
			t.Fatalf("go %s in the temporary module failed: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	run("vet", "./generated", "./combos", "./golden")
	run("test", "-count=1", "./serve")
}

// writeGenerated generates a model as the package pkgPath into dir.
func writeGenerated(t *testing.T, m *Model, pkgPath, dir string) {
	t.Helper()
	files, err := Generate(m, Options{PkgPath: pkgPath})
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteDir(dir, files); err != nil {
		t.Fatal(err)
	}
}

// tempGoMod is the repository's go.mod renamed fieldgentest, requiring
// fieldapi from the repository itself.
func tempGoMod(t *testing.T, root string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "module ") {
			line = "module fieldgentest"
		}
		b.WriteString(line + "\n")
	}
	b.WriteString("require fieldapi v0.0.0\n\nreplace fieldapi => " + root + "\n")
	return b.String()
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
