package main

import (
	"fmt"
	"html"
	"runtime"
	"strings"
	"time"
)

// report renders one run's results.
type report struct {
	cfg     config
	tasks   int
	results []result
	hwm     map[string]int64 // peak RSS over the whole run, by target
}

// pair is one call's results on both servers.
type pair struct{ fieldapi, baseline result }

func (p pair) ratio() float64 {
	if p.baseline.rps == 0 {
		return 0
	}
	return p.fieldapi.rps / p.baseline.rps
}

func (r report) pairs() []pair {
	var out []pair
	for _, a := range r.results {
		if a.target != "fieldapi" {
			continue
		}
		p := pair{fieldapi: a}
		for _, b := range r.results {
			if b.target == "baseline" && b.scenario == a.scenario {
				p.baseline = b
			}
		}
		out = append(out, p)
	}
	return out
}

func (r report) pair(name string) (pair, bool) {
	for _, p := range r.pairs() {
		if p.fieldapi.scenario == name {
			return p, true
		}
	}
	return pair{}, false
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }
func mb(b int64) string         { return fmt.Sprintf("%.0f MB", float64(b)/(1<<20)) }

// markdown is the results table, the run's conditions and the targets.
func (r report) markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Tasks: %d · clients: %d · %s measured per call and server, the mixed load %s (after %s warm-up) · database %s · %s/%s, %d CPUs · %s\n\n",
		r.tasks, r.cfg.clients, r.cfg.duration, r.cfg.mixedDuration, r.cfg.warmup, dbKind(r.cfg.db), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(),
		time.Now().UTC().Format("2006-01-02 15:04 UTC"))
	if r.cfg.note != "" {
		fmt.Fprintf(&b, "%s\n\n", r.cfg.note)
	}
	b.WriteString("| Call | fieldapi req/s | p50 | p99 | baseline req/s | p50 | p99 | ratio | fieldapi peak RSS | baseline peak RSS | errors |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, p := range r.pairs() {
		f, s := p.fieldapi, p.baseline
		if s.target == "" { // a call only fieldapi serves (mixed)
			fmt.Fprintf(&b, "| %s | %.0f | %s | %s | — | — | — | — | %s | — | %d |\n",
				f.scenario, f.rps, ms(f.p50), ms(f.p99), mb(f.peakRSS), f.errors)
			continue
		}
		fmt.Fprintf(&b, "| %s | %.0f | %s | %s | %.0f | %s | %s | %.2f× | %s | %s | %d / %d |\n",
			f.scenario, f.rps, ms(f.p50), ms(f.p99), s.rps, ms(s.p50), ms(s.p99), p.ratio(), mb(f.peakRSS), mb(s.peakRSS), f.errors, s.errors)
	}
	fmt.Fprintf(&b, "\nPeak RSS over the whole run: fieldapi %s, baseline %s.\n\n", mb(r.hwm["fieldapi"]), mb(r.hwm["baseline"]))
	b.WriteString("| Target | Measured | Holds |\n|---|---|---|\n")
	for _, t := range r.targets() {
		holds := "yes"
		if !t.holds {
			holds = "**no**"
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", t.name, t.measured, holds)
	}
	return b.String()
}

func dbKind(dsn string) string {
	if strings.HasPrefix(dsn, "sqlite:") {
		return "SQLite"
	}
	return "PostgreSQL"
}

type targetCheck struct {
	name, measured string
	holds          bool
}

