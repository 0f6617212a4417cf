package apitest

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"fieldapi/generated"
	"fieldapi/metrics"
	"fieldapi/runtime"
)

// BenchmarkObservedGetCustomer is the cost of operating: GET one customer
// from a server with neither access log nor metrics ("bare") and from one
// with both ("observed"), reported as the median time of each and the
// overhead in percent (the speed target: at most 5%). Both servers share
// one engine and database; the access log is formatted as JSON and thrown
// away, so the figure is the log's work, not the disk's.
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
	get := func(base string) time.Duration {
		req, _ := http.NewRequest(http.MethodGet, base+path, nil)
		req.Header.Set(runtime.HeaderAuthorization, "Bearer "+env.Key)
		start := time.Now()
		getOK(b, req)
		return time.Since(start)
	}
	// The two servers take turns call by call, so the drift of a shared
	// machine hits both alike; the medians ignore the odd stall.
	var bareTimes, observedTimes []time.Duration
	for i := 0; b.Loop(); i++ {
		if i%2 == 0 {
			bareTimes = append(bareTimes, get(bare))
			observedTimes = append(observedTimes, get(observed))
		} else {
			observedTimes = append(observedTimes, get(observed))
			bareTimes = append(bareTimes, get(bare))
		}
	}
	bareMedian, observedMedian := median(bareTimes), median(observedTimes)
	b.ReportMetric(float64(bareMedian.Nanoseconds()), "bare-ns/get")
	b.ReportMetric(float64(observedMedian.Nanoseconds()), "observed-ns/get")
	b.ReportMetric(100*(float64(observedMedian)/float64(bareMedian)-1), "overhead-%")
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	return ds[len(ds)/2]
}
