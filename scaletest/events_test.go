package scaletest

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"fieldapi/internal/dbtest"
)

// feedEvent is the part of an event the tests read.
type feedEvent struct {
	ID       string `json:"id"`
	Position int64  `json:"position"`
	Type     string `json:"type"`
	Key      string `json:"key"`
}

// readFeed reads one page of the feed after a cursor.
func (s *server) readFeed(bearer, after string, limit int) ([]feedEvent, string, error) {
	r, err := s.try(call{method: http.MethodGet, path: fmt.Sprintf("/v1/events?after=%s&limit=%d", after, limit), bearer: bearer})
	if err != nil {
		return nil, "", err
	}
	if r.status != http.StatusOK {
		return nil, "", fmt.Errorf("status %d: %s", r.status, r.body)
	}
	var page struct {
		Items      []feedEvent `json:"items"`
		NextCursor string      `json:"nextCursor"`
	}
	return page.Items, page.NextCursor, jsonInto(r.body, &page)
}

// TestFeedIsCompleteAcrossProcesses: writers on two processes, slow ones
// (orders with many lines, large documents) between fast ones
// (customers), while a reader polls the feed through both processes with
// small pages. Positions are gap-free per company, so the reader checks at
// every step that each event is the one right after the last it saw:
// a reader that moved past an event committing later would see a gap.
// At the end every committed write is in the feed exactly once.
func TestFeedIsCompleteAcrossProcesses(t *testing.T) {
	t.Parallel()
	dsn := patient(t, dbtest.Schema(t, postgresBase(t)))
	initDemo(t, dsn)
	key := createKey(t, dsn, "feed-client")
	flags := []string{"--rate-limit", "0", "--max-open-conns", poolPerProcess}
	servers := []*server{startServe(t, dsn, flags...), startServe(t, dsn, flags...)}

	var lines []map[string]any
	for range 60 {
		lines = append(lines, map[string]any{"productNr": "4001", "quantity": 1, "price": 10})
	}
	bigDoc := base64.StdEncoding.EncodeToString(make([]byte, 2<<20))
	var task struct {
		Nr string `json:"nr"`
	}
	servers[0].do(t, call{method: http.MethodPost, path: "/v1/tasks", bearer: key, body: map[string]any{"customerNr": "1031", "taskText": "feed"}}).
		expect(t, http.StatusCreated).decode(t, &task)
	_, start, err := servers[0].readFeed(key, "0", 500)
	if err != nil {
		t.Fatal(err)
	}

	// The reader polls until the writers are done and it has caught up.
	var writersDone atomic.Bool
	var seen []feedEvent
	readerErr := make(chan error, 1)
	go func() {
		cursor, last := start, mustInt(start)
		for i := 0; ; i++ {
			done := writersDone.Load() // before the read: an empty page then means caught up
			events, next, err := servers[i%2].readFeed(key, cursor, 7)
			if err != nil {
				readerErr <- err
				return
			}
			for _, ev := range events {
				if ev.Position != last+1 {
					readerErr <- fmt.Errorf("after position %d the reader got %d: it skipped an event", last, ev.Position)
					return
				}
				last = ev.Position
				seen = append(seen, ev)
			}
			cursor = next
			if done && len(events) == 0 {
				readerErr <- nil
				return
			}
			time.Sleep(2 * time.Millisecond)
		}
	}()

	const writers, perWriter = 8, 15
	type write struct{ kind, key string }
	committed := make([][]write, writers)
	errs := make([]error, writers)
	began := time.Now()
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			s := servers[w%2]
			for i := range perWriter {
				var c call
				kind := []string{"customer.created", "order.created", "customer.created", "task.document_added"}[(w+i)%4]
				switch kind {
				case "customer.created":
					c = call{method: http.MethodPost, path: "/v1/customers", bearer: key, body: map[string]string{"name": fmt.Sprintf("Feed %d-%d", w, i)}}
				case "order.created":
					c = call{method: http.MethodPost, path: "/v1/orders", bearer: key, body: map[string]any{"customerNr": "1002", "lines": lines}}
				default:
					c = call{method: http.MethodPost, path: "/v1/tasks/" + task.Nr + "/documents", bearer: key, body: map[string]any{"name": "big.bin", "contentBase64": bigDoc}}
				}
				r, err := s.try(c)
				if err == nil && r.status != http.StatusCreated {
					err = fmt.Errorf("%s: status %d: %s", c.path, r.status, r.body)
				}
				if err != nil {
					errs[w] = err
					return
				}
				var rec map[string]any
				if err := jsonInto(r.body, &rec); err != nil {
					errs[w] = err
					return
				}
				k := fmt.Sprint(rec["Nr"])
				if kind == "task.document_added" {
					k = task.Nr
				}
				committed[w] = append(committed[w], write{kind, k})
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(began)
	writersDone.Store(true)
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	select {
	case err := <-readerErr:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the reader did not catch up within 30 s")
	}

	want := map[write]int{}
	for _, ws := range committed {
		for _, w := range ws {
			want[w]++
		}
	}
	got := map[write]int{}
	ids := map[string]bool{}
	for _, ev := range seen {
		got[write{ev.Type, ev.Key}]++
		if ids[ev.ID] {
			t.Fatalf("event %s listed twice", ev.ID)
		}
		ids[ev.ID] = true
	}
	if len(seen) != writers*perWriter {
		t.Fatalf("the reader saw %d events, %d writes committed", len(seen), writers*perWriter)
	}
	for w, n := range want {
		if got[w] != n {
			t.Fatalf("%v: %d committed, %d in the feed", w, n, got[w])
		}
	}
	t.Logf("%d writes on 2 processes in %s (%.0f/s), read completely in order by a poller", writers*perWriter, elapsed.Round(time.Millisecond), float64(writers*perWriter)/elapsed.Seconds())
}

func mustInt(s string) int64 {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		panic(err)
	}
	return n
}

