package scaletest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"fieldapi/internal/dbtest"
)

// TestSilentDatabase: PostgreSQL's host goes silent (the proxy keeps
// every connection open and forwards nothing) under a load of reads, with
// the default 30 s statement timeout. Every read, including those whose
// statements were out on pooled connections when it went silent and one
// whose key had to be looked up, answers within about a second with 503
// and Retry-After, never 504 (a read cannot have written); a write
// answers within the same second too. Once the database answers again,
// calls succeed without a restart.
func TestSilentDatabase(t *testing.T) {
	t.Parallel()
	dsn := dbtest.Schema(t, postgresBase(t))
	initDemo(t, dsn)
	key := createKey(t, dsn, "silent-client")
	px := startProxy(t, dsn)
	srv := startServe(t, px.dsn(dsn), "--rate-limit", "0") // the default statement timeout, 30 s

	var page struct{ Items []customer }
	srv.do(t, call{method: http.MethodGet, path: "/v1/customers?limit=1", bearer: key}).expect(t, http.StatusOK).decode(t, &page)
	if len(page.Items) == 0 {
		t.Fatal("the demo company has no customers")
	}
	reads := []string{"/v1/customers?limit=5", "/v1/customers/" + page.Items[0].Nr, "/v1/tasks?limit=5", "/v1/products?limit=3"}
	for _, path := range reads {
		srv.do(t, call{method: http.MethodGet, path: path, bearer: key}).expect(t, http.StatusOK)
	}
	// A key not looked up yet: its first call reads it from the database.
	freshKey := createKey(t, dsn, "silent-fresh")

	type outcome struct {
		what         string
		start, end   time.Time
		status       int
		problem      string
		retryAfter   string
		transportErr error
	}
	var (
		mu       sync.Mutex
		outcomes []outcome
		answered int // 200s before the database goes silent
	)
	record := func(what string, c call) {
		start := time.Now()
		r, err := srv.try(c)
		o := outcome{what: what, start: start, end: time.Now(), status: r.status, retryAfter: r.header.Get("Retry-After"), transportErr: err}
		if err == nil && r.status >= 400 {
			var p problem
			if json.Unmarshal(r.body, &p) == nil {
				o.problem = p.Title
			}
		}
		mu.Lock()
		outcomes = append(outcomes, o)
		if r.status == http.StatusOK {
			answered++
		}
		mu.Unlock()
	}

	// Four clients read in a loop, a fifth writes, until 3 s after the
	// database went silent.
	var (
		stopAt time.Time
		stopMu sync.Mutex
		wg     sync.WaitGroup
	)
	running := func() bool {
		stopMu.Lock()
		defer stopMu.Unlock()
		return stopAt.IsZero() || time.Now().Before(stopAt)
	}
	stop := func(at time.Time) {
		stopMu.Lock()
		stopAt = at
		stopMu.Unlock()
	}
	for w := range 4 {
		wg.Go(func() {
			for i := w; running(); i++ {
				record("GET "+reads[i%len(reads)], call{method: http.MethodGet, path: reads[i%len(reads)], bearer: key})
				time.Sleep(10 * time.Millisecond) // pace: a 503 comes back at once
			}
		})
	}
	wg.Go(func() {
		for running() {
			record("POST /v1/customers", call{method: http.MethodPost, path: "/v1/customers", bearer: key,
				body: map[string]string{"name": "Silent " + randomHex(4)}})
			time.Sleep(10 * time.Millisecond)
		}
	})
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		n := answered
		mu.Unlock()
		if n >= 40 {
			break
		}
		if time.Now().After(deadline) {
			stop(time.Now())
			wg.Wait()
			t.Fatalf("only %d reads answered within 10 s before the database went silent", n)
		}
		time.Sleep(10 * time.Millisecond)
	}

	px.setMode(hung)
	silent := time.Now()
	stop(silent.Add(3 * time.Second))
	wg.Go(func() {
		record("GET with a key not looked up yet", call{method: http.MethodGet, path: reads[0], bearer: freshKey})
	})
	wg.Wait()

	// Every call that ended after the database went silent.
	var (
		readTimes []time.Duration
		statuses  = map[string]int{}
		slowest   outcome
	)
	for _, o := range outcomes {
		if o.end.Before(silent) {
			continue
		}
		took := o.end.Sub(o.start)
		write := strings.HasPrefix(o.what, "POST")
		statuses[strings.TrimSpace(fmt.Sprintf("%s %d %s", strings.Fields(o.what)[0], o.status, o.problem))]++
		if !write {
			readTimes = append(readTimes, took)
		}
		if took > slowest.end.Sub(slowest.start) {
			slowest = o
		}
		switch {
		case o.transportErr != nil:
			t.Errorf("%s (started %s after the database went silent): %v", o.what, o.start.Sub(silent).Round(time.Millisecond), o.transportErr)
			continue
		case took > 2*time.Second: // about a second, with a margin for a loaded machine
			t.Errorf("%s (started %s after the database went silent) answered %d after %s; want within about a second",
				o.what, o.start.Sub(silent).Round(time.Millisecond), o.status, took.Round(time.Millisecond))
		}
		switch {
		case o.start.Before(silent) && (o.status == http.StatusOK || o.status == http.StatusCreated):
			// answered as the database went silent
		case write && o.status == http.StatusGatewayTimeout && o.problem == "engine_timeout":
			// its COMMIT was out: it may have written
		case o.status == http.StatusServiceUnavailable && slices.Contains([]string{"engine_unreachable", "engine_busy"}, o.problem):
			if o.retryAfter == "" {
				t.Errorf("%s: 503 %s without Retry-After", o.what, o.problem)
			}
		default:
			want := "503 with Retry-After"
			if write {
				want += " or 504 engine_timeout"
			}
			t.Errorf("%s (started %s after the database went silent): %d %s; want %s",
				o.what, o.start.Sub(silent).Round(time.Millisecond), o.status, o.problem, want)
		}
	}
	slices.Sort(readTimes)
	if len(readTimes) == 0 {
		t.Fatal("no read ran while the database was silent")
	}
	over := 0
	for _, d := range readTimes {
		if d > time.Second {
			over++
		}
	}
	t.Logf("%d reads while silent: p50 %s, p90 %s, slowest %s; %d over 1 s",
		len(readTimes), readTimes[len(readTimes)/2].Round(10*time.Microsecond), readTimes[len(readTimes)*9/10].Round(10*time.Microsecond),
		readTimes[len(readTimes)-1].Round(time.Millisecond), over)
	if i := slices.IndexFunc(readTimes, func(d time.Duration) bool { return d > 100*time.Millisecond }); i >= 0 {
		t.Logf("%d reads had their statements out or started before the database was marked: they answered after %s to %s",
			len(readTimes)-i, readTimes[i].Round(time.Millisecond), readTimes[len(readTimes)-1].Round(time.Millisecond))
	}
	t.Logf("slowest call: %s, started %s after the database went silent, answered %d %s after %s", slowest.what,
		slowest.start.Sub(silent).Round(time.Millisecond), slowest.status, slowest.problem, slowest.end.Sub(slowest.start).Round(time.Millisecond))
	t.Logf("answers: %v", statuses)

	px.setMode(up)
	took := eventually(t, 5*time.Second, "reads answer again after the database did", func() bool {
		return srv.do(t, call{method: http.MethodGet, path: reads[0], bearer: key}).status == http.StatusOK &&
			srv.do(t, call{method: http.MethodGet, path: reads[2], bearer: freshKey}).status == http.StatusOK
	})
	t.Logf("answering again %s after the database did", took.Round(time.Millisecond))
	srv.createCustomer(t, key, "After silence "+randomHex(4), "").expect(t, http.StatusCreated)
	if srv.exited() {
		t.Fatalf("serve exited: %v", srv.err)
	}
}
