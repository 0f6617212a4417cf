package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"sync"
	"time"
)

// expandPage is the page the expansion calls read: a page of 50 tasks,
// list-first's.
const expandPage = "/v1/tasks?limit=50"

// expandScenarios are issue 23's calls, fieldapi alone (the baseline
// serves no expand=), each from one client: the targets are about the
// latency a client sees, which a saturated server would hide behind its
// queue.
//
//   - list-unexpanded: the first page of 50 tasks (list-first's call).
//   - list-expanded: the same page with each task's customer expanded (its
//     lines are in the task's read shape): one call. Target: ≤ 1.5× the
//     latency (p50) of list-unexpanded.
//   - list-n-plus-1: what a client does without expand=: GET the page,
//     then for each task GET its customer and GET the task (its record
//     with its lines), one after the other: 1 + 2N calls, timed as one.
//     Target: list-expanded ≥ 10× faster (p50).
func expandScenarios(get func(*target, string) *http.Request) []scenario {
	plain := scenario{name: "list-unexpanded", fieldapiOnly: true, clients: 1, request: func(t *target, w, i int) *http.Request {
		return get(t, expandPage)
	}}
	expanded := scenario{name: "list-expanded", fieldapiOnly: true, clients: 1, request: func(t *target, w, i int) *http.Request {
		return get(t, expandPage+"&expand=Customer")
	}}
	var once sync.Once
	// The follow-up calls run in observe, which the load loop times with
	// the page's request: the latency is that of all 1 + 2N calls.
	follow := func(t *target, path string) {
		resp, err := client.Do(get(t, path))
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				err = fmt.Errorf("%s: %s", path, resp.Status)
			}
		}
		if err != nil {
			once.Do(func() { fmt.Fprintf(os.Stderr, "list-n-plus-1: %v\n", err) })
		}
	}
	nPlusOne := scenario{name: "list-n-plus-1", fieldapiOnly: true, clients: 1,
		request: func(t *target, w, i int) *http.Request { return get(t, expandPage) },
		observe: func(t *target, w, i int, status int, body []byte) {
			var page struct {
				Items []struct{ Nr, CustomerNr string }
			}
			if status != http.StatusOK || json.Unmarshal(body, &page) != nil {
				return
			}
			for _, task := range page.Items {
				follow(t, "/v1/customers/"+url.PathEscape(task.CustomerNr))
				follow(t, "/v1/tasks/"+url.PathEscape(task.Nr))
			}
		}}
	return []scenario{plain, expanded, nPlusOne}
}

// expandTargets checks issue 23's targets where the run measured them.
func (r report) expandTargets() []targetCheck {
	var out []targetCheck
	expanded, ok := r.pair("list-expanded")
	if !ok || expanded.fieldapi.p50 == 0 {
		return nil
	}
	p50 := func(p pair) time.Duration { return p.fieldapi.p50 }
	if plain, ok := r.pair("list-unexpanded"); ok {
		x := float64(p50(expanded)) / float64(max(p50(plain), 1))
		out = append(out, targetCheck{"page of 50 tasks with customer expanded ≤ 1.5× the page without (p50, one client)",
			fmt.Sprintf("%.2f× (%s vs %s)", x, ms(p50(expanded)), ms(p50(plain))), x <= 1.5})
	}
	if naive, ok := r.pair("list-n-plus-1"); ok {
		x := float64(p50(naive)) / float64(p50(expanded))
		out = append(out, targetCheck{"page of 50 tasks with customer expanded ≥ 10× faster than its 1 + 2N calls (p50, one client)",
			fmt.Sprintf("%.1f× (%s vs %s)", x, ms(p50(expanded)), ms(p50(naive))), x >= 10})
	}
	return out
}
