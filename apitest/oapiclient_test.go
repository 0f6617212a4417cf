package apitest

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	// The runtime of the client oapi-codegen generates: required here so
	// go.mod and go.sum pin it, and the temporary module builds offline.
	_ "github.com/oapi-codegen/runtime"

	"fieldapi/internal/gomodtest"
	"fieldapi/runtime"
)

// TestOapiCodegenClient is a new integrator's first hour: generate a Go
// client from the document the service serves, with oapi-codegen (pinned
// as a tool in go.mod), check its types (checkGoClient: clean enum types
// of exactly the catalog's values, nullable as pointers, no float32), compile
// it, and do the README's calls through its typed methods
// (testdata/oapiclient/client_test.go): create a customer with contacts,
// patch a task's assignees, and write and read back an order-line price of
// 1234567.89 to the cent.
//
// It needs no network (internal/gomodtest).
func TestOapiCodegenClient(t *testing.T) {
	mod := gomodtest.New(t, "..", "fieldclient", false)
	env := Start(t, Backends(t)[0], runtime.Config{})
	served := env.Do(Request{Method: http.MethodGet, Path: "/openapi.json"})
	Expect(t, served, http.StatusOK)

	mod.WriteFile("openapi.json", served.Body)
	mod.CopyFile(filepath.Join("testdata", "oapiclient", "client_test.go"), filepath.Join("fieldclient", "client_test.go"))
	mod.Setenv("FIELDAPI_CLIENT_URL="+env.URL, "FIELDAPI_CLIENT_KEY="+env.Key)
	// go tool runs in the repository, whose go.mod pins oapi-codegen.
	mod.Go(mod.Root, "tool", "oapi-codegen", "-generate", "types,client", "-package", "fieldclient",
		"-o", filepath.Join(mod.Dir, "fieldclient", "client.go"), filepath.Join(mod.Dir, "openapi.json"))
	src, err := os.ReadFile(filepath.Join(mod.Dir, "fieldclient", "client.go"))
	if err != nil {
		t.Fatal(err)
	}
	enums := expectedEnums(t, env.Catalog, served.Body)
	checkGoClient(t, src, enums)
	mod.Go("", "vet", "./fieldclient")
	out := mod.Go("", "test", "-count=1", "-v", "./fieldclient")
	for _, test := range []string{"TestCustomerWithContacts", "TestPatchTaskAssignees", "TestOrderLinePriceKeepsItsCents"} {
		if !strings.Contains(out, "--- PASS: "+test) {
			t.Errorf("%s did not pass (skipped?):\n%s", test, out)
		}
	}
}
