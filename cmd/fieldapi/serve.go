package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/time/rate"

	"fieldapi/engine"
	"fieldapi/engine/geocode"
	"fieldapi/engine/reference"
	"fieldapi/generated"
	"fieldapi/metrics"
	"fieldapi/runtime"
	"fieldapi/webhook"
)

// Serving constants an operator has no reason to tune.
const (
	shutdownTimeout   = 30 * time.Second // how long a shutdown waits for in-flight requests
	pruneEvery        = 10 * time.Minute // how often expired Idempotency-Keys are deleted
	readHeaderTimeout = 10 * time.Second
	readTimeout       = 2 * time.Minute // room for a 32 MB body on a slow link
	idleTimeout       = 2 * time.Minute
)

// serveFlags are the flags of "fieldapi serve" as given.
type serveFlags struct {
	dsn, addr        string
	demo             bool
	keyFile          string
	requireTokens    bool
	rateLimit        float64
	rateBurst        int
	problemBase      string
	statementTimeout time.Duration
	maxOpenConns     int
	idempotencyTTL   time.Duration
	claimLease       time.Duration
	tokenLifetime    time.Duration
	geocoder         string
	geocoderURL      string
	linkTimeout      time.Duration
	eventRetention   time.Duration
	webhookPrivate   bool
	webhookPoll      time.Duration
	webhookLease     time.Duration
	webhookTimeout   time.Duration
	webhookRetry     time.Duration
	webhookGiveUp    time.Duration
	logFormat        string
	metricsAddr      string
	pprof            bool
	corsOrigins      listFlag
	heapGoalMiB      int
}

// serveConfig is what serve runs with, checked and translated.
type serveConfig struct {
	dsn         string
	demo        bool   // memory: load the demo data and print a key
	keyFile     string // with demo: where the key is written too
	addr        string
	logFormat   string // text or json
	metricsAddr string // "" = no metrics listener
	pprof       bool
	heapGoal    uint64 // bytes; 0: Go's own garbage-collector settings
	gcByEnv     bool   // GOGC or GOMEMLIMIT is set: the heap goal is off
	runtime     runtime.Config
	engine      reference.Options
	webhook     webhook.Options
	deprecated  []string // flags given that no longer do anything, to warn of
}