// targets checks the targets against this run, where it measured
// what they need.
func (r report) targets() []targetCheck {
	var out []targetCheck
	first, okFirst := r.pair("list-first")
	deep, okDeep := r.pair("cursor-deep")
	if okFirst && okDeep && deep.fieldapi.rps > 0 {
		x := first.fieldapi.rps / deep.fieldapi.rps
		out = append(out, targetCheck{fmt.Sprintf("first page with total ≥ 0.9× a cursor page (%d tasks)", r.tasks), fmt.Sprintf("%.2f×", x), x >= 0.9})
		lat := float64(deep.fieldapi.p50) / float64(max(first.fieldapi.p50, 1))
		out = append(out, targetCheck{"cursor page at depth ≤ 1.2× page one's latency (p50)", fmt.Sprintf("%.2f×", lat), lat <= 1.2})
	}
	// Issue 20: writes at least as fast as the hand-written transaction,
	// GET one too, on either database (the table is for the one it ran on).
	minRatio := map[string]float64{"get-one": 1.0, "list-first": 0.9, "cursor-deep": 0.9, "list-filtered": 0.9}
	for _, n := range lineCounts {
		minRatio[fmt.Sprintf("post-task-%d", n)] = 1.0
		minRatio[fmt.Sprintf("patch-task-%d", n)] = 1.0
	}
	db := dbKind(r.cfg.db)
	for _, p := range r.pairs() {
		if want, ok := minRatio[p.fieldapi.scenario]; ok && p.baseline.target != "" {
			out = append(out, targetCheck{fmt.Sprintf("%s ≥ %.1f× baseline (%s)", p.fieldapi.scenario, want, db), fmt.Sprintf("%.2f×", p.ratio()), p.ratio() >= want})
		}
	}
	one, okOne := r.pair("one-company")
	eight, okEight := r.pair("eight-companies")
	if okOne && okEight && eight.fieldapi.rps > 0 {
		x := one.fieldapi.rps / eight.fieldapi.rps
		out = append(out, targetCheck{fmt.Sprintf("creates in one company ≥ 0.9× creates spread over %d companies (%s)", companyCount, db),
			fmt.Sprintf("%.2f× (%.0f vs %.0f req/s)", x, one.fieldapi.rps, eight.fieldapi.rps), x >= 0.9})
	}
	for _, p := range r.pairs() {
		if !strings.HasPrefix(p.fieldapi.scenario, "get") && !strings.HasPrefix(p.fieldapi.scenario, "list") && !strings.HasPrefix(p.fieldapi.scenario, "cursor") {
			continue
		}
		x := float64(p.fieldapi.p99) / float64(max(p.fieldapi.p50, 1))
		out = append(out, targetCheck{fmt.Sprintf("%s p99 ≤ 10× p50 (%d clients)", p.fieldapi.scenario, p.fieldapi.clients), fmt.Sprintf("%.1f×", x), x <= 10})
	}
	if mixed, ok := r.pair(mixedName); ok {
		f := mixed.fieldapi
		x := float64(f.p99) / float64(max(f.p50, 1))
		out = append(out,
			targetCheck{fmt.Sprintf("mixed load: no errors (%d clients, %s)", r.cfg.clients, r.cfg.mixedDuration), fmt.Sprintf("%d of %d", f.errors, f.requests), f.errors == 0},
			targetCheck{"mixed load: p99 ≤ 10× p50", fmt.Sprintf("%.1f× (p50 %s, p99 %s)", x, ms(f.p50), ms(f.p99)), x <= 10},
			targetCheck{"mixed load: no call over 2 s", "slowest " + ms(f.max), f.max <= 2*time.Second})
	}
	if batch, ok := r.pair("post-batch"); ok {
		if single, ok := r.pair("post-single"); ok && single.fieldapi.rps > 0 {
			// Tasks per second: a batch call creates batchTasks tasks.
			x := batch.fieldapi.rps * batchTasks / single.fieldapi.rps
			out = append(out, targetCheck{fmt.Sprintf("tasks created in atomic batches of %d ≥ 5× single calls, one client (%s)", batchTasks, dbKind(r.cfg.db)),
				fmt.Sprintf("%.1f× (%.0f vs %.0f tasks/s)", x, batch.fieldapi.rps*batchTasks, single.fieldapi.rps), x >= 5})
		}
	}
	out = append(out, r.expandTargets()...)
	peak := r.hwm["fieldapi"]
	out = append(out, targetCheck{fmt.Sprintf("peak RSS ≤ 120 MB (%d tasks, %d clients)", r.tasks, r.cfg.clients), mb(peak), peak > 0 && peak <= 120<<20})
	return out
}

// svg draws req/s of each call on both servers as a pair of bars, each
// pair scaled to its larger value (calls differ by orders of magnitude),
// labelled with req/s, p99 and the ratio.
func (r report) svg() string {
	pairs := r.pairs()
	const (
		width, left, barMax = 900, 150, 430 // room right of a bar for its label
		rowH, barH, top     = 64, 20, 86
	)
	height := top + rowH*len(pairs) + 50
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="13">`+"\n", width, height, width, height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="#fff"/>`+"\n")
	fmt.Fprintf(&b, `<text x="20" y="28" font-size="17" font-weight="bold">fieldapi vs hand-written baseline: requests per second</text>`+"\n")
	fmt.Fprintf(&b, `<text x="20" y="50" fill="#555">%s</text>`+"\n", html.EscapeString(fmt.Sprintf("%d tasks, %d clients, %s per call, %s;",
		r.tasks, r.cfg.clients, r.cfg.duration, dbKind(r.cfg.db))))
	fmt.Fprintf(&b, `<text x="20" y="67" fill="#555">bars of a call are scaled to its faster server (the company runs to the faster of the two)</text>`+"\n")
	colors := map[string]string{"fieldapi": "#2b6cb0", "baseline": "#a0aec0"}
	// The company runs are drawn to one scale, so that their bars compare
	// one company with eight as the baseline's bars compare the servers.
	rpsOf := map[string]float64{}
	for _, p := range pairs {
		rpsOf[p.fieldapi.scenario] = p.fieldapi.rps
	}
	companies := max(rpsOf["one-company"], rpsOf["eight-companies"])
	for i, p := range pairs {
		y := top + i*rowH
		fmt.Fprintf(&b, `<text x="20" y="%d" font-weight="bold">%s</text>`+"\n", y+barH+6, html.EscapeString(p.fieldapi.scenario))
		if p.baseline.target != "" {
			fmt.Fprintf(&b, `<text x="20" y="%d" fill="#555">ratio %.2f×</text>`+"\n", y+barH+24, p.ratio())
		}
		top := max(p.fieldapi.rps, p.baseline.rps, 1)
		if p.fieldapi.scenario == "one-company" || p.fieldapi.scenario == "eight-companies" {
			top = max(companies, 1)
		}
		for j, res := range []result{p.fieldapi, p.baseline} {
			if res.target == "" {
				continue // fieldapi alone (mixed)
			}
			by := y + j*(barH+4)
			w := int(float64(barMax) * res.rps / top)
			fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="%s"/>`+"\n", left, by, max(w, 1), barH, colors[res.target])
			fmt.Fprintf(&b, `<text x="%d" y="%d">%s %.0f req/s · p99 %s</text>`+"\n", left+max(w, 1)+6, by+15, res.target, res.rps, ms(res.p99))
		}
	}
	ly := height - 25
	fmt.Fprintf(&b, `<rect x="20" y="%d" width="14" height="14" fill="%s"/><text x="40" y="%d">fieldapi</text>`+"\n", ly-11, colors["fieldapi"], ly)
	fmt.Fprintf(&b, `<rect x="120" y="%d" width="14" height="14" fill="%s"/><text x="140" y="%d">baseline (net/http + sqlx)</text>`+"\n", ly-11, colors["baseline"], ly)
	b.WriteString("</svg>\n")
	return b.String()
}
