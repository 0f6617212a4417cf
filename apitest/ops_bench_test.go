package apitest

import (
	"io"
	"log/slog"
	"net/http/httptest"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"fieldapi/generated"
	"fieldapi/metrics"
	"fieldapi/runtime"
)

// BenchmarkObservedGetCustomer is the cost of operating: GET one customer
// with neither access log nor metrics, and with both (the speed target:
// at most 5% more). Both servers share one engine and database; the access
// log is formatted as JSON and thrown away, so the figure is the log's
// work, not the disk's.
func BenchmarkObservedGetCustomer(b *testing.B) {
	env, _ := seededEnv(b)
	serve := func(observers ...runtime.Observer) string {
		srv := runtime.NewServer(env.Engine, runtime.Config{RateLimit: -1, Logger: quietLogger(), Observers: observers}, generated.API())
		hs := httptest.NewServer(srv)
		b.Cleanup(hs.Close)
		return hs.URL
	}
	bare := serve()
	registry := prometheus.NewRegistry()
	observed := serve(runtime.NewAccessLog(slog.New(slog.NewJSONHandler(io.Discard, nil))), metrics.NewRequests(registry))
	path := "/v1/customers/B050000"
	// Interleaved rounds, so drift of a shared machine hits both alike.
	for range 2 {
		b.Run("bare", func(b *testing.B) { benchGet(b, bare, env.Key, path) })
		b.Run("accesslog+metrics", func(b *testing.B) { benchGet(b, observed, env.Key, path) })
	}
}