// parseServeConfig reads the serve flags and their FIELDAPI_* variables.
func parseServeConfig(args []string, getenv func(string) string, stderr io.Writer) (serveConfig, error) {
	var f serveFlags
	fs := newFlagSet("serve", "serve --db DSN --addr HOST:PORT [--require-tokens] [tuning flags]", stderr)
	fs.StringVar(&f.dsn, "db", defaultDSN, "database: sqlite:PATH, postgres://USER@HOST:PORT/DB, or memory: (in this process only, with --demo)")
	fs.BoolVar(&f.demo, "demo", false, "with --db memory:, load the demo companies and print a key for company demo, sign API, every scope: a disposable server for tests and CI")
	fs.StringVar(&f.keyFile, "key-file", "", "with --demo, also write the demo key to this file (mode 0600), for scripts")
	fs.StringVar(&f.addr, "addr", "127.0.0.1:8080", "HOST:PORT to listen on (port 0 picks a free port)")
	fs.BoolVar(&f.requireTokens, "require-tokens", false, "refuse keys as Bearer (401 token_required): clients must use POST /v1/token")
	fs.Float64Var(&f.rateLimit, "rate-limit", runtime.DefaultRateLimit, "calls per second per key, in this process; 0 turns the limit off")
	fs.IntVar(&f.rateBurst, "rate-burst", runtime.DefaultRateBurst, "calls a key may make at once before the rate limit applies")
	fs.StringVar(&f.problemBase, "problem-base", runtime.DefaultProblemBase, "problem type URLs are <problem-base>/<code>")
	fs.DurationVar(&f.statementTimeout, "statement-timeout", 30*time.Second, "longest an engine call may take before 504 engine_timeout; 0 = no limit")
	fs.IntVar(&f.maxOpenConns, "max-open-conns", 10, "database connections at most")
	fs.DurationVar(&f.idempotencyTTL, "idempotency-ttl", 24*time.Hour, "how long completed Idempotency-Keys are kept before they are pruned")
	fs.DurationVar(&f.claimLease, "claim-lease", 0, "deprecated, no effect: a write stores its Idempotency-Key with its response, so no running write holds a key")
	fs.StringVar(&f.geocoder, "geocoder", geocode.NameGazetteer, "how the engine locates records: gazetteer (offline city list), nominatim or none")
	fs.StringVar(&f.geocoderURL, "geocoder-url", "", "base URL of a Nominatim-compatible server, with --geocoder nominatim")
	fs.DurationVar(&f.linkTimeout, "link-timeout", 10*time.Second, "how long fetching a linked document may wait for its source")
	fs.DurationVar(&f.tokenLifetime, "token-lifetime", time.Hour, "lifetime of access tokens from POST /v1/token; at most 1h")
	fs.DurationVar(&f.eventRetention, "event-retention", 30*24*time.Hour, "how long events stay in GET /v1/events; an older cursor answers 410 cursor_expired")
	fs.BoolVar(&f.webhookPrivate, "webhook-allow-private", false, "allow webhook URLs on loopback, private and link-local addresses")
	fs.DurationVar(&f.webhookPoll, "webhook-poll", webhook.DefaultPoll, "how often each process looks for webhook deliveries to send")
	fs.DurationVar(&f.webhookLease, "webhook-lease", webhook.DefaultLease, "how long a process holds a delivery it sends; a dead process's deliveries are taken over after it")
	fs.DurationVar(&f.webhookTimeout, "webhook-timeout", webhook.DefaultTimeout, "longest one webhook attempt may take")
	fs.DurationVar(&f.webhookRetry, "webhook-retry", webhook.DefaultRetryBase, "first retry delay of a failed delivery; doubled after each failure, at most 12h")
	fs.DurationVar(&f.webhookGiveUp, "webhook-give-up", webhook.DefaultGiveUpAfter, "a delivery failing this long fails for good and disables its subscription")
	fs.StringVar(&f.logFormat, "log-format", "text", "log lines (one per request, and the service's own) as text or json")
	fs.StringVar(&f.metricsAddr, "metrics-addr", "", "HOST:PORT of a separate listener serving Prometheus /metrics (default off)")
	fs.BoolVar(&f.pprof, "pprof", false, "also serve net/http/pprof under /debug/pprof/ on the --metrics-addr listener")
	fs.IntVar(&f.heapGoalMiB, "heap-goal-mib", defaultHeapGoalMiB, "MiB the Go heap may grow to between garbage collections while it holds little: fewer collections, faster calls, the same peak under load; 0 turns this off, as GOGC or GOMEMLIMIT in the environment do")
	fs.Var(&f.corsOrigins, "cors-origin", "origin browsers may call from, such as https://app.example.com; repeat for more, * for any (default: CORS off)")
	if err := parseFlags(fs, args, getenv); err != nil {
		return serveConfig{}, err
	}
	if err := f.check(); err != nil {
		return serveConfig{}, err
	}
	geocoder, err := geocode.New(f.geocoder, f.geocoderURL)
	if err != nil {
		return serveConfig{}, fmt.Errorf("--geocoder: %w", err)
	}
	cfg := f.config()
	cfg.engine.Geocoder = geocoder
	if getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		cfg.heapGoal, cfg.gcByEnv = 0, true // the operator's own settings
	}
	return cfg, nil
}

// defaultHeapGoalMiB is serve's heap goal (gc.go); maxHeapGoalMiB, 1 TiB,
// keeps it a number of bytes.
const (
	defaultHeapGoalMiB = 64
	maxHeapGoalMiB     = 1 << 20
)

