package main

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// TestServeMemoryDemo: "serve --db memory: --demo" serves the whole API
// from memory with the demo data: the key it prints (and writes to
// --key-file) reads the demo company's tasks, and a task created with a
// status runs the engine's rules (the status applied through the
// transition table, the owner from the key's signature).
func TestServeMemoryDemo(t *testing.T) {
	is := is.New(t)
	keyFile := filepath.Join(t.TempDir(), "key")
	srv := startServe(t, "memory:", "--demo", "--key-file", keyFile)
	defer srv.stop()
	written, err := os.ReadFile(keyFile)
	is.NoErr(err)
	key := strings.TrimSpace(string(written))
	is.True(strings.HasPrefix(key, "mk_demo-cli_"))
	is.True(strings.Contains(srv.stdout.String(), key)) // printed too

	call := func(method, path, body string) (int, map[string]any) {
		t.Helper()
		req, err := http.NewRequest(method, "http://"+srv.addr.String()+path, strings.NewReader(body))
		is.NoErr(err)
		req.Header.Set("Authorization", "Bearer "+key)
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Idempotency-Key", "memory-demo-"+method)
		}
		resp, err := http.DefaultClient.Do(req)
		is.NoErr(err)
		defer resp.Body.Close()
		data, err := io.ReadAll(resp.Body)
		is.NoErr(err)
		var answer map[string]any
		is.NoErr(json.Unmarshal(data, &answer))
		return resp.StatusCode, answer
	}
	status, page := call(http.MethodGet, "/v1/tasks?limit=1", "")
	is.Equal(status, http.StatusOK)
	is.True(page["total"].(float64) > 10) // the demo company's tasks

	status, created := call(http.MethodPost, "/v1/tasks", `{"customerNr": "1001", "taskText": "Memory", "status": "Sent",
		"materials": [{"productNr": "4025", "quantity": 1}]}`)
	is.Equal(status, http.StatusCreated)
	is.Equal(created["status"], "Sent")
	status, task := call(http.MethodGet, "/v1/tasks/"+created["nr"].(string), "")
	is.Equal(status, http.StatusOK)
	is.Equal(task["OwnerSign"], "API")
	is.Equal(task["CustomerName"], "Bergström Fastigheter AB") // the lookup from the customer
	materials := task["Materials"].([]any)
	is.Equal(len(materials), 1)
	is.True(materials[0].(map[string]any)["Price"].(float64) > 0) // priced from the product
}

// TestMemoryNeedsServeDemo: the memory database is refused where nothing
// could reach it, and serve refuses --demo on a real database.
func TestMemoryNeedsServeDemo(t *testing.T) {
	is := is.New(t)
	for _, args := range [][]string{
		{"init", "--db", "memory:"},
		{"keys", "list", "--db", "memory:"},
		{"seed", "--db", "memory:", "--tasks", "1"},
	} {
		r := runCLI(t, nil, args...)
		is.Equal(r.code, exitError)
		is.True(strings.Contains(r.stderr, "fieldapi serve --db memory: --demo")) // the way that works
	}
	r := runCLI(t, nil, "serve", "--db", "memory:")
	is.Equal(r.code, exitError)
	is.True(strings.Contains(r.stderr, "add --demo"))
	r = runCLI(t, nil, "serve", "--db", "sqlite:"+filepath.Join(t.TempDir(), "x.db"), "--demo")
	is.Equal(r.code, exitError)
	is.True(strings.Contains(r.stderr, "init --db"))
}
