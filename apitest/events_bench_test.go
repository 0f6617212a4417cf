package apitest

import (
	"fmt"
	"net/http"
	"testing"

	"fieldapi/engine/reference"
	"fieldapi/runtime"
)

// BenchmarkTaskCreateEvents is what recording the event costs a task
// create over HTTP (issue 13: at most 15% slower than without events):
// compare its events and noEvents runs, on SQLite and, when
// FIELDAPI_TEST_POSTGRES is set, PostgreSQL.
func BenchmarkTaskCreateEvents(b *testing.B) {
	for _, backend := range Backends(b) {
		for _, mode := range []struct {
			name     string
			noEvents bool
		}{{"events", false}, {"noEvents", true}} {
			b.Run(backend.Name+"/"+mode.name, func(b *testing.B) {
				env := StartWith(b, backend, runtime.Config{RateLimit: -1}, reference.Options{NoEvents: mode.noEvents})
				body := map[string]any{"customerNr": "1031", "taskText": "Bench", "status": "Sent",
					"materials": []any{map[string]any{"productNr": "4025", "quantity": 1}}}
				b.ResetTimer()
				for i := range b.N {
					resp := env.Do(Request{Method: http.MethodPost, Path: "/v1/tasks", Key: env.Key, Body: body,
						Headers: map[string]string{runtime.HeaderIdempotencyKey: fmt.Sprint("bench-", i)}})
					if resp.Status != http.StatusCreated {
						b.Fatalf("status %d: %s", resp.Status, resp.Body)
					}
				}
			})
		}
	}
}