// TestKilledWorkerDeliveriesAreTakenOver: two serve processes deliver to
// a slow receiver; one is killed with SIGKILL in the middle and started
// again. Every event still reaches the receiver (a delivery the dead
// process held is taken over when its lease ends); duplicates carry the
// same webhook-id.
func TestKilledWorkerDeliveriesAreTakenOver(t *testing.T) {
	t.Parallel()
	dsn := patient(t, dbtest.Schema(t, postgresBase(t)))
	initDemo(t, dsn)
	key := createKey(t, dsn, "hook-client")
	flags := []string{"--rate-limit", "0", "--max-open-conns", poolPerProcess, "--webhook-allow-private",
		"--webhook-poll", "50ms", "--webhook-lease", "2s", "--webhook-timeout", "1s", "--webhook-retry", "100ms"}

	var mu sync.Mutex
	byID := map[string]int{}
	var hits atomic.Int64
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		time.Sleep(150 * time.Millisecond) // slow enough that deliveries are in flight when a process dies
		mu.Lock()
		byID[r.Header.Get("webhook-id")]++
		mu.Unlock()
		w.WriteHeader(http.StatusOK)
	}))
	defer recv.Close()

	a, b := startServe(t, dsn, flags...), startServe(t, dsn, flags...)
	a.do(t, call{method: http.MethodPost, path: "/v1/webhooks", bearer: key, body: map[string]any{"url": recv.URL, "eventTypes": []string{"customer.*"}}}).
		expect(t, http.StatusCreated)

	const n = 120
	for i := range n {
		[]*server{a, b}[i%2].createCustomer(t, key, fmt.Sprintf("Hook %03d", i), "").expect(t, http.StatusCreated)
	}
	eventually(t, 20*time.Second, "deliveries under way", func() bool { return hits.Load() >= 10 })
	if err := a.cmd.Process.Kill(); err != nil { // kill -9: no shutdown, leases left held
		t.Fatal(err)
	}
	<-a.done
	a = startServe(t, dsn, flags...)

	events := map[string]bool{}
	cursor := "0"
	for {
		page, next, err := b.readFeed(key, cursor, 500)
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range page {
			events[ev.ID] = true
		}
		if next == cursor {
			break
		}
		cursor = next
	}
	if len(events) != n {
		t.Fatalf("%d events in the feed, want %d", len(events), n)
	}
	took := eventually(t, 60*time.Second, "every event delivered", func() bool {
		mu.Lock()
		defer mu.Unlock()
		for id := range events {
			if byID[id] == 0 {
				return false
			}
		}
		return true
	})
	mu.Lock()
	dupes := 0
	for id, c := range byID {
		if !events[id] && !strings.HasPrefix(id, "msg_") {
			t.Errorf("the receiver got %s, which is no event of the feed", id)
		}
		dupes += c - 1
	}
	mu.Unlock()
	t.Logf("all %d events delivered %s after the restart; %d duplicates (same webhook-id)", n, took.Round(time.Millisecond), dupes)
}
