package scaletest

import (
	"net/http"
	"sync"
	"testing"
	"time"

	"fieldapi/internal/dbtest"
)

// TestDatabaseFaults runs one serve process whose PostgreSQL connections
// go through a proxy, and takes the database away in the ways it can go:
// stopped, gone from the network, committing but answering late. The
// process must answer each with the right problem, stay up, and recover
// by itself; SIGTERM must still drain a call in flight.
func TestDatabaseFaults(t *testing.T) {
	t.Parallel()
	dsn := dbtest.Schema(t, postgresBase(t))
	initDemo(t, dsn)
	key := createKey(t, dsn, "fault-client")
	px := startProxy(t, dsn)
	const statementTimeout = time.Second
	srv := startServe(t, px.dsn(dsn), "--rate-limit", "0", "--max-open-conns", "4",
		"--statement-timeout", statementTimeout.String())

	health := call{method: http.MethodGet, path: "/health"}
	list := call{method: http.MethodGet, path: "/v1/customers?limit=5", bearer: key}
	srv.do(t, health).expect(t, http.StatusOK)
	srv.do(t, list).expect(t, http.StatusOK)

	// expectUnreachable checks a 503 engine_unreachable that says to retry
	// in a second and came within a second.
	expectUnreachable := func(t *testing.T, r reply) {
		t.Helper()
		r.expectProblem(t, http.StatusServiceUnavailable, "engine_unreachable")
		if ra := r.header.Get("Retry-After"); ra != "1" {
			t.Fatalf("Retry-After %q, want 1", ra)
		}
		if r.elapsed > time.Second {
			t.Fatalf("503 took %s, want at most 1s", r.elapsed)
		}
	}

	// A subtest that fails leaves the proxy as it found it, for the next.
	restore := func(t *testing.T) {
		t.Cleanup(func() {
			px.setMode(up)
			px.holdCommits(0)
		})
	}

	t.Run("database stopped: 503 at once, then recovery without restart", func(t *testing.T) {
		restore(t)
		px.setMode(down)
		idemKey := "outage-" + randomHex(8)
		name := "Outage " + randomHex(4)
		for range 5 { // every pooled connection is dead: none may answer other than 503
			expectUnreachable(t, srv.do(t, list))
		}
		expectUnreachable(t, srv.createCustomer(t, key, name, idemKey))
		r := srv.do(t, health)
		r.expect(t, http.StatusServiceUnavailable)
		var h struct{ Status, Engine string }
		r.decode(t, &h)
		if h.Engine != "unreachable" || r.header.Get("Retry-After") == "" {
			t.Fatalf("/health while the database is down: %s (Retry-After %q)", r.body, r.header.Get("Retry-After"))
		}

		px.setMode(up)
		took := eventually(t, 5*time.Second, "2xx after the database returned", func() bool {
			return srv.do(t, list).status == http.StatusOK
		})
		t.Logf("answering again %s after the database returned", took.Round(time.Millisecond))
		if srv.exited() {
			t.Fatalf("serve exited during the outage: %v", srv.err)
		}
		// The health probe clears its mark on its next ping, within a probe
		// interval of the first answer.
		eventually(t, 2*time.Second, "/health reachable after the database returned", func() bool {
			r := srv.do(t, health)
			if r.status != http.StatusOK {
				return false
			}
			r.decode(t, &h)
			return h.Engine == "reachable"
		})
		// The 503 write never ran, so its retry runs now, once (a 503 in
		// between is the same promise: not run, retry).
		eventually(t, 2*time.Second, "the retried write is answered", func() bool {
			r = srv.createCustomer(t, key, name, idemKey)
			return r.status != http.StatusServiceUnavailable
		})
		r.expect(t, http.StatusCreated)
		if got := r.header.Get("Idempotency-Replayed"); got != "false" {
			t.Fatalf("retry of the 503 write: Idempotency-Replayed %q, want false", got)
		}
		if n := len(srv.customersNamed(t, key, name)); n != 1 {
			t.Fatalf("%d customers named %q, want 1", n, name)
		}
	})

	t.Run("database host silent: connects time out, 503 within a second", func(t *testing.T) {
		restore(t)
		px.setMode(silent)
		for range 3 {
			r := srv.do(t, list)
			expectUnreachable(t, r)
			t.Logf("503 after %s", r.elapsed.Round(time.Millisecond))
		}
		px.setMode(up)
		eventually(t, 5*time.Second, "2xx after the database returned", func() bool {
			return srv.do(t, list).status == http.StatusOK
		})
	})

	t.Run("database answers nothing: marked unreachable within a second, then 503 at once", func(t *testing.T) {
		restore(t)
		srv.do(t, list).expect(t, http.StatusOK) // the pool holds live connections
		px.setMode(hung)
		wentSilent := time.Now()

		// A write that starts before the engine is marked waits on its
		// pooled connection; nothing reached the database, so it is a 503.
		writeDone := make(chan reply, 1)
		go func() {
			r, err := srv.try(call{method: http.MethodPost, path: "/v1/customers", bearer: key, body: map[string]string{"name": "Hung " + randomHex(4)}})
			if err != nil {
				r.status, r.body = -1, []byte(err.Error())
			}
			writeDone <- r
		}()

		// /health from every 50 ms on: the first 503 marks the detection
		// (calls that took a pooled connection end then too: see
		// TestSilentDatabase).
		detected := firstAnswer(srv, health, http.StatusServiceUnavailable, 1500*time.Millisecond, 50*time.Millisecond)
		if detected.IsZero() {
			t.Fatal("/health never answered 503 while the database answered nothing")
		}
		detectedAfter := detected.Sub(wentSilent)
		t.Logf("marked unreachable %s after the database went silent", detectedAfter.Round(time.Millisecond))
		if detectedAfter > time.Second {
			t.Fatalf("detection took %s, want under 1s", detectedAfter)
		}
		// New calls: 503 at once. One that tried a connection of its own
		// would have waited the engine's whole connect timeout (0.5 s).
		for range 5 {
			r := srv.do(t, list)
			expectUnreachable(t, r)
			if r.elapsed >= 500*time.Millisecond {
				t.Fatalf("a new call took %s to answer 503 once the engine was marked unreachable", r.elapsed)
			}
		}
		expectUnreachable(t, srv.createCustomer(t, key, "Hung "+randomHex(4), ""))
		w := <-writeDone
		if w.status != http.StatusServiceUnavailable {
			t.Fatalf("the write in flight when the database went silent: %d %s, want 503: nothing reached the database", w.status, w.body)
		}
		t.Logf("the write in flight answered 503 after %s", w.elapsed.Round(time.Millisecond))

		px.setMode(up)
		took := eventually(t, 5*time.Second, "2xx after the database answered again", func() bool {
			return srv.do(t, list).status == http.StatusOK
		})
		t.Logf("answering again %s after the database did", took.Round(time.Millisecond))
		srv.do(t, health).expect(t, http.StatusOK)
		if srv.exited() {
			t.Fatalf("serve exited: %v", srv.err)
		}
	})

	t.Run("commit answered past the deadline: 504, and the retry replays", func(t *testing.T) {
		restore(t)
		px.holdCommits(statementTimeout + time.Second)
		name, idemKey := "Late "+randomHex(4), "late-"+randomHex(8)
		r := srv.createCustomer(t, key, name, idemKey)
		px.holdCommits(0)
		r.expectProblem(t, http.StatusGatewayTimeout, "engine_timeout")
		if r.elapsed > statementTimeout+time.Second {
			t.Fatalf("504 took %s, want about the statement timeout %s", r.elapsed, statementTimeout)
		}
		t.Logf("504 after %s; the COMMIT had gone through", r.elapsed.Round(time.Millisecond))

		var first, again customer
		r = srv.createCustomer(t, key, name, idemKey).expect(t, http.StatusCreated)
		r.decode(t, &first)
		if got := r.header.Get("Idempotency-Replayed"); got != "true" {
			t.Fatalf("retry after the 504: Idempotency-Replayed %q, want true: the write had committed", got)
		}
		srv.createCustomer(t, key, name, idemKey).expect(t, http.StatusCreated).decode(t, &again)
		if got := srv.customersNamed(t, key, name); len(got) != 1 || got[0].Nr != first.Nr || again.Nr != first.Nr {
			t.Fatalf("customers named %q: %+v, replies %s and %s; want exactly one", name, got, first.Nr, again.Nr)
		}
	})

	t.Run("SIGTERM drains a call in flight", func(t *testing.T) {
		restore(t)
		px.holdCommits(300 * time.Millisecond) // keeps the create in flight, within the deadline
		name := "Drain " + randomHex(4)
		done := make(chan reply, 1)
		go func() {
			r, err := srv.try(call{method: http.MethodPost, path: "/v1/customers", bearer: key, body: map[string]string{"name": name}})
			if err != nil {
				r.status, r.body = -1, []byte(err.Error())
			}
			done <- r
		}()
		select {
		case <-px.held:
		case <-time.After(5 * time.Second):
			t.Fatal("the create never reached its COMMIT")
		}
		stopped := make(chan error, 1)
		go func() { stopped <- srv.stop(10 * time.Second) }()
		r := <-done
		r.expect(t, http.StatusCreated)
		if err := <-stopped; err != nil {
			t.Fatalf("serve exited with %v after SIGTERM, want 0", err)
		}
	})
}

// firstAnswer calls c every interval for the given time, each call on its
// own goroutine, and returns when the first reply with the status arrived
// (a zero time when none did). It waits for every call to end.
func firstAnswer(srv *server, c call, status int, during, interval time.Duration) time.Time {
	var (
		mu    sync.Mutex
		first time.Time
		wg    sync.WaitGroup
	)
	for end := time.Now().Add(during); time.Now().Before(end); time.Sleep(interval) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := srv.try(c)
			at := time.Now()
			if err != nil || r.status != status {
				return
			}
			mu.Lock()
			if first.IsZero() || at.Before(first) {
				first = at
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	return first
}
