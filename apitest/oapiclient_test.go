package apitest

import (
	"net/http"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	// The runtime of the client oapi-codegen generates: required here so
	// go.mod and go.sum pin it, and the temporary module builds offline.
	_ "github.com/oapi-codegen/runtime"

	"fieldapi/runtime"
)

// TestOapiCodegenClient is a new integrator's first hour: generate a Go
// client from the document the service serves, with oapi-codegen (pinned
// as a tool in go.mod), compile it, and do the README's calls through its
// typed methods (testdata/oapiclient/client_test.go): create a customer
// with contacts, patch a task's assignees, and write and read back an
// order-line price of 1234567.89 to the cent.
//
// It needs no network: the temporary module copies go.mod and go.sum,
// GOPROXY=off, and the module and build caches are shared.
func TestOapiCodegenClient(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the generation and build of an oapi-codegen client")
	}
	goBin, err := osexec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH:", err)
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	env := Start(t, Backends(t)[0], runtime.Config{})
	served := env.Do(Request{Method: http.MethodGet, Path: "/openapi.json"})
	Expect(t, served, http.StatusOK)

	mod := t.TempDir()
	pkg := filepath.Join(mod, "fieldclient")
	writeTestFile(t, filepath.Join(mod, "openapi.json"), served.Body)
	writeTestFile(t, filepath.Join(mod, "go.mod"), []byte(renameModule(t, filepath.Join(root, "go.mod"), "fieldclient")))
	copyTestFile(t, filepath.Join(root, "go.sum"), filepath.Join(mod, "go.sum"))
	copyTestFile(t, filepath.Join("testdata", "oapiclient", "client_test.go"), filepath.Join(pkg, "client_test.go"))

	offline := append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off", "GOTOOLCHAIN=local",
		"FIELDAPI_CLIENT_URL="+env.URL, "FIELDAPI_CLIENT_KEY="+env.Key)
	run := func(dir string, args ...string) string {
		t.Helper()
		start := time.Now()
		cmd := osexec.Command(goBin, args...)
		cmd.Dir, cmd.Env = dir, offline
		out, err := cmd.CombinedOutput()
		t.Logf("go %s: %s", strings.Join(args, " "), time.Since(start).Round(time.Millisecond))
		if err != nil {
			t.Fatalf("go %s failed: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	run(root, "tool", "oapi-codegen", "-generate", "types,client", "-package", "fieldclient",
		"-o", filepath.Join(pkg, "client.go"), filepath.Join(mod, "openapi.json"))
	run(mod, "vet", "./fieldclient")
	out := run(mod, "test", "-count=1", "-v", "./fieldclient")
	for _, test := range []string{"TestCustomerWithContacts", "TestPatchTaskAssignees", "TestOrderLinePriceKeepsItsCents"} {
		if !strings.Contains(out, "--- PASS: "+test) {
			t.Errorf("%s did not pass (skipped?):\n%s", test, out)
		}
	}
}

// renameModule is a go.mod with another module name, same requirements.
func renameModule(t *testing.T, path, name string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	for i, line := range lines {
		if strings.HasPrefix(line, "module ") {
			lines[i] = "module " + name
		}
	}
	return strings.Join(lines, "\n")
}

func copyTestFile(t *testing.T, src, dst string) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, dst, data)
}

func writeTestFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
