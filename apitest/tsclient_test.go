package apitest

import (
	"context"
	"net/http"
	"os"
	osexec "os/exec"
	"path/filepath"
	"testing"
	"time"

	"fieldapi/runtime"
)

// OpenAPITypeScript is the openapi-typescript release the TypeScript check
// runs, pinned so that a new release cannot change what the test sees.
const OpenAPITypeScript = "openapi-typescript@7.13.0"

// TestOpenAPITypeScriptClient generates TypeScript types from the document
// the service serves with openapi-typescript (npx, from the npm registry)
// and checks them (checkTypeScriptClient): every enum a union of exactly
// the catalog's values, | null where nullable, latencyMs a number.
//
// It skips under -short and where node or npx is not on PATH, so make test
// passes on a machine with only Go; CI has node and runs it.
func TestOpenAPITypeScriptClient(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping openapi-typescript (runs npx)")
	}
	for _, tool := range []string{"node", "npx"} {
		if _, err := osexec.LookPath(tool); err != nil {
			t.Skipf("no %s on PATH (%v): the TypeScript client is not checked here; CI checks it", tool, err)
		}
	}
	env := Start(t, Backends(t)[0], runtime.Config{})
	served := env.Do(Request{Method: http.MethodGet, Path: "/openapi.json"})
	Expect(t, served, http.StatusOK)

	dir := t.TempDir()
	doc, out := filepath.Join(dir, "openapi.json"), filepath.Join(dir, "schema.d.ts")
	if err := os.WriteFile(doc, served.Body, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute) // a cold npm cache downloads it first
	defer cancel()
	cmd := osexec.CommandContext(ctx, "npx", "--yes", OpenAPITypeScript, doc, "-o", out)
	cmd.Dir = dir // no package.json of ours to resolve against
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "npm_config_update_notifier=false", "npm_config_fund=false", "npm_config_audit=false")
	start := time.Now()
	output, err := cmd.CombinedOutput()
	t.Logf("npx %s: %s", OpenAPITypeScript, time.Since(start).Round(time.Millisecond))
	if err != nil {
		t.Fatalf("npx --yes %s failed: %v\n%s", OpenAPITypeScript, err, output)
	}
	ts, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	enums := expectedEnums(t, env.Catalog, served.Body)
	checkTypeScriptClient(t, string(ts), enums)
}
