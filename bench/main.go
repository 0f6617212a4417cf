// Command bench is fieldapi's HTTP-level benchmark (make bench): a
// closed-loop load generator that drives, in one run and on one database,
// "fieldapi serve" and a hand-written net/http + sqlx baseline server
// (baseline.go, run as "bench baseline") doing the same reads and writes on
// tasks:
//
//   - get-one: GET /v1/tasks/{nr}, a random seeded task
//   - list-first: the first page of 50 with its total
//   - cursor-deep: a cursor page at the far end of the list (depth = the
//     number of tasks, 1,000,000 when seeded that large)
//   - list-filtered: the first page of one customer's tasks, with its total
//   - post-task: POST a task with 3 lines and an Idempotency-Key (the
//     baseline: one raw transaction)
//   - patch-task: PATCH a task's note
//   - mixed: fieldapi alone, every kind of call at once, each client
//     going round them: get a customer, get a task, a step of a cursor
//     walk, a customer's tasks, a task with 3 lines and a customer
//     created, a customer's phone and a task's note changed. Its targets
//     are absolute: no errors, p99 ≤ 10× p50 and no call over 2 s
//     (writers must never stall readers; issue 20). Give it
//     --duration 60s to see stalls that come every few seconds.
//
// It seeds the database first when it holds fewer tasks than --tasks
// ("fieldapi seed"), prints a markdown table (req/s, p50, p99, ratio to the
// baseline, peak RSS) and the targets, and writes the table and an
// SVG chart of it under --out.
//
//	go run ./bench --fieldapi bin/fieldapi --db sqlite:bin/bench.db --tasks 100000
package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

func main() {
	if isBaselineCommand() {
		if err := baselineMain(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "baseline:", err)
			os.Exit(1)
		}
		return
	}
	var cfg config
	flag.StringVar(&cfg.fieldapi, "fieldapi", "bin/fieldapi", "the fieldapi binary")
	flag.StringVar(&cfg.db, "db", "sqlite:bin/bench.db", "database both servers use (created and seeded when it has too few tasks)")
	flag.StringVar(&cfg.company, "company", "demo", "company the calls act in")
	flag.IntVar(&cfg.tasks, "tasks", 100_000, "tasks the company should hold (seeded up to this)")
	flag.IntVar(&cfg.clients, "concurrency", 64, "concurrent clients (closed loop)")
	flag.DurationVar(&cfg.duration, "duration", 10*time.Second, "measured time per call and server")
	flag.DurationVar(&cfg.warmup, "warmup", 2*time.Second, "unmeasured time before each measurement")
	flag.StringVar(&cfg.out, "out", "bench/results", "directory for results.md and results.svg")
	flag.StringVar(&cfg.only, "only", "", "comma list of calls to run (default all)")
	flag.StringVar(&cfg.note, "note", "", "a line printed under the table (machine, contention)")
	flag.StringVar(&cfg.profile, "profile", "", "instead: profile fieldapi in this process, a CPU profile per call in this directory")
	flag.Parse()
	if err := benchmark(cfg); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

type config struct {
	fieldapi, db, company, out, only, note string
	profile                                string
	tasks, clients                         int
	duration, warmup                       time.Duration
}

