package metrics

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"fieldapi/webhook"
)

func TestWebhookAttemptsAreCounted(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := NewWebhooks(reg)
	m.Attempted(webhook.Delivered, 204, 20*time.Millisecond)
	m.Attempted(webhook.Retrying, 500, time.Second)
	m.Attempted(webhook.Retrying, 0, time.Second)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]float64{}
	observed := uint64(0)
	for _, f := range families {
		for _, metric := range f.GetMetric() {
			switch f.GetName() {
			case "fieldapi_webhook_attempts_total":
				counts[metric.GetLabel()[0].GetValue()] = metric.GetCounter().GetValue()
			case "fieldapi_webhook_attempt_duration_seconds":
				observed = metric.GetHistogram().GetSampleCount()
			}
		}
	}
	want := map[string]float64{"delivered": 1, "retrying": 2, "gave_up": 0} // every outcome shows from the start
	for k, v := range want {
		if counts[k] != v {
			t.Errorf("%s = %v, want %v (all: %v)", k, counts[k], v, counts)
		}
	}
	if observed != 3 {
		t.Errorf("latency observed %d times, want 3", observed)
	}
}
