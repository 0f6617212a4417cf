package main

import (
	"fmt"
	"net/http"
)

// batchTasks is how many task creates one post-batch call carries.
const batchTasks = 100

// batchScenarios are issue 21's comparison, from one client: batchTasks
// task creates with 3 lines (post-task-3's body) as single calls
// (post-single), and as one atomic POST /v1/batch (post-batch) whose req/s
// times batchTasks is tasks per second. The baseline serves no batches.
func batchScenarios(d dataset, runID string, write func(*target, string, string, any, string) *http.Request, pick func([]string, int, int) string) []scenario {
	task := func(w, i int) map[string]any {
		return taskWithLines(pick(d.customers, w, i), "Benchmark batch", d.products, d.timeType, 3)
	}
	single := scenario{name: "post-single", write: true, fieldapiOnly: true, clients: 1, request: func(t *target, w, i int) *http.Request {
		return write(t, http.MethodPost, "/v1/tasks", task(w, i), fmt.Sprintf("bench-%s-%s-single-%d-%d", runID, t.name, w, i))
	}}
	batch := scenario{name: "post-batch", write: true, fieldapiOnly: true, clients: 1, request: func(t *target, w, i int) *http.Request {
		ops := make([]map[string]any, batchTasks)
		for j := range ops {
			ops[j] = map[string]any{"id": fmt.Sprintf("t%d", j), "method": "POST", "path": "/v1/tasks", "body": task(w, i*batchTasks+j)}
		}
		return write(t, http.MethodPost, "/v1/batch", map[string]any{"atomic": true, "operations": ops},
			fmt.Sprintf("bench-%s-%s-batch-%d-%d", runID, t.name, w, i))
	}}
	return []scenario{single, batch}
}