func benchmark(cfg config) error {
	if err := ensureSeeded(cfg); err != nil {
		return err
	}
	data, err := readDataset(cfg.db, cfg.company)
	if err != nil {
		return err
	}
	fmt.Printf("dataset: %d tasks in company %s (%s)\n", data.total, cfg.company, cfg.db)

	keyOut, err := exec.Command(cfg.fieldapi, "keys", "create", "--db", cfg.db, "--company", cfg.company, "--sign", "API",
		"--scopes", "*", "--client-id", "bench-"+randomHex(4), "--json").Output()
	if err != nil {
		return fmt.Errorf("keys create: %w", err)
	}
	var key struct{ Key string }
	if err := json.Unmarshal(keyOut, &key); err != nil {
		return fmt.Errorf("keys create printed %q: %w", keyOut, err)
	}

	if cfg.profile != "" {
		url, stop, err := inProcessServer(context.Background(), cfg.db)
		if err != nil {
			return err
		}
		defer stop()
		t := &target{name: "fieldapi", url: url, bearer: key.Key, pid: os.Getpid()}
		for _, sc := range selected(cfg, scenarios(data, randomHex(4))) {
			err := profiled(cfg.profile, sc.name, func() {
				r := run(sc, t, cfg.clients, cfg.warmup, cfg.duration)
				fmt.Printf("%-14s in-process %8.0f req/s  p50 %s  p99 %s  errors %d %s\n", r.scenario, r.rps, ms(r.p50), ms(r.p99), r.errors, r.firstError)
			})
			if err != nil {
				return err
			}
		}
		return nil
	}

	self, err := os.Executable()
	if err != nil {
		return err
	}
	fieldapi, err := startProcess(regexp.MustCompile(`msg=listening addr=(http://\S+)`), cfg.fieldapi,
		"serve", "--db", cfg.db, "--addr", "127.0.0.1:0", "--rate-limit", "0")
	if err != nil {
		return err
	}
	defer fieldapi.stop()
	base, err := startProcess(regexp.MustCompile(`^listening (http://\S+)`), self,
		"baseline", "--db", cfg.db, "--addr", "127.0.0.1:0", "--key", key.Key, "--company", cfg.company)
	if err != nil {
		return err
	}
	defer base.stop()
	targets := []*target{
		{name: "fieldapi", url: fieldapi.url, bearer: key.Key, pid: fieldapi.cmd.Process.Pid},
		{name: "baseline", url: base.url, bearer: key.Key, pid: base.cmd.Process.Pid, baseline: true},
	}

	var results []result
	for _, sc := range selected(cfg, scenarios(data, randomHex(4))) {
		for _, t := range targets {
			if sc.fieldapiOnly && t.baseline {
				continue
			}
			r := run(sc, t, cfg.clients, cfg.warmup, cfg.duration)
			fmt.Printf("%-14s %-9s %8.0f req/s  p50 %-9s p99 %-9s max %-9s errors %d %s\n", r.scenario, r.target, r.rps,
				r.p50.Round(10*time.Microsecond), r.p99.Round(10*time.Microsecond), r.max.Round(time.Millisecond), r.errors, r.firstError)
			results = append(results, r)
		}
	}
	rep := report{cfg: cfg, tasks: data.total, results: results,
		hwm: map[string]int64{"fieldapi": rssOf(targets[0].pid, "VmHWM"), "baseline": rssOf(targets[1].pid, "VmHWM")}}
	table := rep.markdown()
	fmt.Print("\n" + table)
	if err := os.MkdirAll(cfg.out, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(cfg.out, "results.md"), []byte(table), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(cfg.out, "results.svg"), []byte(rep.svg()), 0o644)
}

// selected are the scenarios --only names, or all.
func selected(cfg config, all []scenario) []scenario {
	var out []scenario
	for _, sc := range all {
		if cfg.only == "" || strings.Contains(","+cfg.only+",", ","+sc.name+",") {
			out = append(out, sc)
		}
	}
	return out
}

// ensureSeeded runs "fieldapi seed" for the tasks the company lacks.
func ensureSeeded(cfg config) error {
	have := 0
	if data, err := readDataset(cfg.db, cfg.company); err == nil {
		have = data.total
	}
	if have >= cfg.tasks {
		return nil
	}
	fmt.Printf("seeding %d tasks into %s\n", cfg.tasks-have, cfg.db)
	cmd := exec.Command(cfg.fieldapi, "seed", "--db", cfg.db, "--company", cfg.company, "--tasks", strconv.Itoa(cfg.tasks-have))
	cmd.Env = cleanEnv()
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	return cmd.Run()
}

// dataset is what the calls pick from.
type dataset struct {
	total     int
	oldestSeq int64    // the deepest cursor continues just above it
	taskNrs   []string // a random sample
	customers []string // customers of the sampled tasks
	products  []string
	timeType  string
}