// check rejects tuning values the service cannot honour.
func (f serveFlags) check() error {
	switch {
	case f.rateLimit > 0 && f.rateBurst < 1:
		return fmt.Errorf("--rate-burst must be at least 1, not %d", f.rateBurst)
	case f.statementTimeout < 0:
		return fmt.Errorf("--statement-timeout must not be negative")
	case f.heapGoalMiB < 0 || f.heapGoalMiB > maxHeapGoalMiB:
		return fmt.Errorf("--heap-goal-mib must be from 0 (off) to %d, not %d", maxHeapGoalMiB, f.heapGoalMiB)
	case f.maxOpenConns < 1:
		return fmt.Errorf("--max-open-conns must be at least 1, not %d", f.maxOpenConns)
	case f.idempotencyTTL <= 0:
		return fmt.Errorf("--idempotency-ttl must be positive, not %s", f.idempotencyTTL)
	case f.linkTimeout <= 0:
		return fmt.Errorf("--link-timeout must be positive, not %s", f.linkTimeout)
	case f.eventRetention <= 0:
		return fmt.Errorf("--event-retention must be positive, not %s", f.eventRetention)
	case f.webhookPoll <= 0 || f.webhookLease <= 0 || f.webhookTimeout <= 0 || f.webhookRetry <= 0 || f.webhookGiveUp <= 0:
		return fmt.Errorf("--webhook-poll, --webhook-lease, --webhook-timeout, --webhook-retry and --webhook-give-up must be positive")
	case f.webhookLease <= f.webhookTimeout:
		return fmt.Errorf("--webhook-lease (%s) must be longer than --webhook-timeout (%s): a delivery is held while it is sent", f.webhookLease, f.webhookTimeout)
	case f.tokenLifetime <= 0 || f.tokenLifetime > time.Hour:
		return fmt.Errorf("--token-lifetime must be more than 0 and at most 1h, not %s", f.tokenLifetime)
	case f.logFormat != "text" && f.logFormat != "json":
		return fmt.Errorf("--log-format must be text or json, not %q", f.logFormat)
	case f.pprof && f.metricsAddr == "":
		return fmt.Errorf("--pprof needs --metrics-addr: pprof is only served on the metrics listener")
	case f.demo && !isMemory(f.dsn):
		return fmt.Errorf("--demo serves the demo data from memory (--db %s); for a database, run \"fieldapi init --db %s --demo\" and \"fieldapi keys create\" (or make run)", reference.MemoryDSN, shellQuote(f.dsn))
	case isMemory(f.dsn) && !f.demo:
		return fmt.Errorf("a --db %s database starts empty and no other command can reach it: add --demo", reference.MemoryDSN)
	case f.keyFile != "" && !f.demo:
		return fmt.Errorf("--key-file writes the demo key: it needs --demo")
	}
	for _, origin := range f.corsOrigins {
		if u, err := url.Parse(origin); origin != "*" && (err != nil || u.Scheme == "" || u.Host == "" || u.Path != "") {
			return fmt.Errorf("--cors-origin %q is not an origin such as https://app.example.com (or *)", origin)
		}
	}
	if u, err := url.Parse(f.problemBase); err != nil || u.Scheme == "" || u.Host == "" {
		return fmt.Errorf("--problem-base %q is not an absolute URL such as %s", f.problemBase, runtime.DefaultProblemBase)
	}
	return nil
}

// deprecated lists the flags given that no longer do anything.
func (f serveFlags) deprecated() []string {
	if f.claimLease != 0 {
		return []string{"--claim-lease"}
	}
	return nil
}

