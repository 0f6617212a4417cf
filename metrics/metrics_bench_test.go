package metrics_test

import (
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"fieldapi/metrics"
	"fieldapi/runtime"
)

// BenchmarkObserversPerRequest is what the access log (JSON, discarded)
// and the request metrics add to each request, without the noise of a
// whole HTTP round trip: compare it with BenchmarkGetCustomer's time.
func BenchmarkObserversPerRequest(b *testing.B) {
	observers := []runtime.Observer{
		runtime.NewAccessLog(slog.New(slog.NewJSONHandler(io.Discard, nil))),
		metrics.NewRequests(prometheus.NewRegistry()),
	}
	rec := &runtime.RequestRecord{Start: time.Now(), RequestID: "0123456789abcdef01234567", Method: "GET",
		Route: "/v1/customers/{key}", Status: 200, Duration: 150 * time.Microsecond, BytesOut: 412,
		ClientID: "demo-cli", Company: "demo"}
	for b.Loop() {
		for _, o := range observers {
			o.RequestStarted()
		}
		for _, o := range observers {
			o.RequestDone(rec)
		}
	}
}
