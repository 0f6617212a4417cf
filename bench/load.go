package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// scenario is one kind of call, built per request for one target.
type scenario struct {
	name  string
	write bool
	// fieldapiOnly: the baseline does not serve these calls (other
	// registers than tasks); the scenario runs on fieldapi alone.
	fieldapiOnly bool
	// clients, when set, replaces --concurrency for this call (issue 21
	// compares a batch with single calls from one client).
	clients int
	// request builds the i-th request of worker w for a target.
	request func(t *target, w, i int) *http.Request
	// observe, when set, sees each answer's body, for a scenario whose
	// next request depends on it (a cursor walk follows nextCursor).
	observe func(t *target, w, i int, status int, body []byte)
}

// target is a server under load.
type target struct {
	name     string // fieldapi or baseline
	url      string
	bearer   string
	pid      int
	baseline bool
}

// result is one scenario's figures on one target.
type result struct {
	scenario, target string
	clients          int // that drove it
	requests, errors int
	rps              float64
	p50, p99, max    time.Duration
	peakRSS          int64 // bytes, the process's peak while the scenario ran
	firstError       string
}

// client is shared by all workers; its pool keeps one connection per
// worker. It does not ask for gzip: fieldapi compresses answers for
// clients that do and the baseline never does, so both are measured on
// plain answers.
var client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1024, MaxConnsPerHost: 0, DisableCompression: true}, Timeout: 30 * time.Second}

// run drives the scenario on the target with a closed loop: each of
// clients workers sends its next request when the previous one answered.
// The first warmup of the run is not measured.
func run(sc scenario, t *target, clients int, warmup, duration time.Duration) result {
	var (
		stop     atomic.Bool
		measured atomic.Bool
		mu       sync.Mutex
		all      []time.Duration
		errs     int
		firstErr string
		wg       sync.WaitGroup
	)
	rss := watchRSS(t.pid)
	for w := range clients {
		wg.Go(func() {
			var lat []time.Duration
			var bad int
			var badText string
			for i := 0; !stop.Load(); i++ {
				req := sc.request(t, w, i)
				start := time.Now()
				resp, err := client.Do(req)
				ok := err == nil && resp.StatusCode < 300
				if err == nil {
					body, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					if sc.observe != nil {
						sc.observe(t, w, i, resp.StatusCode, body)
					}
					if !ok && badText == "" {
						badText = fmt.Sprintf("%s %s: %d %s", req.Method, req.URL.Path, resp.StatusCode, bytes.TrimSpace(body[:min(len(body), 300)]))
					}
				} else if badText == "" {
					badText = err.Error()
				}
				if !measured.Load() {
					continue
				}
				lat = append(lat, time.Since(start))
				if !ok {
					bad++
				}
			}
			mu.Lock()
			all = append(all, lat...)
			errs += bad
			if firstErr == "" {
				firstErr = badText
			}
			mu.Unlock()
		})
	}
	time.Sleep(warmup)
	rss.reset()
	measured.Store(true)
	began := time.Now()
	time.Sleep(duration)
	stop.Store(true)
	elapsed := time.Since(began)
	wg.Wait()
	r := result{scenario: sc.name, target: t.name, clients: clients, requests: len(all), errors: errs, peakRSS: rss.stop(), firstError: firstErr}
	if len(all) > 0 {
		slices.Sort(all)
		r.rps = float64(len(all)) / elapsed.Seconds()
		r.p50 = all[len(all)/2]
		r.p99 = all[len(all)*99/100]
		r.max = all[len(all)-1]
	}
	return r
}
