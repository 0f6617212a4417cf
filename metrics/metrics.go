// Package metrics exposes the service's Prometheus metrics: an observer of
// every request (runtime.Observer), the database pool, the Go runtime and
// the process, served with pprof on a listener of its own. Nothing is
// registered globally: the caller passes the registry.
package metrics

import (
	"net/http"
	"net/http/pprof"
	"slices"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"fieldapi/engine/sqldb"
	"fieldapi/runtime"
)

const namespace = "fieldapi"

// Requests counts and times every request; it is a runtime.Observer.
type Requests struct {
	requests     *prometheus.CounterVec
	duration     *prometheus.HistogramVec
	inFlight     prometheus.Gauge
	replays      prometheus.Counter
	conflicts    *prometheus.CounterVec
	races        prometheus.Counter
	rateLimited  prometheus.Counter
	engineFaults *prometheus.CounterVec
}

var _ runtime.Observer = (*Requests)(nil)

// engineFaultKinds maps the problem codes of engine faults to their kind.
var engineFaultKinds = map[string]string{
	"engine_busy":        "busy",
	"engine_unreachable": "unreachable",
	"engine_timeout":     "timeout",
}

// rateLimitedCode is the problem code of a call refused by the rate limit.
const rateLimitedCode = "rate_limited"

// idempotencyConflicts are the problem codes of writes refused for their Idempotency-Key.
var idempotencyConflicts = []string{"idempotency_mismatch", "idempotency_claim_lost"}

// NewRequests registers the request metrics with reg.
func NewRequests(reg prometheus.Registerer) *Requests {
	labels := []string{"route", "method", "status"} // the order WithLabelValues takes them in
	m := &Requests{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "http_requests_total",
			Help: "Requests answered, by route pattern, method and status class (2xx, 4xx, ...)."}, labels),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: namespace, Name: "http_request_duration_seconds",
			Help:    "Time from the request's arrival to its answer, by route pattern, method and status class.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}}, labels),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{Namespace: namespace, Name: "http_requests_in_flight",
			Help: "Requests being served now."}),
		replays: prometheus.NewCounter(prometheus.CounterOpts{Namespace: namespace, Name: "idempotent_replays_total",
			Help: "Writes answered from the stored response of an earlier call with the same Idempotency-Key."}),
		conflicts: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "idempotency_conflicts_total",
			Help: "Writes refused 409 for their Idempotency-Key, by problem code (idempotency_mismatch, idempotency_claim_lost)."}, []string{"code"}),
		races: prometheus.NewCounter(prometheus.CounterOpts{Namespace: namespace, Name: "idempotency_races_total",
			Help: "Writes that ran while another call with the same Idempotency-Key did, which answered first: they wrote nothing and answered with its response."}),
		rateLimited: prometheus.NewCounter(prometheus.CounterOpts{Namespace: namespace, Name: "rate_limited_total",
			Help: "Calls refused 429 by the rate limit."}),
		engineFaults: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "engine_faults_total",
			Help: "Calls the engine could not serve, by kind: busy, unreachable (503), timeout (504)."}, []string{"kind"}),
	}
	for _, kind := range engineFaultKinds { // every kind and code shows from the start, at 0
		m.engineFaults.WithLabelValues(kind)
	}
	for _, code := range idempotencyConflicts {
		m.conflicts.WithLabelValues(code)
	}
	reg.MustRegister(m.requests, m.duration, m.inFlight, m.replays, m.conflicts, m.races, m.rateLimited, m.engineFaults)
	return m
}

// RequestStarted counts the request in flight.
func (m *Requests) RequestStarted() { m.inFlight.Inc() }

// RequestDone counts the answered request.
func (m *Requests) RequestDone(r *runtime.RequestRecord) {
	m.inFlight.Dec()
	class := statusClass(r.Status)
	m.requests.WithLabelValues(r.Route, r.Method, class).Inc()
	m.duration.WithLabelValues(r.Route, r.Method, class).Observe(r.Duration.Seconds())
	if r.Replayed {
		m.replays.Inc()
	}
	if r.LostRace {
		m.races.Inc()
	}
	switch r.Problem {
	case "":
	case rateLimitedCode:
		m.rateLimited.Inc()
	default:
		if kind, ok := engineFaultKinds[r.Problem]; ok {
			m.engineFaults.WithLabelValues(kind).Inc()
		} else if slices.Contains(idempotencyConflicts, r.Problem) {
			m.conflicts.WithLabelValues(r.Problem).Inc()
		}
	}
}

// statusClasses name the status classes without formatting one per request.
var statusClasses = [...]string{"0xx", "1xx", "2xx", "3xx", "4xx", "5xx"}

// statusClass is "2xx" for 200..299 and so on.
func statusClass(status int) string {
	if c := status / 100; c >= 1 && c <= 5 {
		return statusClasses[c]
	}
	return strconv.Itoa(status/100) + "xx"
}

// RegisterProcess registers the Go runtime and process collectors.
func RegisterProcess(reg prometheus.Registerer) {
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
}

// RegisterDBPool registers the database's statistics (its pool's, and
// SQLite's write groups), read from stats at each scrape.
func RegisterDBPool(reg prometheus.Registerer, stats func() sqldb.Stats) {
	gauge := func(name, help string, value func(sqldb.Stats) float64) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: namespace, Subsystem: "db", Name: name, Help: help},
			func() float64 { return value(stats()) })
	}
	counter := func(name, help string, value func(sqldb.Stats) float64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Namespace: namespace, Subsystem: "db", Name: name, Help: help},
			func() float64 { return value(stats()) })
	}
	reg.MustRegister(
		gauge("max_open_connections", "Most connections the pool may open (--max-open-conns).", func(s sqldb.Stats) float64 { return float64(s.MaxOpenConnections) }),
		gauge("open_connections", "Connections open, in use or idle.", func(s sqldb.Stats) float64 { return float64(s.OpenConnections) }),
		gauge("in_use_connections", "Connections in use by a call.", func(s sqldb.Stats) float64 { return float64(s.InUse) }),
		gauge("idle_connections", "Idle connections.", func(s sqldb.Stats) float64 { return float64(s.Idle) }),
		counter("wait_count_total", "Times a call waited for a free connection.", func(s sqldb.Stats) float64 { return float64(s.WaitCount) }),
		counter("wait_duration_seconds_total", "Time calls spent waiting for a free connection.", func(s sqldb.Stats) float64 { return s.WaitDuration.Seconds() }),
		counter("write_groups_total", "SQLite: write transactions committed, each a group of one or more writes (0 on PostgreSQL).", func(s sqldb.Stats) float64 { return float64(s.WriteGroups) }),
		counter("grouped_writes_total", "SQLite: writes those transactions committed; divided by write_groups_total, the mean group.", func(s sqldb.Stats) float64 { return float64(s.GroupedWrites) }),
	)
}

// Handler serves /metrics from gatherer and, when withPprof is set,
// net/http/pprof under /debug/pprof/.
func Handler(gatherer prometheus.Gatherer, withPprof bool) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(gatherer, promhttp.HandlerOpts{}))
	if withPprof {
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	}
	return mux
}