func readDataset(dsn, company string) (dataset, error) {
	var d dataset
	if path, ok := strings.CutPrefix(dsn, "sqlite:"); ok {
		if _, err := os.Stat(path); err != nil {
			return d, err
		}
	}
	db, err := openBaselineDB(dsn)
	if err != nil {
		return d, err
	}
	defer db.Close()
	q := func(dest any, query string, args ...any) error { return db.Get(dest, db.Rebind(query), args...) }
	if err := q(&d.total, `SELECT n FROM record_counts WHERE company = ? AND register = 'tasks'`, company); err != nil {
		return d, err
	}
	if err := q(&d.oldestSeq, `SELECT MIN(seq) FROM tasks WHERE company = ?`, company); err != nil {
		return d, err
	}
	if err := db.Select(&d.taskNrs, db.Rebind(`SELECT nr FROM tasks WHERE company = ? AND seq >= ? ORDER BY seq LIMIT 20000`),
		company, d.oldestSeq+int64(d.total/3)); err != nil {
		return d, err
	}
	if err := db.Select(&d.customers, db.Rebind(`SELECT DISTINCT customer_nr FROM tasks WHERE company = ? AND seq >= ? ORDER BY customer_nr LIMIT 2000`),
		company, d.oldestSeq+int64(d.total/3)); err != nil {
		return d, err
	}
	if err := db.Select(&d.products, db.Rebind(`SELECT nr FROM products WHERE company = ? ORDER BY seq LIMIT 20`), company); err != nil {
		return d, err
	}
	if err := q(&d.timeType, `SELECT name FROM timetypes WHERE company = ? AND name = 'Normaltid'`, company); err != nil {
		return d, fmt.Errorf("time type Normaltid: %w", err)
	}
	if len(d.taskNrs) == 0 || len(d.customers) == 0 || len(d.products) < 2 {
		return d, fmt.Errorf("company %s has too little data to benchmark", company)
	}
	return d, nil
}

// scenarios are the calls measured, in order. runID keeps Idempotency-Keys
// of one run apart from earlier runs on the same database.
func scenarios(d dataset, runID string) []scenario {
	get := func(t *target, path string) *http.Request {
		req, _ := http.NewRequest(http.MethodGet, t.url+path, nil)
		req.Header.Set("Authorization", "Bearer "+t.bearer)
		return req
	}
	write := func(t *target, method, path string, body any, idemKey string) *http.Request {
		b, _ := json.Marshal(body)
		req, _ := http.NewRequest(method, t.url+path, bytes.NewReader(b))
		req.Header.Set("Authorization", "Bearer "+t.bearer)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", idemKey)
		return req
	}
	pick := func(list []string, w, i int) string { return list[(w*7919+i*104729)%len(list)] }
	// The cursor of the deepest page: fieldapi's cursor is opaque to
	// clients; the benchmark builds it as runtime/query.go does, rather
	// than walk a million rows to get one.
	// 200 rows above the oldest: past the demo company's own tasks, so the
	// deepest page holds seeded tasks like the first page does.
	deepPos := d.oldestSeq + 200
	deepCursor := fieldapiCursor(deepPos, d.total/50, d.total)
	return []scenario{
		{name: "get-one", request: func(t *target, w, i int) *http.Request {
			return get(t, "/v1/tasks/"+pick(d.taskNrs, w, i))
		}},
		{name: "list-first", request: func(t *target, w, i int) *http.Request {
			return get(t, "/v1/tasks?limit=50")
		}},
		{name: "cursor-deep", request: func(t *target, w, i int) *http.Request {
			if t.baseline {
				return get(t, "/v1/tasks?limit=50&after="+strconv.FormatInt(deepPos, 10))
			}
			return get(t, "/v1/tasks?limit=50&cursor="+deepCursor)
		}},
		{name: "list-filtered", request: func(t *target, w, i int) *http.Request {
			return get(t, "/v1/tasks?limit=50&customerNr="+pick(d.customers, w, i))
		}},
		{name: "post-task", write: true, request: func(t *target, w, i int) *http.Request {
			body := map[string]any{"customerNr": pick(d.customers, w, i), "taskText": "Benchmark",
				"materials": []map[string]any{{"productNr": d.products[0], "quantity": 1}, {"productNr": d.products[1], "quantity": 2}},
				"times":     []map[string]any{{"timeType": d.timeType, "hours": 1.5}}}
			return write(t, http.MethodPost, "/v1/tasks", body, fmt.Sprintf("bench-%s-%s-post-%d-%d", runID, t.name, w, i))
		}},
		{name: "patch-task", write: true, request: func(t *target, w, i int) *http.Request {
			return write(t, http.MethodPatch, "/v1/tasks/"+pick(d.taskNrs, w, i), map[string]any{"taskNote": fmt.Sprintf("Bench %d/%d", w, i)},
				fmt.Sprintf("bench-%s-%s-patch-%d-%d", runID, t.name, w, i))
		}},
		mixedScenario(d, runID, get, write, pick),
		batchScenario(d, runID, write, pick),
	}
}

