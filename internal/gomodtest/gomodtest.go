// Package gomodtest builds and tests Go code in a temporary module made
// from this repository's go.mod and go.sum. It first fetches every module
// go.mod pins (go mod download, through the configured proxy: a no-op on
// a warm module cache), then runs the go command offline (GOPROXY=off),
// so the temporary module can only use what go.mod pins; the module and
// build caches are shared, so only the new code is compiled. Tests use it
// to prove generated code compiles and runs.
package gomodtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Module is a temporary module.
type Module struct {
	Dir  string // its root
	Root string // the repository whose go.mod and go.sum it copies
	t    testing.TB
	env  []string
}

// New makes a module named name in a temporary directory, requiring what
// the repository at root requires. With useRoot, it also requires the
// repository's own module (fieldapi), replaced by root. It skips the test
// under -short or when no go command is on PATH.
func New(t testing.TB, root, name string, useRoot bool) *Module {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: skipping the build of a temporary module (runs go build and go test)")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command on PATH:", err)
	}
	root, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	// Offline below is only sound for what is fetched here: on a machine
	// whose module cache is empty, nothing else would have fetched the
	// tools go.mod pins (go test builds none of them).
	download := exec.Command("go", "mod", "download")
	download.Dir = root
	if out, err := download.CombinedOutput(); err != nil {
		t.Fatalf("go mod download in %s (fetching what go.mod pins): %v\n%s", root, err, out)
	}
	m := &Module{Dir: t.TempDir(), Root: root, t: t,
		env: append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off", "GOTOOLCHAIN=local")}
	data, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	var mod strings.Builder
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "module ") {
			line = "module " + name
		}
		mod.WriteString(line + "\n")
	}
	if useRoot {
		mod.WriteString("require fieldapi v0.0.0\n\nreplace fieldapi => " + root + "\n")
	}
	m.WriteFile("go.mod", []byte(mod.String()))
	m.CopyFile(filepath.Join(root, "go.sum"), "go.sum")
	return m
}

// Setenv adds variables to the environment of the go commands it runs.
func (m *Module) Setenv(vars ...string) { m.env = append(m.env, vars...) }

// WriteFile writes a file at a path relative to the module.
func (m *Module) WriteFile(rel string, data []byte) {
	m.t.Helper()
	WriteFile(m.t, filepath.Join(m.Dir, rel), data)
}

// CopyFile copies src into the module at rel.
func (m *Module) CopyFile(src, rel string) {
	m.t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		m.t.Fatal(err)
	}
	m.WriteFile(rel, data)
}

// Go runs the go command in dir (the module when ""), failing the test
// with its output when it fails; it returns the output.
func (m *Module) Go(dir string, args ...string) string {
	m.t.Helper()
	if dir == "" {
		dir = m.Dir
	}
	start := time.Now()
	cmd := exec.Command("go", args...)
	cmd.Dir, cmd.Env = dir, m.env
	out, err := cmd.CombinedOutput()
	m.t.Logf("go %s: %s", strings.Join(args, " "), time.Since(start).Round(time.Millisecond))
	if err != nil {
		m.t.Fatalf("go %s failed: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// WriteFile writes a file, creating its directory.
func WriteFile(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
