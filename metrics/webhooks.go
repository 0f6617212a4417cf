package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"fieldapi/webhook"
)

// Webhooks counts and times webhook delivery attempts; it is the
// webhook.Metrics of the delivery worker.
type Webhooks struct {
	attempts *prometheus.CounterVec
	latency  prometheus.Histogram
}

var _ webhook.Metrics = (*Webhooks)(nil)

// NewWebhooks registers the webhook delivery metrics with reg.
func NewWebhooks(reg prometheus.Registerer) *Webhooks {
	m := &Webhooks{
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "webhook_attempts_total",
			Help: "Webhook delivery attempts by outcome: delivered (2xx), retrying (failed, another attempt scheduled), gave_up (failed for good; the subscription was disabled)."}, []string{"outcome"}),
		latency: prometheus.NewHistogram(prometheus.HistogramOpts{Namespace: namespace, Name: "webhook_attempt_duration_seconds",
			Help:    "Time one webhook attempt took, to the receiver's answer or the failure.",
			Buckets: []float64{.01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}}),
	}
	for _, o := range []webhook.Outcome{webhook.Delivered, webhook.Retrying, webhook.GaveUp} {
		m.attempts.WithLabelValues(string(o))
	}
	reg.MustRegister(m.attempts, m.latency)
	return m
}

// Attempted counts one attempt.
func (m *Webhooks) Attempted(o webhook.Outcome, _ int, latency time.Duration) {
	m.attempts.WithLabelValues(string(o)).Inc()
	m.latency.Observe(latency.Seconds())
}
