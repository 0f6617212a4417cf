// Command bench is fieldapi's HTTP-level benchmark (make bench): a
// closed-loop load generator that drives, in one run and on one database
// (SQLite or PostgreSQL, --db), "fieldapi serve" and a hand-written
// net/http + sqlx baseline server (baseline.go, run as "bench baseline")
// doing the same reads and writes on tasks:
//
//   - get-one: GET /v1/tasks/{nr}, a random seeded task
//   - list-first: the first page of 50 with its total
//   - cursor-deep: a cursor page at the far end of the list (depth = the
//     number of tasks, 1,000,000 when seeded that large)
//   - list-filtered: the first page of one customer's tasks, with its total
//   - post-task-1, post-task-3, post-task-20: POST a task with that many
//     lines (materials and times) and an Idempotency-Key (the baseline:
//     one raw transaction doing the same work, see baseline.go)
//   - patch-task-1, patch-task-3, patch-task-20: PATCH the note of a task
//     with that many lines (the answer is the task with its lines); the
//     tasks are created through fieldapi before the calls, one per client.
//     --only takes post-task and patch-task for the 3-line calls.
//   - one-company, eight-companies: fieldapi alone, POST a task with 3
//     lines, every client in one company, then the clients spread over 8
//     companies (bench-c1 … bench-c8, made on first use); the target is
//     one ≥ 0.9× eight: creates of one company must not queue on a row of
//     the company.
//   - list-unexpanded, list-expanded, list-n-plus-1: fieldapi alone, one
//     client: the page of 50 tasks, the same page with each task's
//     customer expanded (expand=Customer; the lines are in the task's read
//     shape), and the 1 + 2N calls a client makes for it without expand=
//     (the page, then each task's customer and task), timed as one.
//     They run right after the reads, before the run's writes put tasks
//     of 20 lines at the top of the list.
//     Targets: list-expanded ≤ 1.5× list-unexpanded's p50 and ≥ 10×
//     faster than list-n-plus-1 (issue 23; expand.go).
//   - mixed: fieldapi alone, every kind of call at once, each client
//     going round them: get a customer, get a task, a step of a cursor
//     walk, a customer's tasks, a task with 3 lines and a customer
//     created, a customer's phone and a task's note changed. Its targets
//     are absolute: no errors, p99 ≤ 10× p50 and no call over 2 s
//     (writers must never stall readers; issue 20). It runs for
//     --mixed-duration (60 s), long enough to see stalls that come every
//     few seconds.
//
// The client does not ask for gzip (Accept-Encoding): fieldapi compresses
// answers for clients that do and the baseline never does, so both are
// measured on plain answers, like for like.
//
// It seeds the database first when it holds fewer tasks than --tasks
// ("fieldapi seed"), prints a markdown table (req/s, p50, p99, ratio to the
// baseline, peak RSS) and the targets, and writes the table and an
// SVG chart of it under --out.
//
//	go run ./bench --fieldapi bin/fieldapi --db sqlite:bin/bench.db --tasks 100000
//	go run ./bench --fieldapi bin/fieldapi --db 'postgres://postgres@127.0.0.1:5432/bench?sslmode=disable'
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
	flag.DurationVar(&cfg.mixedDuration, "mixed-duration", 60*time.Second, "measured time of the mixed load (its stalls came every few seconds)")
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
	duration, mixedDuration, warmup        time.Duration
}

