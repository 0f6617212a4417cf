package main

import (
	"fmt"
	"net/http"
)

// batchTasks is how many task creates one post-batch call carries.
const batchTasks = 100

// batchScenario is issue 21's call: batchTasks task creates with the
// lines post-task sends, as one atomic POST /v1/batch. Its req/s times
// batchTasks is tasks per second, against post-task's one per call (run
// both with --concurrency 1 for the one-client comparison). The
// baseline serves no batches.
func batchScenario(d dataset, runID string, write func(*target, string, string, any, string) *http.Request, pick func([]string, int, int) string) scenario {
	return scenario{name: "post-batch", write: true, fieldapiOnly: true, request: func(t *target, w, i int) *http.Request {
		ops := make([]map[string]any, batchTasks)
		for j := range ops {
			ops[j] = map[string]any{"id": fmt.Sprintf("t%d", j), "method": "POST", "path": "/v1/tasks", "body": map[string]any{
				"customerNr": pick(d.customers, w, i*batchTasks+j), "taskText": "Benchmark batch",
				"materials": []map[string]any{{"productNr": d.products[0], "quantity": 1}, {"productNr": d.products[1], "quantity": 2}},
				"times":     []map[string]any{{"timeType": d.timeType, "hours": 1.5}}}}
		}
		return write(t, http.MethodPost, "/v1/batch", map[string]any{"atomic": true, "operations": ops},
			fmt.Sprintf("bench-%s-%s-batch-%d-%d", runID, t.name, w, i))
	}}
}