// mixedScenario is every kind of call at once (see the package comment):
// each client goes round the kinds, so at any moment about half the
// clients write while the others read.
func mixedScenario(d dataset, runID string, get func(*target, string) *http.Request,
	write func(*target, string, string, any, string) *http.Request, pick func([]string, int, int) string) scenario {
	var mu sync.Mutex
	cursors := map[int]string{} // by worker: where its cursor walk goes on
	walk := func(t *target, w int) *http.Request {
		mu.Lock()
		cursor := cursors[w]
		mu.Unlock()
		if cursor == "" {
			return get(t, "/v1/tasks?limit=50")
		}
		return get(t, "/v1/tasks?limit=50&cursor="+url.QueryEscape(cursor))
	}
	kinds := []func(t *target, w, i int) *http.Request{
		func(t *target, w, i int) *http.Request { return get(t, "/v1/customers/"+pick(d.customers, w, i)) },
		func(t *target, w, i int) *http.Request { return get(t, "/v1/tasks/"+pick(d.taskNrs, w, i)) },
		func(t *target, w, i int) *http.Request { return walk(t, w) },
		func(t *target, w, i int) *http.Request {
			return get(t, "/v1/tasks?limit=50&customerNr="+pick(d.customers, w, i))
		},
		func(t *target, w, i int) *http.Request {
			body := map[string]any{"customerNr": pick(d.customers, w, i), "taskText": "Mixed load",
				"materials": []map[string]any{{"productNr": d.products[0], "quantity": 1}, {"productNr": d.products[1], "quantity": 2}},
				"times":     []map[string]any{{"timeType": d.timeType, "hours": 1.5}}}
			return write(t, http.MethodPost, "/v1/tasks", body, fmt.Sprintf("bench-%s-mixed-task-%d-%d", runID, w, i))
		},
		func(t *target, w, i int) *http.Request {
			body := map[string]any{"name": fmt.Sprintf("Mixed %d/%d", w, i), "city": "Umeå"}
			return write(t, http.MethodPost, "/v1/customers", body, fmt.Sprintf("bench-%s-mixed-customer-%d-%d", runID, w, i))
		},
		func(t *target, w, i int) *http.Request {
			return write(t, http.MethodPatch, "/v1/customers/"+pick(d.customers, w, i), map[string]any{"phone": fmt.Sprintf("+46 %d %d", w, i)},
				fmt.Sprintf("bench-%s-mixed-pcustomer-%d-%d", runID, w, i))
		},
		func(t *target, w, i int) *http.Request {
			return write(t, http.MethodPatch, "/v1/tasks/"+pick(d.taskNrs, w, i), map[string]any{"taskNote": fmt.Sprintf("Mixed %d/%d", w, i)},
				fmt.Sprintf("bench-%s-mixed-ptask-%d-%d", runID, w, i))
		},
	}
	const walkKind = 2
	kindOf := func(w, i int) int { return (w + i) % len(kinds) }
	return scenario{name: "mixed", write: true, fieldapiOnly: true,
		request: func(t *target, w, i int) *http.Request { return kinds[kindOf(w, i)](t, w, i) },
		observe: func(t *target, w, i int, status int, body []byte) {
			if kindOf(w, i) != walkKind {
				return
			}
			var page struct{ NextCursor *string }
			_ = json.Unmarshal(body, &page)
			mu.Lock()
			defer mu.Unlock()
			if status != http.StatusOK || page.NextCursor == nil {
				delete(cursors, w) // walk again from the first page
				return
			}
			cursors[w] = *page.NextCursor
		},
	}
}

// fieldapiCursor is a cursor of a walk without filters: the position, the
// page it leads to, the fingerprint of no filters and the total.
func fieldapiCursor(pos int64, page, total int) string {
	sum := sha256.Sum256(nil)
	c, _ := json.Marshal(map[string]any{"p": pos, "n": max(page, 2), "f": binary.BigEndian.Uint64(sum[:8]), "t": total})
	return base64.RawURLEncoding.EncodeToString(c)
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}