// config translates checked flags into the runtime's and engine's settings.
func (f serveFlags) config() serveConfig {
	limit := rate.Limit(f.rateLimit)
	if f.rateLimit <= 0 {
		limit = -1 // the runtime reads 0 as "default" and a negative limit as "off"
	}
	policy := webhook.AddressPolicy{AllowPrivate: f.webhookPrivate}
	return serveConfig{
		dsn:         f.dsn,
		demo:        f.demo,
		keyFile:     f.keyFile,
		addr:        f.addr,
		logFormat:   f.logFormat,
		metricsAddr: f.metricsAddr,
		pprof:       f.pprof,
		heapGoal:    uint64(f.heapGoalMiB) << 20,
		deprecated:  f.deprecated(),
		webhook: webhook.Options{
			Poll: f.webhookPoll, Lease: f.webhookLease, Timeout: f.webhookTimeout,
			RetryBase: f.webhookRetry, GiveUpAfter: f.webhookGiveUp,
			Retention: f.eventRetention, Policy: policy,
		},
		runtime: runtime.Config{
			WebhookURLCheck: policy.CheckURL,
			CORSOrigins:     f.corsOrigins,
			ProblemBase:     f.problemBase,
			RequireTokens:   f.requireTokens,
			RateLimit:       limit,
			RateBurst:       f.rateBurst,
			TokenLifetime:   f.tokenLifetime,
			IdempotencyTTL:  f.idempotencyTTL,
		},
		engine: reference.Options{
			MaxOpenConns:     f.maxOpenConns,
			StatementTimeout: f.statementTimeout,
			LinkTimeout:      f.linkTimeout,
		},
	}
}

// serve serves "fieldapi serve" until ctx is cancelled (SIGINT or SIGTERM),
// then drains in-flight requests. It upgrades the schema first: Migrate is
// idempotent, so a new binary upgrades its database on start.
func (a *app) serve(ctx context.Context, args []string) error {
	cfg, err := parseServeConfig(args, a.getenv, a.stderr)
	if err != nil {
		return err
	}
	log := newLogger(a.stderr, cfg.logFormat)
	cfg.runtime.Logger = log
	cfg.engine.Logger = log
	cfg.runtime.Observers = []runtime.Observer{runtime.NewAccessLog(log)}
	for _, flag := range cfg.deprecated {
		log.Warn("flag has no effect and will be removed: drop it", "flag", flag)
	}
	switch {
	case cfg.gcByEnv:
		log.Info("garbage collector: GOGC or GOMEMLIMIT is set, so --heap-goal-mib is off")
	case cfg.heapGoal > 0 && a.tuneGC != nil:
		a.tuneGC(cfg.heapGoal)
		log.Info("garbage collector: heap goal set", "heapGoalMiB", cfg.heapGoal>>20)
	}

	memory := isMemory(cfg.dsn)
	if !memory {
		if err := a.upgradeSchema(ctx, cfg.dsn, log); err != nil {
			return err
		}
	}
	eng, err := openEngineWith(ctx, a.catalog, cfg.dsn, cfg.engine, serving)
	if err != nil {
		return err
	}
	defer eng.Close()
	var demoKey string
	if cfg.demo {
		if demoKey, err = loadDemo(ctx, eng, cfg.keyFile); err != nil {
			return err
		}
	}
	var metricsSrv *http.Server
	if cfg.metricsAddr != "" {
		registry := prometheus.NewRegistry()
		metrics.RegisterProcess(registry)
		metrics.RegisterDBPool(registry, eng.DBStats)
		cfg.runtime.Observers = append(cfg.runtime.Observers, metrics.NewRequests(registry))
		cfg.webhook.Metrics = metrics.NewWebhooks(registry)
		mln, err := net.Listen("tcp", cfg.metricsAddr)
		if err != nil {
			return fmt.Errorf("--metrics-addr: %w", err)
		}
		metricsSrv = newHTTPServer(metrics.Handler(registry, cfg.pprof), cfg, log)
		metricsSrv.WriteTimeout = 0 // a CPU profile or trace runs as long as it is asked to
		go metricsSrv.Serve(mln)
		defer metricsSrv.Close()
		log.Info("serving metrics", "addr", "http://"+mln.Addr().String()+"/metrics", "pprof", cfg.pprof)
		if a.onMetricsListen != nil {
			a.onMetricsListen(mln.Addr())
		}
	}
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return err
	}
	srv := newHTTPServer(runtime.NewServer(eng, cfg.runtime, generated.API()), cfg, log)
	log.Info("listening", "addr", "http://"+ln.Addr().String(), "db", redactDSN(cfg.dsn),
		"requireTokens", cfg.runtime.RequireTokens, "idempotencyTTL", cfg.runtime.IdempotencyTTL)
	if demoKey != "" {
		printDemo(a.stdout, demoKey, ln.Addr())
	}
	if a.onListen != nil {
		a.onListen(ln.Addr())
	}

	// The background work (the idempotency-key pruner, the webhook worker)
	// has its own context: it must outlive ctx until the server has
	// drained, and stop before the engine closes.
	backgroundCtx, stopBackground := context.WithCancel(context.Background())
	var background sync.WaitGroup
	background.Go(func() {
		pruneIdempotencyKeys(backgroundCtx, eng.Idempotency(), cfg.runtime.IdempotencyTTL, pruneEvery, time.Now, log)
	})
	if queue, ok := any(eng).(engine.Events); ok {
		cfg.webhook.Logger = log
		worker := webhook.NewWorker(queue.Queue(), cfg.webhook)
		background.Go(func() { worker.Run(backgroundCtx) })
	}
	defer func() {
		stopBackground()
		background.Wait()
	}()
	return serveUntilDone(ctx, srv, ln, log)
}

