// This file is copied into a temporary module by the codegen package's
// TestGeneratedRegisterServesHTTP, beside code generated from the real
// catalog plus testdata/serve/machines.yaml. It is not compiled in place
// (testdata is ignored by the go command).

package serve_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"fieldapi/catalog"
	"fieldapi/engine"
	"fieldapi/engine/demo"
	"fieldapi/engine/reference"
	"fieldapi/runtime"

	"fieldgentest/generated"
)

// TestMachinesOverHTTP drives the generated machines register: create,
// read, change one field, list, read its change log, and the strict
// decoders of its shapes.
func TestMachinesOverHTTP(t *testing.T) {
	ctx := context.Background()
	cat, err := catalog.LoadDir(os.Getenv("FIELDGEN_CATALOG"))
	if err != nil {
		t.Fatal(err)
	}
	if cat.Register("machines") == nil {
		t.Fatal("the catalog has no machines register")
	}
	eng, err := reference.Open(ctx, "sqlite:"+filepath.Join(t.TempDir(), "test.db"), cat, reference.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	if err := eng.Migrate(ctx); err != nil {
		t.Fatal("migrate:", err)
	}
	if err := demo.Load(ctx, eng); err != nil {
		t.Fatal("demo data:", err)
	}
	key, hash, err := runtime.NewKey("codegen-test")
	if err != nil {
		t.Fatal(err)
	}
	err = eng.Keys().CreateKey(ctx, engine.Key{ClientID: "codegen-test", Company: "demo", Sign: "API", Scopes: []string{"*"}, SecretHash: hash, Created: time.Now()})
	if err != nil {
		t.Fatal("create key:", err)
	}
	srv := httptest.NewServer(runtime.NewServer(eng, runtime.Config{}, generated.API()))
	defer srv.Close()
	c := client{t: t, base: srv.URL, key: key}

	status, customers := c.do("GET", "/v1/customers?limit=1", "", "")
	c.want(status, http.StatusOK, customers)
	items, _ := customers["items"].([]any)
	if len(items) == 0 {
		t.Fatalf("the demo company has no customers to reference: %v", customers)
	}
	customerNr := str(t, items[0].(map[string]any)["Nr"])

	create := fmt.Sprintf(`{"name": "Heat pump", "customerNr": %q, "serial": "SN-1", "installedDate": "2024-05-01",
		"hours": 12.5, "underWarranty": true, "tags": ["roof", "north"]}`, customerNr)
	status, created := c.do("POST", "/v1/machines", "create-1", create)
	c.want(status, http.StatusCreated, created)
	nr := str(t, created["Nr"]) // assigned by the number series
	if nr == "" {
		t.Fatalf("POST: no Nr assigned: %v", created)
	}
	wantFields(t, "POST", created, map[string]any{
		"Name": "Heat pump", "CustomerNr": customerNr, "Serial": "SN-1", "InstalledDate": "2024-05-01",
		"Hours": 12.5, "UnderWarranty": true, "Tags": []any{"roof", "north"}, "Status": "Active",
	})
	if _, ok := created["ExtraFields"].(map[string]any); !ok {
		t.Errorf("POST: ExtraFields = %#v, want an object", created["ExtraFields"])
	}
	if _, camel := created["name"]; camel {
		t.Errorf("POST: the record is read with camelCase names: %v", created)
	}

	status, replayed := c.do("POST", "/v1/machines", "create-1", create)
	c.want(status, http.StatusCreated, replayed)
	if str(t, replayed["Nr"]) != nr {
		t.Errorf("POST replay: Nr = %v, want %s (the first response)", replayed["Nr"], nr)
	}

	status, got := c.do("GET", "/v1/machines/"+nr, "", "")
	c.want(status, http.StatusOK, got)
	wantFields(t, "GET", got, map[string]any{"Nr": nr, "Name": "Heat pump", "Hours": 12.5, "Tags": []any{"roof", "north"}})

	status, patched := c.do("PATCH", "/v1/machines/"+nr, "patch-1", `{"hours": 20}`)
	c.want(status, http.StatusOK, patched)
	wantFields(t, "PATCH", patched, map[string]any{"Nr": nr, "Hours": 20.0, "Name": "Heat pump", "Serial": "SN-1"})

	status, listed := c.do("GET", "/v1/machines?customerNr="+customerNr, "", "")
	c.want(status, http.StatusOK, listed)
	var found map[string]any
	items, _ = listed["items"].([]any)
	for _, item := range items {
		if rec, _ := item.(map[string]any); rec["Nr"] == nr {
			found = rec
		}
	}
	if found == nil {
		t.Fatalf("GET list: %s missing from %v", nr, listed)
	}
	wantFields(t, "GET list", found, map[string]any{"Hours": 20.0, "Name": "Heat pump"})

	// The change log, generated for a register with writes: the PATCH,
	// then the create, newest first.
	status, changes := c.do("GET", "/v1/machines/"+nr+"/changes", "", "")
	c.want(status, http.StatusOK, changes)
	entries, _ := changes["items"].([]any)
	if len(entries) != 2 || changes["count"] != 2.0 {
		t.Fatalf("GET changes: %v, want the update and the create", changes)
	}
	wantFields(t, "GET changes", entries[0].(map[string]any), map[string]any{"Action": "update", "Detail": "Hours", "Sign": "API", "ClientId": "codegen-test", "ViaApi": true})
	wantFields(t, "GET changes", entries[1].(map[string]any), map[string]any{"Action": "create"})

	// The generated shapes: a create-only field is read only on PATCH, an
	// unknown name lists the writable ones, a missing required field is named.
	status, problem := c.do("PATCH", "/v1/machines/"+nr, "patch-2", `{"serial": "SN-2"}`)
	c.want(status, http.StatusBadRequest, problem)
	wantFields(t, "PATCH serial", problem, map[string]any{"title": "read_only_field"})
	status, problem = c.do("POST", "/v1/machines", "create-2", `{"name": "Boiler", "colour": "red"}`)
	c.want(status, http.StatusBadRequest, problem)
	wantFields(t, "POST colour", problem, map[string]any{"title": "unknown_field"})
	if valid, _ := problem["validValues"].([]any); !slices.Contains(valid, any("serial")) || slices.Contains(valid, any("status")) {
		t.Errorf("POST colour: validValues = %v, want the writable names (serial, not status)", problem["validValues"])
	}
	status, problem = c.do("POST", "/v1/machines", "create-3", `{"hours": 1}`)
	c.want(status, http.StatusBadRequest, problem)
	wantFields(t, "POST without name", problem, map[string]any{"title": "missing_field"})
}

// TestMachinesByLookupKey drives the lookup key the YAML declares
// (ExternalId): PUT by it creates, then updates; GET by it reads; the
// value is unique per company through every route (409 already_exists);
// records without one do not collide; parallel PUTs of one new value make
// one machine.
func TestMachinesByLookupKey(t *testing.T) {
	c := start(t)
	status, created := c.do("PUT", "/v1/machines/by-externalId/ERP-1", "put-1", `{"name": "Chiller", "hours": 1}`)
	c.want(status, http.StatusCreated, created)
	nr := str(t, created["Nr"]) // numbered by the series: the lookup key is not the key
	wantFields(t, "PUT create", created, map[string]any{"ExternalId": "ERP-1", "Name": "Chiller", "Status": "Active"})
	status, updated := c.do("PUT", "/v1/machines/by-externalId/ERP-1", "put-2", `{"hours": 2, "externalId": "ERP-1"}`)
	c.want(status, http.StatusOK, updated)
	wantFields(t, "PUT update", updated, map[string]any{"Nr": nr, "Hours": 2.0, "Name": "Chiller"})
	status, got := c.do("GET", "/v1/machines/by-externalId/ERP-1", "", "")
	c.want(status, http.StatusOK, got)
	wantFields(t, "GET by externalId", got, map[string]any{"Nr": nr, "Hours": 2.0})
	status, problem := c.do("GET", "/v1/machines/by-externalId/ERP-404", "", "")
	c.want(status, http.StatusNotFound, problem)

	// fields= and expand= on a read by the lookup key: the replaced machine
	// is found by the ExternalId the reference holds.
	status, successor := c.do("POST", "/v1/machines", "post-successor", `{"name": "Chiller II", "externalId": "ERP-9", "replacesExternalId": "ERP-1", "customerNr": "1001"}`)
	c.want(status, http.StatusCreated, successor)
	status, customer := c.do("GET", "/v1/customers/1001", "", "")
	c.want(status, http.StatusOK, customer)
	status, shaped := c.do("GET", "/v1/machines/by-externalId/ERP-9?fields=Name,Replaces.Name,Customer.Name&expand=Replaces,customer", "", "")
	c.want(status, http.StatusOK, shaped)
	if len(shaped) != 4 {
		t.Errorf("GET by externalId, shaped: %v; want Nr, Name, Replaces and Customer only", shaped)
	}
	wantFields(t, "GET by externalId, shaped", shaped, map[string]any{"Name": "Chiller II",
		"Replaces": map[string]any{"Nr": nr, "Name": "Chiller"}, "Customer": map[string]any{"Nr": "1001", "Name": str(t, customer["Name"])}})
	status, problem = c.do("GET", "/v1/machines/by-externalId/ERP-9?expand=Replaces.Customer", "", "")
	c.want(status, http.StatusBadRequest, problem)

	status, problem = c.do("PUT", "/v1/machines/by-externalId/ERP-1", "put-3", `{"externalId": "ERP-2"}`)
	c.want(status, http.StatusBadRequest, problem)
	wantFields(t, "PUT contradicting", problem, map[string]any{"title": "invalid_field"})

	status, problem = c.do("POST", "/v1/machines", "post-dup", `{"name": "Copy", "externalId": "ERP-1"}`)
	c.want(status, http.StatusConflict, problem)
	wantFields(t, "POST a taken externalId", problem, map[string]any{"title": "already_exists", "detail": "Machine ExternalId ERP-1 already exists"})
	status, other := c.do("POST", "/v1/machines", "post-other", `{"name": "Other"}`)
	c.want(status, http.StatusCreated, other)
	status, none := c.do("POST", "/v1/machines", "post-none", `{"name": "None", "externalId": ""}`)
	c.want(status, http.StatusCreated, none) // "" is no value: no collision with Other's
	status, problem = c.do("PATCH", "/v1/machines/"+str(t, other["Nr"]), "patch-dup", `{"externalId": "ERP-1"}`)
	c.want(status, http.StatusConflict, problem)
	wantFields(t, "PATCH to a taken externalId", problem, map[string]any{"title": "already_exists"})

	// A reference may name a machine by its lookup key.
	status, replacing := c.do("POST", "/v1/machines", "post-replacing", `{"name": "Chiller 2", "replacesExternalId": "ERP-1"}`)
	c.want(status, http.StatusCreated, replacing)
	status, problem = c.do("POST", "/v1/machines", "post-replacing-404", `{"name": "Chiller 3", "replacesExternalId": "ERP-404"}`)
	c.want(status, http.StatusUnprocessableEntity, problem)
	wantFields(t, "POST a reference to no ExternalId", problem, map[string]any{"detail": `Machine with ExternalId "ERP-404" does not exist`})

	const n = 16
	statuses := make(chan int, n)
	for i := range n {
		go func() {
			s, body := c.do("PUT", "/v1/machines/by-externalId/ERP-RACE", fmt.Sprintf("race-%d", i), fmt.Sprintf(`{"name": "Racer %d"}`, i))
			if s != http.StatusCreated && s != http.StatusOK {
				t.Errorf("parallel PUT: %d %v", s, body)
			}
			statuses <- s
		}()
	}
	createdCount := 0
	for range n {
		if <-statuses == http.StatusCreated {
			createdCount++
		}
	}
	if createdCount != 1 {
		t.Errorf("%d parallel PUTs of one new externalId created; want 1", createdCount)
	}
}

// start serves the generated API on SQLite with the demo data.
func start(t *testing.T) client {
	ctx := context.Background()
	cat, err := catalog.LoadDir(os.Getenv("FIELDGEN_CATALOG"))
	if err != nil {
		t.Fatal(err)
	}
	eng, err := reference.Open(ctx, "sqlite:"+filepath.Join(t.TempDir(), "test.db"), cat, reference.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	if err := eng.Migrate(ctx); err != nil {
		t.Fatal("migrate:", err)
	}
	if err := demo.Load(ctx, eng); err != nil {
		t.Fatal("demo data:", err)
	}
	key, hash, err := runtime.NewKey("codegen-test")
	if err != nil {
		t.Fatal(err)
	}
	err = eng.Keys().CreateKey(ctx, engine.Key{ClientID: "codegen-test", Company: "demo", Sign: "API", Scopes: []string{"*"}, SecretHash: hash, Created: time.Now()})
	if err != nil {
		t.Fatal("create key:", err)
	}
	srv := httptest.NewServer(runtime.NewServer(eng, runtime.Config{RateLimit: -1}, generated.API()))
	t.Cleanup(srv.Close)
	return client{t: t, base: srv.URL, key: key}
}

type client struct {
	t         *testing.T
	base, key string
}

// do sends one call and decodes its JSON body.
func (c client) do(method, path, idempotencyKey, body string) (int, map[string]any) {
	c.t.Helper()
	req, err := http.NewRequest(method, c.base+path, bytes.NewBufferString(body))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set(runtime.HeaderAuthorization, "Bearer "+c.key)
	if body != "" {
		req.Header.Set(runtime.HeaderContentType, "application/json")
	}
	if idempotencyKey != "" {
		req.Header.Set(runtime.HeaderIdempotencyKey, idempotencyKey)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(raw, &v); err != nil {
		c.t.Fatalf("%s %s: %d, body is not a JSON object: %s", method, path, resp.StatusCode, raw)
	}
	return resp.StatusCode, v
}

func (c client) want(got, want int, body map[string]any) {
	c.t.Helper()
	if got != want {
		c.t.Fatalf("status %d, want %d; body %v", got, want, body)
	}
}

// wantFields compares the named members of a JSON object.
func wantFields(t *testing.T, call string, got, want map[string]any) {
	t.Helper()
	for name, w := range want {
		g, _ := json.Marshal(got[name])
		wj, _ := json.Marshal(w)
		if !bytes.Equal(g, wj) {
			t.Errorf("%s: %s = %s, want %s", call, name, g, wj)
		}
	}
}

func str(t *testing.T, v any) string {
	t.Helper()
	s, ok := v.(string)
	if !ok {
		t.Fatalf("want a string, got %#v", v)
	}
	return s
}
