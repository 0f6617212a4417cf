package apitest

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"fieldapi/runtime"
)

// BenchmarkBatchVsSingle is issue 21's speed target: 100 task creates
// with 3 lines each, from one client, as one atomic batch against 100
// single calls, on every backend. It reports both times and their ratio
// (target: the batch at least 5× faster on SQLite and PostgreSQL).
func BenchmarkBatchVsSingle(b *testing.B) {
	const tasks = 100
	for _, backend := range Backends(b) {
		b.Run(backend.Name, func(b *testing.B) {
			env := Start(b, backend, runtime.Config{RateLimit: -1})
			body := func(i int) map[string]any {
				return map[string]any{"customerNr": "1031", "taskText": fmt.Sprintf("Batch bench %d", i),
					"materials": []any{map[string]any{"productNr": "4025", "quantity": 1}, map[string]any{"productNr": "4025", "quantity": 2}},
					"times":     []any{map[string]any{"timeType": "Resa, km/dag", "hours": 1.5}}}
			}
			ops := make([]map[string]any, tasks)
			for i := range ops {
				ops[i] = op(fmt.Sprintf("t%d", i), "POST", "/v1/tasks", body(i))
			}
			// Warm the caches and connections both ways first.
			Expect(b, env.postBatch(true, ops[:2]...), http.StatusOK)
			Expect(b, env.Post("/v1/tasks", body(0)), http.StatusCreated)
			var single, batch time.Duration
			b.ResetTimer()
			for range b.N {
				start := time.Now()
				for i := range tasks {
					resp := env.Do(Request{Method: "POST", Path: "/v1/tasks", Key: env.Key, Body: body(i), SkipResponseValidation: true, SkipRequestValidation: true})
					if resp.Status != http.StatusCreated {
						b.Fatalf("single create: %d %s", resp.Status, resp.Body)
					}
				}
				single += time.Since(start)
				start = time.Now()
				resp := env.Do(Request{Method: "POST", Path: "/v1/batch", Key: env.Key, Body: map[string]any{"atomic": true, "operations": ops},
					SkipResponseValidation: true, SkipRequestValidation: true})
				if resp.Status != http.StatusOK {
					b.Fatalf("batch: %d %.300s", resp.Status, resp.Body)
				}
				batch += time.Since(start)
			}
			b.ReportMetric(float64(single.Milliseconds())/float64(b.N), "ms-100-singles")
			b.ReportMetric(float64(batch.Milliseconds())/float64(b.N), "ms-batch-of-100")
			b.ReportMetric(float64(single)/float64(batch), "x-faster")
		})
	}
}