func benchmark(cfg config) error {
	if err := ensureSeeded(cfg); err != nil {
		return err
	}
	data, err := readDataset(cfg.db, cfg.company)
	if err != nil {
		return err
	}
	data.lined = map[int][]string{} // filled by setup, before the first PATCH call
	fmt.Printf("dataset: %d tasks in company %s (%s)\n", data.total, cfg.company, cfg.db)

	clientID := "bench-" + randomHex(4)
	bearer, err := createKey(cfg, cfg.company, clientID)
	if err != nil {
		return err
	}
	runID := randomHex(4)
	var companies []company
	if wants(cfg, "one-company") || wants(cfg, "eight-companies") {
		if companies, err = benchCompanies(cfg); err != nil {
			return err
		}
	}
	// setup creates what the PATCH calls change, through fieldapi, just
	// before the first of them: created earlier, these tasks (up to 20
	// lines each) would be the first page the read calls measure.
	setupDone := false
	setup := func(t *target, sc scenario) error {
		if setupDone || !strings.HasPrefix(sc.name, "patch-task-") {
			return nil
		}
		setupDone = true
		return createLinedTasks(t, &data, cfg.clients, runID)
	}
	all := func() []scenario {
		// The company runs go before mixed, the last.
		calls := scenarios(data, runID)
		mixed := calls[len(calls)-1]
		return append(append(calls[:len(calls)-1], companyScenarios(companies, runID)...), mixed)
	}

	if cfg.profile != "" {
		url, stop, err := inProcessServer(context.Background(), cfg.db)
		if err != nil {
			return err
		}
		defer stop()
		t := &target{name: "fieldapi", url: url, bearer: bearer, pid: os.Getpid()}
		for _, sc := range selected(cfg, all()) {
			if err := setup(t, sc); err != nil {
				return err
			}
			err := profiled(cfg.profile, sc.name, func() {
				r := run(sc, t, clientsOf(sc, cfg), cfg.warmup, durationOf(sc, cfg))
				fmt.Printf("%-15s in-process %8.0f req/s  p50 %s  p99 %s  errors %d %s\n", r.scenario, r.rps, ms(r.p50), ms(r.p99), r.errors, r.firstError)
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
		"baseline", "--db", cfg.db, "--addr", "127.0.0.1:0", "--key", bearer, "--company", cfg.company, "--client-id", clientID)
	if err != nil {
		return err
	}
	defer base.stop()
	checkpoint, closeDB, err := checkpointer(cfg.db)
	if err != nil {
		return err
	}
	defer closeDB()
	targets := []*target{
		{name: "fieldapi", url: fieldapi.url, bearer: bearer, pid: fieldapi.cmd.Process.Pid},
		{name: "baseline", url: base.url, bearer: bearer, pid: base.cmd.Process.Pid, baseline: true},
	}
	var results []result
	for _, sc := range selected(cfg, all()) {
		if err := setup(targets[0], sc); err != nil {
			return err
		}
		for _, t := range targets {
			if sc.fieldapiOnly && t.baseline {
				continue
			}
			if err := checkpoint(); err != nil {
				return err
			}
			r := run(sc, t, clientsOf(sc, cfg), cfg.warmup, durationOf(sc, cfg))
			fmt.Printf("%-15s %-9s %8.0f req/s  p50 %-9s p99 %-9s max %-9s errors %d %s\n", r.scenario, r.target, r.rps,
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

// clientsOf is how many clients drive a call: its own number, else
// --concurrency.
// durationOf is how long a call is measured: the mixed load longer than
// the others (--mixed-duration), long enough to see stalls that come
// every few seconds.
func durationOf(sc scenario, cfg config) time.Duration {
	if sc.name == mixedName {
		return cfg.mixedDuration
	}
	return cfg.duration
}

func clientsOf(sc scenario, cfg config) int {
	if sc.clients > 0 {
		return sc.clients
	}
	return cfg.clients
}

// selected are the scenarios --only names, or all.
func selected(cfg config, all []scenario) []scenario {
	var out []scenario
	for _, sc := range all {
		if wants(cfg, sc.name) {
			out = append(out, sc)
		}
	}
	return out
}

// aliases are the names of calls before they came in sizes.
var aliases = map[string]string{"post-task": "post-task-3", "patch-task": "patch-task-3"}

// wants reports whether --only names the call (or is not given).
func wants(cfg config, name string) bool {
	if cfg.only == "" {
		return true
	}
	for _, n := range strings.Split(cfg.only, ",") {
		if n == name || aliases[n] == name {
			return true
		}
	}
	return false
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
	lined     map[int][]string // tasks with 1, 3, 20 lines, one per client (createLinedTasks)
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
	if err := q(&d.total, countQuery, company, company); err != nil {
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
	// clients; the benchmark builds it as runtime/listquery/query.go does,
	// rather than walk a million rows to get one.
	// 200 rows above the oldest: past the demo company's own tasks, so the
	// deepest page holds seeded tasks like the first page does.
	deepPos := d.oldestSeq + 200
	deepCursor := fieldapiCursor(deepPos, d.total/50, d.total)
	out := []scenario{
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
	}
	// The expansion calls read the first page too: before this run's
	// writes, so it is the page the reads above measure, not 50 of the
	// 20-line tasks post-task-20 and patch-task-20 leave at the top.
	out = append(out, expandScenarios(get)...)
	for _, n := range lineCounts {
		name := fmt.Sprintf("post-task-%d", n)
		out = append(out, scenario{name: name, write: true, request: func(t *target, w, i int) *http.Request {
			body := taskWithLines(pick(d.customers, w, i), "Benchmark", d.products, d.timeType, n)
			return write(t, http.MethodPost, "/v1/tasks", body, fmt.Sprintf("bench-%s-%s-%s-%d-%d", runID, t.name, name, w, i))
		}})
	}
	for _, n := range lineCounts {
		name := fmt.Sprintf("patch-task-%d", n)
		out = append(out, scenario{name: name, write: true, request: func(t *target, w, i int) *http.Request {
			nr := d.lined[n][w%len(d.lined[n])]
			return write(t, http.MethodPatch, "/v1/tasks/"+nr, map[string]any{"taskNote": fmt.Sprintf("Bench %d/%d", w, i)},
				fmt.Sprintf("bench-%s-%s-%s-%d-%d", runID, t.name, name, w, i))
		}})
	}
	// mixed stays last (benchmark puts the company runs before it).
	out = append(out, batchScenarios(d, runID, write, pick)...)
	return append(out, mixedScenario(d, runID, get, write, pick))
}

// mixedName names the mixed load.
const mixedName = "mixed"

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
	return scenario{name: mixedName, write: true, fieldapiOnly: true,
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

// checkpointer returns what starts each measurement on PostgreSQL: a
// CHECKPOINT, so the server measured first does not alone pay for the
// full-page images PostgreSQL writes to its log at the first change of
// every page after a checkpoint (fieldapi is measured before the
// baseline, and after the seed's checkpoint its first writes ran at
// about 0.7 of the rate they had a minute later). On SQLite it does
// nothing.
func checkpointer(dsn string) (checkpoint func() error, closeDB func(), err error) {
	if strings.HasPrefix(dsn, "sqlite:") {
		return func() error { return nil }, func() {}, nil
	}
	db, err := openBaselineDB(dsn)
	if err != nil {
		return nil, nil, err
	}
	checkpoint = func() error {
		if _, err := db.Exec(`CHECKPOINT`); err != nil {
			return fmt.Errorf("CHECKPOINT before a measurement (needs a superuser or pg_checkpoint): %w", err)
		}
		return nil
	}
	return checkpoint, func() { db.Close() }, nil
}
