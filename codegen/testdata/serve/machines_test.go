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
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"fieldapi/catalog"
	"fieldapi/engine"
	"fieldapi/engine/demo"
	"fieldapi/engine/reference"
	"fieldapi/runtime"

	"fieldgentest/generated"
	"fieldgentest/internal/dbtest"
)

// TestMachinesOverHTTP drives the generated machines register on every
// store: create, read, change one field, list, read its change log, and
// the strict decoders of its shapes.
func TestMachinesOverHTTP(t *testing.T) { eachStore(t, machinesOverHTTP) }

func machinesOverHTTP(t *testing.T, c client) {
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

// TestMachinesByLookupKey drives a lookup key the YAML declares
// (ExternalId) on every store: PUT by it creates, then updates; GET by it
// reads; a taken value is refused (TestMachinesLookupKeyTaken has every
// route); records without one do not collide; parallel PUTs of one new
// value make one machine.
func TestMachinesByLookupKey(t *testing.T) { eachStore(t, machinesByLookupKey) }

func machinesByLookupKey(t *testing.T, c client) {
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

// TestMachinesBatchReadsAheadByLookupKey: an atomic batch reads ahead
// the machines its operations name by ExternalId; a PATCH in it that
// gives a machine an ExternalId makes that lookup read again, so a later
// operation naming the new value finds the machine (read ahead, no
// machine had it), on every store.
func TestMachinesBatchReadsAheadByLookupKey(t *testing.T) {
	eachStore(t, machinesBatchReadsAheadByLookupKey)
}

func machinesBatchReadsAheadByLookupKey(t *testing.T, c client) {
	status, old := c.do("POST", "/v1/machines", "ahead-old", `{"name": "Boiler", "externalId": "AHEAD-1"}`)
	c.want(status, http.StatusCreated, old)
	resp := c.send("POST", "/v1/batch", "ahead-batch", fmt.Sprintf(`{"atomic": true, "operations": [
		{"id": "rename", "method": "PATCH", "path": "/v1/machines/%s", "body": {"externalId": "AHEAD-2"}},
		{"id": "successor", "method": "POST", "path": "/v1/machines", "body": {"name": "Boiler II", "replacesExternalId": "AHEAD-2"}}]}`, str(t, old["Nr"])))
	c.want(resp.status, http.StatusOK, resp.body)
	results, _ := resp.body["results"].([]any)
	if len(results) != 2 {
		t.Fatalf("atomic batch: %v, want two results", resp.body)
	}
	successor, _ := results[1].(map[string]any)["body"].(map[string]any)
	status, got := c.do("GET", "/v1/machines/"+str(t, successor["Nr"]), "", "")
	c.want(status, http.StatusOK, got)
	wantFields(t, "the successor", got, map[string]any{"ReplacesExternalId": "AHEAD-2"})
}

// TestMachinesLookupKeyTaken: a value of a lookup key another machine
// holds is refused through every route that writes one — POST, PATCH, PUT
// by number (creating and updating), PUT by either lookup key (creating
// and updating), a batch — with 409 already_exists naming the field,
// never a 500, and nothing stored changes, on every store.
func TestMachinesLookupKeyTaken(t *testing.T) { eachStore(t, machinesLookupKeyTaken) }

func machinesLookupKeyTaken(t *testing.T, c client) {
	status, a := c.do("POST", "/v1/machines", "", `{"name": "A", "externalId": "EXT-A", "assetTag": "TAG-A"}`)
	c.want(status, http.StatusCreated, a)
	status, b := c.do("POST", "/v1/machines", "", `{"name": "B", "externalId": "EXT-B", "assetTag": "TAG-B", "hours": 1}`)
	c.want(status, http.StatusCreated, b)
	aNr, bNr := str(t, a["Nr"]), str(t, b["Nr"])
	before := c.stored()

	for _, w := range []struct {
		name, method, path, body, field, value string
	}{
		{"POST", "POST", "/v1/machines", `{"name": "C", "externalId": "EXT-A"}`, "ExternalId", "EXT-A"},
		{"POST, the second key", "POST", "/v1/machines", `{"name": "C", "externalId": "EXT-C", "assetTag": "TAG-B"}`, "AssetTag", "TAG-B"},
		{"PATCH", "PATCH", "/v1/machines/" + bNr, `{"externalId": "EXT-A"}`, "ExternalId", "EXT-A"},
		{"PATCH with another change", "PATCH", "/v1/machines/" + bNr, `{"hours": 5, "assetTag": "TAG-A"}`, "AssetTag", "TAG-A"},
		{"PUT by number, creating", "PUT", "/v1/machines/M-NEW", `{"name": "C", "externalId": "EXT-A"}`, "ExternalId", "EXT-A"},
		{"PUT by number, updating", "PUT", "/v1/machines/" + bNr, `{"hours": 5, "externalId": "EXT-A"}`, "ExternalId", "EXT-A"},
		{"PUT by lookup key, creating", "PUT", "/v1/machines/by-externalId/EXT-NEW", `{"name": "C", "assetTag": "TAG-A"}`, "AssetTag", "TAG-A"},
		{"PUT by lookup key, updating", "PUT", "/v1/machines/by-externalId/EXT-B", `{"hours": 5, "assetTag": "TAG-A"}`, "AssetTag", "TAG-A"},
		{"PUT by the other lookup key, creating", "PUT", "/v1/machines/by-assetTag/TAG-NEW", `{"name": "C", "externalId": "EXT-B"}`, "ExternalId", "EXT-B"},
		{"PUT by the other lookup key, updating", "PUT", "/v1/machines/by-assetTag/TAG-A", `{"externalId": "EXT-B"}`, "ExternalId", "EXT-B"},
	} {
		resp := c.send(w.method, w.path, "", w.body)
		c.wantTaken(w.name, resp, w.field, w.value)
		if after := c.stored(); after != before {
			t.Errorf("%s: a refused write changed what is stored:\nbefore %s\nafter  %s", w.name, before, after)
		}
	}
	for _, path := range []string{"/v1/machines/M-NEW", "/v1/machines/by-externalId/EXT-NEW", "/v1/machines/by-assetTag/TAG-NEW", "/v1/machines/by-externalId/EXT-C"} {
		if status, body := c.do("GET", path, "", ""); status != http.StatusNotFound {
			t.Errorf("GET %s after its refused create: %d %v, want 404", path, status, body)
		}
	}

	// A batch answers each operation as its single call: an independent
	// one refuses the operation and runs the rest; an atomic one refuses
	// itself whole, naming the operation, and writes nothing.
	resp := c.send("POST", "/v1/batch", "", fmt.Sprintf(`{"atomic": false, "operations": [
		{"id": "dup", "method": "POST", "path": "/v1/machines", "body": {"name": "C", "externalId": "EXT-A"}},
		{"id": "patch", "method": "PATCH", "path": "/v1/machines/%s", "body": {"hours": 7}}]}`, aNr))
	c.want(resp.status, http.StatusOK, resp.body)
	results, _ := resp.body["results"].([]any)
	if len(results) != 2 {
		t.Fatalf("independent batch: %v, want two results", resp.body)
	}
	dup, _ := results[0].(map[string]any)
	problem, _ := dup["problem"].(map[string]any)
	if dup["status"] != 409.0 || problem["title"] != "already_exists" || !strings.Contains(fmt.Sprint(problem["detail"]), "ExternalId") {
		t.Errorf("independent batch, POST of a taken externalId: %v, want 409 already_exists naming ExternalId", dup)
	}
	if patch, _ := results[1].(map[string]any); patch["status"] != 200.0 {
		t.Errorf("independent batch: the PATCH after the refused POST answered %v, want 200", patch)
	}
	status, a = c.do("GET", "/v1/machines/"+aNr, "", "")
	c.want(status, http.StatusOK, a)
	wantFields(t, "after the independent batch", a, map[string]any{"Hours": 7.0, "ExternalId": "EXT-A"})

	before = c.stored()
	resp = c.send("POST", "/v1/batch", "", `{"atomic": true, "operations": [
		{"id": "first", "method": "PUT", "path": "/v1/machines/by-externalId/EXT-D", "body": {"name": "D", "assetTag": "TAG-D"}},
		{"id": "second", "method": "POST", "path": "/v1/machines", "body": {"name": "E", "assetTag": "TAG-D"}}]}`)
	c.wantTaken("atomic batch", resp, "AssetTag", "TAG-D")
	if resp.body["id"] != "second" {
		t.Errorf("atomic batch: the problem names operation %v, want second", resp.body["id"])
	}
	if after := c.stored(); after != before {
		t.Errorf("atomic batch: a refused batch changed what is stored:\nbefore %s\nafter  %s", before, after)
	}

	// What was refused is free once its holder lets it go.
	status, b = c.do("PATCH", "/v1/machines/"+bNr, "", `{"externalId": "", "assetTag": "TAG-B2"}`)
	c.want(status, http.StatusOK, b)
	status, a = c.do("PUT", "/v1/machines/by-assetTag/TAG-A", "", `{"externalId": "EXT-B"}`)
	c.want(status, http.StatusOK, a)
	wantFields(t, "PUT the value let go", a, map[string]any{"Nr": aNr, "ExternalId": "EXT-B"})
}

// TestMachinesLookupKeyRace: parallel writes that each give a lookup-key
// value no machine holds yet — creates by POST, creates by PUT by number,
// changes of different machines by PATCH — leave exactly one machine with
// it; the one write that got it answers 201 or 200 and every other 409
// already_exists (the unique index catches what the check before the
// write cannot see), never a 500, on every store.
func TestMachinesLookupKeyRace(t *testing.T) { eachStore(t, machinesLookupKeyRace) }

func machinesLookupKeyRace(t *testing.T, c client) {
	const n = 12
	var others []string // machines the PATCHes change, none with a value
	for i := range n {
		status, m := c.do("POST", "/v1/machines", "", fmt.Sprintf(`{"name": "Patched %d"}`, i))
		c.want(status, http.StatusCreated, m)
		others = append(others, str(t, m["Nr"]))
	}
	for _, race := range []struct {
		name, value string
		write       func(i int) (method, path, body string)
		success     int // the status of the one write that gets the value
	}{
		{"POST", "EXT-RACE-POST", func(i int) (string, string, string) {
			return "POST", "/v1/machines", fmt.Sprintf(`{"name": "Racer %d", "externalId": "EXT-RACE-POST"}`, i)
		}, http.StatusCreated},
		{"PUT by number", "EXT-RACE-PUT", func(i int) (string, string, string) {
			return "PUT", fmt.Sprintf("/v1/machines/RACE-%d", i), fmt.Sprintf(`{"name": "Racer %d", "externalId": "EXT-RACE-PUT"}`, i)
		}, http.StatusCreated},
		{"PATCH", "EXT-RACE-PATCH", func(i int) (string, string, string) {
			return "PATCH", "/v1/machines/" + others[i], `{"externalId": "EXT-RACE-PATCH"}`
		}, http.StatusOK},
	} {
		answers := make(chan response, n)
		for i := range n {
			go func() {
				method, path, body := race.write(i)
				answers <- c.send(method, path, "", body)
			}()
		}
		won := 0
		for range n {
			resp := <-answers
			switch resp.status {
			case race.success:
				won++
			case http.StatusConflict:
				// exact whether the check or the unique index refused it:
				// the store names the index, so the detail names its field
				c.wantTaken(race.name+" in parallel", resp, "ExternalId", race.value)
			default:
				t.Errorf("%s in parallel: %d %v, want %d or 409", race.name, resp.status, resp.body, race.success)
			}
		}
		if won != 1 {
			t.Errorf("%s in parallel: %d of %d writes of one new externalId succeeded, want 1", race.name, won, n)
		}
		holders := 0
		for _, m := range c.machines() {
			if m["ExternalId"] == race.value {
				holders++
			}
		}
		if holders != 1 {
			t.Errorf("%s in parallel: %d machines have externalId %s, want 1", race.name, holders, race.value)
		}
	}
}

// eachStore runs fn as a subtest on the memory store, on SQLite and, when
// FIELDAPI_TEST_POSTGRES names a server, on PostgreSQL, each a fresh
// database with the demo data served over HTTP.
func eachStore(t *testing.T, fn func(t *testing.T, c client)) {
	stores := []struct {
		name string
		dsn  func(t *testing.T) string
	}{
		{"memory", func(*testing.T) string { return reference.MemoryDSN }},
		{"sqlite", func(t *testing.T) string { return dbtest.SQLite(t) }},
		{"postgres", func(t *testing.T) string {
			pg := os.Getenv(dbtest.PostgresEnv)
			if pg == "" {
				t.Skipf("%s is not set: not run on PostgreSQL", dbtest.PostgresEnv)
			}
			return dbtest.Schema(t, pg)
		}},
	}
	for _, s := range stores {
		t.Run(s.name, func(t *testing.T) { fn(t, start(t, s.dsn(t))) })
	}
}

// start serves the generated API on a fresh database with the demo data.
func start(t *testing.T, dsn string) client {
	ctx := context.Background()
	cat, err := catalog.LoadDir(os.Getenv("FIELDGEN_CATALOG"))
	if err != nil {
		t.Fatal(err)
	}
	if cat.Register("machines") == nil {
		t.Fatal("the catalog has no machines register")
	}
	eng, err := reference.Open(ctx, dsn, cat, reference.Options{})
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

// response is an answer: its status, its Content-Type and its JSON body.
type response struct {
	status      int
	contentType string
	body        map[string]any
}

// do sends one call and decodes its JSON body.
func (c client) do(method, path, idempotencyKey, body string) (int, map[string]any) {
	c.t.Helper()
	resp := c.send(method, path, idempotencyKey, body)
	return resp.status, resp.body
}

// send sends one call (a write without an Idempotency-Key gets a fresh
// one) and decodes its JSON body. It is safe to call from goroutines.
func (c client) send(method, path, idempotencyKey, body string) response {
	c.t.Helper()
	req, err := http.NewRequest(method, c.base+path, bytes.NewBufferString(body))
	if err != nil {
		c.t.Error(err)
		return response{}
	}
	req.Header.Set(runtime.HeaderAuthorization, "Bearer "+c.key)
	if body != "" {
		req.Header.Set(runtime.HeaderContentType, "application/json")
	}
	if idempotencyKey == "" && method != http.MethodGet {
		idempotencyKey = fmt.Sprintf("test-%d", idempotencyKeys.Add(1))
	}
	if idempotencyKey != "" {
		req.Header.Set(runtime.HeaderIdempotencyKey, idempotencyKey)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Error(err)
		return response{}
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Error(err)
		return response{}
	}
	var v map[string]any
	if err := json.Unmarshal(raw, &v); err != nil {
		c.t.Errorf("%s %s: %d, body is not a JSON object: %s", method, path, resp.StatusCode, raw)
	}
	return response{status: resp.StatusCode, contentType: resp.Header.Get(runtime.HeaderContentType), body: v}
}

// idempotencyKeys numbers the Idempotency-Keys send makes.
var idempotencyKeys atomic.Int64

// wantTaken checks an answer is the refusal of a lookup-key value another
// record holds: 409, an RFC 9457 problem of type already_exists whose
// detail names the field and, unless value is "", is exactly the
// engine's refusal of that value (a write that lost a race to the unique
// index gets one naming every unique field: the store does not say which
// it was).
func (c client) wantTaken(call string, resp response, field, value string) {
	c.t.Helper()
	p := resp.body
	detail := fmt.Sprint(p["detail"])
	switch {
	case resp.status != http.StatusConflict:
		c.t.Errorf("%s: %d %v, want 409 already_exists", call, resp.status, p)
	case resp.contentType != "application/problem+json":
		c.t.Errorf("%s: Content-Type %q, want application/problem+json", call, resp.contentType)
	case p["title"] != "already_exists" || p["status"] != 409.0 || !strings.HasSuffix(fmt.Sprint(p["type"]), "/already_exists"):
		c.t.Errorf("%s: problem %v, want title already_exists, status 409 and its type", call, p)
	case !strings.Contains(detail, field):
		c.t.Errorf("%s: detail %q does not name %s", call, detail, field)
	case value != "" && !strings.HasSuffix(detail, fmt.Sprintf("Machine %s %s already exists", field, value)):
		c.t.Errorf("%s: detail %q, want Machine %s %s already exists", call, detail, field, value)
	}
}

// machines are every machine of the company, as the list reads them.
func (c client) machines() []map[string]any {
	c.t.Helper()
	status, list := c.do("GET", "/v1/machines?limit=500", "", "")
	c.want(status, http.StatusOK, list)
	items, _ := list["items"].([]any)
	if list["total"] != float64(len(items)) {
		c.t.Fatalf("GET /v1/machines: %d items of total %v; want them all on one page", len(items), list["total"])
	}
	var out []map[string]any
	for _, item := range items {
		out = append(out, item.(map[string]any))
	}
	return out
}

// stored is what a refused write must leave as it was: every machine as
// the list reads it (its values and when it was modified) and the length
// of its change log.
func (c client) stored() string {
	c.t.Helper()
	var state []any
	for _, m := range c.machines() {
		status, changes := c.do("GET", "/v1/machines/"+str(c.t, m["Nr"])+"/changes", "", "")
		c.want(status, http.StatusOK, changes)
		state = append(state, m, changes["count"])
	}
	data, err := json.Marshal(state)
	if err != nil {
		c.t.Fatal(err)
	}
	return string(data)
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
