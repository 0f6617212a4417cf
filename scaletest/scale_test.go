package scaletest

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"fieldapi/internal/dbtest"
)

// Each serve process gets a small pool: the test runs beside other
// packages' tests on one PostgreSQL, and creates queue on the company's
// number series row anyway.
const poolPerProcess = "4"

// TestTwoProcessesShareOneDatabase runs two serve processes on one schema
// and checks that what must be shared is: number series, Idempotency-Keys,
// tokens and key revocation.
func TestTwoProcessesShareOneDatabase(t *testing.T) {
	t.Parallel()
	dsn := patient(t, dbtest.Schema(t, postgresBase(t)))
	initDemo(t, dsn)
	const clientID = "scale-client"
	key := createKey(t, dsn, clientID)
	flags := []string{"--rate-limit", "0", "--max-open-conns", poolPerProcess}
	servers := []*server{startServe(t, dsn, flags...), startServe(t, dsn, flags...)}
	a, b := servers[0], servers[1]

	t.Run("parallel creates take unique gap-free numbers", func(t *testing.T) {
		var first customer
		a.createCustomer(t, key, "Scale first", "").expect(t, http.StatusCreated).decode(t, &first)
		start, err := strconv.Atoi(first.Nr)
		if err != nil {
			t.Fatalf("customer number %q is not numeric", first.Nr)
		}

		const n = 200
		nrs := make([]int, n)
		errs := make([]error, n)
		began := time.Now()
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				r, err := servers[i%2].try(call{method: http.MethodPost, path: "/v1/customers", bearer: key,
					body: map[string]string{"name": fmt.Sprintf("Scale %03d", i)}})
				if err == nil && r.status != http.StatusCreated {
					err = fmt.Errorf("status %d: %s", r.status, r.body)
				}
				var c customer
				if err == nil {
					err = jsonInto(r.body, &c)
				}
				if err == nil {
					nrs[i], err = strconv.Atoi(c.Nr)
				}
				errs[i] = err
			})
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("create %d (on server %d): %v", i, i%2, err)
			}
		}
		slices.Sort(nrs)
		for i, nr := range nrs {
			if want := start + 1 + i; nr != want {
				t.Fatalf("numbers after %d: position %d has %d, want %d (duplicate or gap); all: %v", start, i, nr, want, nrs)
			}
		}
		t.Logf("%d creates over 2 processes: numbers %d..%d, unique and gap-free, in %s", n, nrs[0], nrs[n-1], time.Since(began).Round(time.Millisecond))
	})

	t.Run("one Idempotency-Key sent to both processes at once runs once", func(t *testing.T) {
		const n = 50
		name, idemKey := "Once "+randomHex(4), "once-"+randomHex(8)
		replies := make([]reply, n)
		errs := make([]error, n)
		gate := make(chan struct{})
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				<-gate // release all at once
				replies[i], errs[i] = servers[i%2].try(call{method: http.MethodPost, path: "/v1/customers", bearer: key,
					body: map[string]string{"name": name}, idemKey: idemKey})
			})
		}
		close(gate)
		wg.Wait()

		ran := 0
		var nr string
		for i, r := range replies {
			if errs[i] != nil {
				t.Fatalf("request %d: %v", i, errs[i])
			}
			r.expect(t, http.StatusCreated)
			var c customer
			r.decode(t, &c)
			if nr == "" {
				nr = c.Nr
			}
			if c.Nr != nr {
				t.Fatalf("request %d answered customer %s, another answered %s", i, c.Nr, nr)
			}
			if r.header.Get("Idempotency-Replayed") == "false" {
				ran++
			}
		}
		if ran != 1 {
			t.Fatalf("%d of %d responses say the call ran now (Idempotency-Replayed: false), want 1", ran, n)
		}
		if got := a.customersNamed(t, key, name); len(got) != 1 {
			t.Fatalf("%d customers named %q, want 1: %+v", len(got), name, got)
		}
		t.Logf("%d identical requests over 2 processes: one customer (%s), 1 ran, %d replayed", n, nr, n-1)
	})

	for _, atomic := range []bool{true, false} {
		t.Run(fmt.Sprintf("one batch sent 200 times to both processes at once writes once (atomic=%v)", atomic), func(t *testing.T) {
			const n = 200
			name, idemKey := "Batch Once "+randomHex(4), "batch-once-"+randomHex(8)
			body := map[string]any{"atomic": atomic, "operations": []any{
				map[string]any{"id": "c1", "method": "POST", "path": "/v1/customers", "body": map[string]any{"name": name}},
				map[string]any{"id": "t1", "method": "POST", "path": "/v1/tasks", "body": map[string]any{"customerNr": "@{c1.Nr}"}},
				map[string]any{"id": "m1", "method": "POST", "path": "/v1/tasks/@{t1.nr}/materials", "body": map[string]any{"productNr": "4025", "quantity": 1}},
			}}
			replies := make([]reply, n)
			errs := make([]error, n)
			gate := make(chan struct{})
			var wg sync.WaitGroup
			for i := range n {
				wg.Go(func() {
					<-gate
					replies[i], errs[i] = servers[i%2].try(call{method: http.MethodPost, path: "/v1/batch", bearer: key, body: body, idemKey: idemKey})
				})
			}
			close(gate)
			wg.Wait()
			ran := 0
			var first string
			for i, r := range replies {
				if errs[i] != nil {
					t.Fatalf("request %d: %v", i, errs[i])
				}
				r.expect(t, http.StatusOK)
				if first == "" {
					first = string(r.body)
				}
				if string(r.body) != first {
					t.Fatalf("request %d answered %s; another answered %s", i, r.body, first)
				}
				if r.header.Get("Idempotency-Replayed") == "false" {
					ran++
				}
			}
			if ran != 1 {
				t.Fatalf("%d of %d batches say they ran now, want 1", ran, n)
			}
			got := a.customersNamed(t, key, name)
			if len(got) != 1 {
				t.Fatalf("%d customers named %q, want 1", len(got), name)
			}
			var tasks struct{ Items []map[string]any }
			a.do(t, call{method: http.MethodGet, path: "/v1/tasks?customerNr=" + got[0].Nr, bearer: key}).expect(t, http.StatusOK).decode(t, &tasks)
			if len(tasks.Items) != 1 {
				t.Fatalf("%d tasks for the batch's customer, want 1", len(tasks.Items))
			}
			t.Logf("%d identical batches over 2 processes: one customer, one task, 1 ran, %d replayed", n, n-1)
		})
	}

	t.Run("two processes writing with one ETag: exactly one 412", func(t *testing.T) {
		var c customer
		a.createCustomer(t, key, "Etag race", "").expect(t, http.StatusCreated).decode(t, &c)
		path := "/v1/customers/" + c.Nr
		for round := range 10 {
			tag := a.do(t, call{method: http.MethodGet, path: path, bearer: key}).expect(t, http.StatusOK).header.Get("ETag")
			statuses := make([]int, 2)
			errs := make([]error, 2)
			var wg sync.WaitGroup
			for i, s := range servers {
				wg.Go(func() {
					r, err := s.try(call{method: http.MethodPatch, path: path, bearer: key, ifMatch: tag,
						body: map[string]string{"city": fmt.Sprintf("Round %d process %d", round, i)}})
					statuses[i], errs[i] = r.status, err
				})
			}
			wg.Wait()
			for _, err := range errs {
				if err != nil {
					t.Fatal(err)
				}
			}
			slices.Sort(statuses)
			if !slices.Equal(statuses, []int{http.StatusOK, http.StatusPreconditionFailed}) {
				t.Fatalf("round %d: statuses %v, want one 200 and one 412", round, statuses)
			}
		}
	})

	t.Run("a token from one process works on the other", func(t *testing.T) {
		for _, pair := range [][2]*server{{a, b}, {b, a}} {
			var tok struct {
				AccessToken string `json:"access_token"`
			}
			pair[0].do(t, call{method: http.MethodPost, path: "/v1/token", body: map[string]string{"clientId": clientID, "clientSecret": key}}).
				expect(t, http.StatusOK).decode(t, &tok)
			var who struct{ Integration string }
			pair[1].do(t, call{method: http.MethodGet, path: "/v1/whoami", bearer: tok.AccessToken}).
				expect(t, http.StatusOK).decode(t, &who)
			if who.Integration != clientID {
				t.Fatalf("whoami with the token: integration %q, want %q", who.Integration, clientID)
			}
		}
	})

	t.Run("rate limits are per process", func(t *testing.T) {
		// Two more processes on the same database, each limiting a key to
		// a burst of 3 and then 1 call a minute.
		limited := []string{"--rate-limit", "0.0167", "--rate-burst", "3", "--max-open-conns", "2"}
		c, d := startServe(t, dsn, limited...), startServe(t, dsn, limited...)
		whoami := call{method: http.MethodGet, path: "/v1/whoami", bearer: key}
		for range 3 {
			c.do(t, whoami).expect(t, http.StatusOK)
		}
		r := c.do(t, whoami)
		r.expectProblem(t, http.StatusTooManyRequests, "rate_limited")
		if r.header.Get("Retry-After") == "" {
			t.Fatal("429 without Retry-After")
		}
		for range 3 { // the other process has a bucket of its own
			d.do(t, whoami).expect(t, http.StatusOK)
		}
		d.do(t, whoami).expectProblem(t, http.StatusTooManyRequests, "rate_limited")
	})

	t.Run("a key revoked by the CLI stops working on both within the auth cache TTL", func(t *testing.T) {
		whoami := call{method: http.MethodGet, path: "/v1/whoami", bearer: key}
		for _, s := range servers {
			s.do(t, whoami).expect(t, http.StatusOK) // now in each process's auth cache
		}
		cli(t, "keys", "revoke", "--db", dsn, "--client-id", clientID)
		revoked := time.Now()
		const authCacheTTL = 2 * time.Second // runtime.Config.AuthCacheTTL default
		for _, s := range servers {
			eventually(t, authCacheTTL+time.Second-time.Since(revoked), "401 after revoke", func() bool {
				return s.do(t, whoami).status == http.StatusUnauthorized
			})
			t.Logf("%s refused the revoked key %s after the revoke", s.url, time.Since(revoked).Round(10*time.Millisecond))
		}
	})

	for _, s := range servers {
		if err := s.stop(10 * time.Second); err != nil {
			t.Errorf("serve %s exited with %v after SIGTERM, want 0", s.url, err)
		}
	}
}