// newLogger logs structured lines to w, as text or JSON (--log-format).
func newLogger(w io.Writer, format string) *slog.Logger {
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, nil))
	}
	return slog.New(slog.NewTextHandler(w, nil))
}

// upgradeSchema migrates on an engine of its own, without the statement
// timeout: an upgrade is no API call; it may take long on a big table, and
// waits while another process starting at the same time upgrades first.
// It logs each change and each leftover kept; data the catalog no longer
// declares refuses the start.
func (a *app) upgradeSchema(ctx context.Context, dsn string, log *slog.Logger) error {
	eng, err := openEngineWith(ctx, a.catalog, dsn, reference.Options{MaxOpenConns: 1}, existing)
	if err != nil {
		return err
	}
	defer eng.Close()
	m, err := eng.ApplyMigration(ctx)
	if err != nil {
		return migrationError(err, dsn)
	}
	for _, c := range m.Changes {
		log.Info("schema changed", "change", c)
	}
	for _, n := range m.Notes {
		log.Info("schema leftover kept", "note", n)
	}
	return nil
}

// newHTTPServer wraps the API handler with timeouts that bound slow
// clients but leave room for the slowest legitimate call.
func newHTTPServer(h http.Handler, cfg serveConfig, log *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout(cfg.engine.StatementTimeout),
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    1 << 20,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
}

// writeTimeout bounds a whole call: net/http starts this clock when the
// headers are read, so it must cover reading the body and the engine
// call. No statement timeout means no bound.
func writeTimeout(statementTimeout time.Duration) time.Duration {
	if statementTimeout == 0 {
		return 0
	}
	return readTimeout + statementTimeout + 30*time.Second
}

// serveUntilDone serves on ln until ctx is done, then shuts down gracefully:
// new connections are refused and in-flight requests get shutdownTimeout to
// finish.
func serveUntilDone(ctx context.Context, srv *http.Server, ln net.Listener, log *slog.Logger) error {
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	log.Info("shutting down: draining in-flight requests", "timeout", shutdownTimeout)
	drainCtx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	err := srv.Shutdown(drainCtx)
	if err != nil {
		srv.Close()
		err = fmt.Errorf("in-flight requests did not finish within %s: %w", shutdownTimeout, err)
	}
	if serveErr := <-served; !errors.Is(serveErr, http.ErrServerClosed) {
		err = errors.Join(err, serveErr)
	}
	if err == nil {
		log.Info("stopped")
	}
	return err
}

// pruneIdempotencyKeys deletes completed Idempotency-Keys older than ttl,
// now and then every interval, until ctx is done.
func pruneIdempotencyKeys(ctx context.Context, store engine.IdempotencyStore, ttl, every time.Duration, now func() time.Time, log *slog.Logger) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		n, err := store.Prune(ctx, now().Add(-ttl))
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			log.Error("pruning idempotency keys", "error", err)
		case n > 0:
			log.Info("pruned idempotency keys", "deleted", n, "olderThan", ttl)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}
