package apitest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"fieldapi/engine/reference"
	"fieldapi/runtime"
)

// TestMixedLoadNeverStalls: readers and writers at once never leave a call
// waiting on the database until it gives up. Under a fixed load (workers
// going round reads and writes of customers and tasks) every answer is a
// success: not one 503 engine_busy, which is how a stall ends.
//
// It is a concurrency test, not a timed one. The engine runs with a small
// pool and a short busy timeout, so a stall surfaces as engine_busy
// within the test; its clock moves on a few seconds at every reading, so
// each call finds the engine's short caches (permissions, extra-field
// definitions) expired and loads them again. That is when the stall of
// issue 20 happened on SQLite: a write transaction, holding the write
// lock, waited for a load shared with a reader, which waited for a pool
// connection, while every connection was held by a writer waiting for the
// lock.
func TestMixedLoadNeverStalls(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		var ticks atomic.Int64
		start := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
		clock := func() time.Time { return start.Add(time.Duration(ticks.Add(1)) * 3 * time.Second) }
		env := StartWith(t, b, runtime.Config{}, reference.Options{MaxOpenConns: 4, BusyTimeout: 500 * time.Millisecond, Now: clock})
		customer, ok := env.FirstKey("customers", env.Key)
		if !ok {
			t.Fatal("the demo data has no customer")
		}
		task, ok := env.FirstKey("tasks", env.Key)
		if !ok {
			t.Fatal("the demo data has no task")
		}

		const workers, rounds = 32, 24
		calls := []func(w, i int) (method, path string, body any){
			func(w, i int) (string, string, any) { return http.MethodGet, KeyPath("customers", customer), nil },
			func(w, i int) (string, string, any) {
				return http.MethodPost, "/v1/customers", map[string]any{"name": fmt.Sprintf("Mixed %d/%d", w, i)}
			},
			func(w, i int) (string, string, any) { return http.MethodGet, KeyPath("tasks", task), nil },
			func(w, i int) (string, string, any) {
				return http.MethodPatch, KeyPath("customers", customer), map[string]any{"phone": fmt.Sprintf("+46 %d %d", w, i)}
			},
			func(w, i int) (string, string, any) {
				return http.MethodGet, "/v1/tasks?limit=20&customerNr=" + customer, nil
			},
			func(w, i int) (string, string, any) {
				return http.MethodPatch, KeyPath("tasks", task), map[string]any{"taskNote": fmt.Sprintf("Mixed %d/%d", w, i)}
			},
		}
		var (
			mu       sync.Mutex
			statuses = map[int]int{}
			failures []string
			wg       sync.WaitGroup
		)
		for w := range workers {
			wg.Go(func() {
				for i := range rounds {
					method, path, body := calls[(w+i)%len(calls)](w, i)
					status, answer, err := send(env, method, path, body, fmt.Sprintf("mixed-%d-%d", w, i))
					mu.Lock()
					statuses[status]++
					if err != nil || status >= 300 {
						failures = append(failures, fmt.Sprintf("%s %s: %d %v %s", method, path, status, err, answer))
					}
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		t.Logf("%d calls by %d workers: statuses %v", workers*rounds, workers, statuses)
		if len(failures) > 0 {
			t.Fatalf("%d of %d calls failed under mixed load, the first: %s", len(failures), workers*rounds, failures[0])
		}
	})
}

// send is one call of a load test, safe to run on many goroutines (Env.Do
// fails the test from its own goroutine only): its status, its body and
// any transport error.
func send(env *Env, method, path string, body any, idempotencyKey string) (int, []byte, error) {
	var reader io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return 0, nil, err
		}
		reader = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, env.URL+path, reader)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set(runtime.HeaderAuthorization, "Bearer "+env.Key)
	if body != nil {
		req.Header.Set(runtime.HeaderContentType, "application/json")
		req.Header.Set(runtime.HeaderIdempotencyKey, idempotencyKey)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	return resp.StatusCode, answer, err
}
