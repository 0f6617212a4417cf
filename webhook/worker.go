package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"fieldapi/engine"
)

// Defaults of the Options an operator may tune; the serve flags show them
// as their defaults, so they are stated once, here.
const (
	DefaultPoll        = time.Second
	DefaultLease       = time.Minute
	DefaultTimeout     = 10 * time.Second
	DefaultRetryBase   = 5 * time.Second
	DefaultMaxBackoff  = 12 * time.Hour
	DefaultGiveUpAfter = 72 * time.Hour
)

// Options tune a Worker. Zero values take the defaults.
type Options struct {
	Poll        time.Duration // how often the queue is looked at; DefaultPoll
	Lease       time.Duration // how long a claimed delivery is held before another worker may take it over; DefaultLease
	Timeout     time.Duration // one attempt, connect to last byte read; DefaultTimeout
	PerEndpoint int           // attempts in flight per subscription in this process; 4
	Batch       int           // deliveries claimed at a time; 32
	RetryBase   time.Duration // first retry delay, doubled after each failure; DefaultRetryBase
	MaxBackoff  time.Duration // longest delay between attempts; DefaultMaxBackoff
	GiveUpAfter time.Duration // a delivery still failing this long after it was queued fails for good and disables its subscription; DefaultGiveUpAfter
	Retention   time.Duration // events older than this are pruned from the feed; 0 = never
	PruneEvery  time.Duration // how often to prune; 10m
	Policy      AddressPolicy
	Metrics     Metrics // told about every attempt; nil = none
	Logger      *slog.Logger
	Now         func() time.Time
}

func (o Options) withDefaults() Options {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&o.Poll, DefaultPoll)
	def(&o.Lease, DefaultLease)
	def(&o.Timeout, DefaultTimeout)
	def(&o.RetryBase, DefaultRetryBase)
	def(&o.MaxBackoff, DefaultMaxBackoff)
	def(&o.GiveUpAfter, DefaultGiveUpAfter)
	def(&o.PruneEvery, 10*time.Minute)
	if o.PerEndpoint <= 0 {
		o.PerEndpoint = 4
	}
	if o.Batch <= 0 {
		o.Batch = 32
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Metrics == nil {
		o.Metrics = &Counters{}
	}
	return o
}

// Metrics is told about every delivery attempt, for the operator's
// metrics (the ops middleware hooks it; Counters is a plain one).
type Metrics interface {
	Attempted(outcome Outcome, statusCode int, latency time.Duration)
}

// Outcome is how an attempt ended.
type Outcome string

// The attempt outcomes.
const (
	Delivered Outcome = "delivered" // 2xx
	Retrying  Outcome = "retrying"  // failed; another attempt is scheduled
	GaveUp    Outcome = "gave_up"   // failed for GiveUpAfter: the subscription is disabled
)

// Counters counts attempts by outcome; safe for concurrent use.
type Counters struct {
	delivered, retrying, gaveUp atomic.Int64
}

// Attempted counts one attempt.
func (c *Counters) Attempted(o Outcome, _ int, _ time.Duration) {
	switch o {
	case Delivered:
		c.delivered.Add(1)
	case Retrying:
		c.retrying.Add(1)
	case GaveUp:
		c.gaveUp.Add(1)
	}
}

// Counts returns the attempts counted, by outcome.
func (c *Counters) Counts() map[Outcome]int64 {
	return map[Outcome]int64{Delivered: c.delivered.Load(), Retrying: c.retrying.Load(), GaveUp: c.gaveUp.Load()}
}

// maxAnswer is how much of a receiver's answer is read: enough for an
// error message, never a flood.
const maxAnswer = 64 << 10

// Worker drains the delivery queue: it turns committed events into
// deliveries, claims due ones under a lease and sends them.
type Worker struct {
	queue  engine.DeliveryQueue
	opt    Options
	client *http.Client

	mu        sync.Mutex
	endpoints map[string]chan struct{} // per subscription: its free attempt slots
	inFlight  sync.WaitGroup
	busy      atomic.Int64 // claimed deliveries not finished
}

// NewWorker returns a worker on the queue.
func NewWorker(queue engine.DeliveryQueue, opt Options) *Worker {
	opt = opt.withDefaults()
	dialer := &net.Dialer{Timeout: opt.Timeout, Control: opt.Policy.control}
	transport := &http.Transport{
		Proxy:                 nil, // a proxy would dial for us, past the address check
		DialContext:           dialer.DialContext,
		TLSHandshakeTimeout:   opt.Timeout,
		ResponseHeaderTimeout: opt.Timeout,
		MaxIdleConnsPerHost:   opt.PerEndpoint,
	}
	client := &http.Client{
		Transport: transport,
		Timeout:   opt.Timeout,
		// A redirect is an answer, not a new destination: following it
		// could lead past the address policy and to a URL nobody subscribed.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return &Worker{queue: queue, opt: opt, client: client, endpoints: map[string]chan struct{}{}}
}

// Run works until ctx ends, then waits for the attempts in flight.
func (w *Worker) Run(ctx context.Context) {
	defer w.inFlight.Wait()
	tick := time.NewTicker(w.opt.Poll)
	defer tick.Stop()
	var lastPrune time.Time
	for {
		if w.opt.Retention > 0 && w.opt.Now().Sub(lastPrune) >= w.opt.PruneEvery {
			lastPrune = w.opt.Now()
			if n, err := w.queue.PruneEvents(ctx, lastPrune.Add(-w.opt.Retention)); err != nil {
				w.opt.Logger.Warn("pruning events", "error", err)
			} else if n > 0 {
				w.opt.Logger.Info("pruned events", "count", n)
			}
		}
		w.Step(ctx)
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// Step dispatches new events and starts the due deliveries it can take.
func (w *Worker) Step(ctx context.Context) {
	for {
		n, err := w.queue.Dispatch(ctx, 500)
		if err != nil {
			if ctx.Err() == nil {
				w.opt.Logger.Warn("dispatching events to webhooks", "error", err)
			}
			break
		}
		if n == 0 {
			break
		}
	}
	free := int64(w.opt.Batch) - w.busy.Load()
	if free <= 0 {
		return
	}
	claimed, err := w.queue.Claim(ctx, w.opt.Lease, int(free))
	if err != nil {
		if ctx.Err() == nil {
			w.opt.Logger.Warn("claiming webhook deliveries", "error", err)
		}
		return
	}
	for _, c := range claimed {
		w.busy.Add(1)
		w.inFlight.Add(1)
		go func() {
			defer w.inFlight.Done()
			defer w.busy.Add(-1)
			slots := w.slots(c.WebhookID)
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				return // the lease runs out and another worker takes it
			}
			defer func() { <-slots }()
			w.deliver(context.WithoutCancel(ctx), c)
		}()
	}
}

// slots returns a subscription's attempt slots in this process.
func (w *Worker) slots(webhookID string) chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := w.endpoints[webhookID]
	if s == nil {
		s = make(chan struct{}, w.opt.PerEndpoint)
		w.endpoints[webhookID] = s
	}
	return s
}

// deliver makes one attempt and records it with what follows.
func (w *Worker) deliver(ctx context.Context, c engine.ClaimedDelivery) {
	start := w.opt.Now()
	status, err := w.send(ctx, c, start)
	latency := w.opt.Now().Sub(start)
	o := engine.Outcome{Attempt: engine.Attempt{At: start.UTC(), StatusCode: status, LatencyMs: float64(latency.Microseconds()) / 1000}}
	outcome := Delivered
	if err == nil {
		o.Done = true
	} else {
		o.Attempt.Error = err.Error()
		delay := w.backoff(c.Tries + 1)
		if retryAt := start.Add(delay); retryAt.Sub(c.Created) > w.opt.GiveUpAfter {
			outcome = GaveUp
			o.GiveUp = fmt.Sprintf("disabled after deliveries failed for %s; last error: %s", w.opt.GiveUpAfter, err)
		} else {
			outcome = Retrying
			o.RetryAt = retryAt
		}
	}
	w.opt.Metrics.Attempted(outcome, status, latency)
	if err := w.queue.Finish(ctx, c, o); err != nil {
		// Not recorded: the lease runs out and the delivery is sent again.
		w.opt.Logger.Warn("recording a webhook attempt", "delivery", c.ID, "error", err)
	}
}

// send posts the message; a 2xx answer is success, anything else an error.
func (w *Worker) send(ctx context.Context, c engine.ClaimedDelivery, at time.Time) (int, error) {
	sig, err := signatureHeader(c.Secrets, c.MessageID, at, c.Payload)
	if err != nil {
		return 0, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.URL, bytes.NewReader(c.Payload))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "fieldapi-webhooks/1")
	req.Header.Set(standardwebhooks.HeaderWebhookID, c.MessageID)
	req.Header.Set(standardwebhooks.HeaderWebhookTimestamp, strconv.FormatInt(at.Unix(), 10))
	req.Header.Set(standardwebhooks.HeaderWebhookSignature, sig)
	resp, err := w.client.Do(req)
	if err != nil {
		var opErr *net.OpError
		if errors.As(err, &opErr) && errors.Is(err, ErrPrivateAddress) {
			return 0, opErr.Err
		}
		return 0, err
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if resp.StatusCode/100 != 2 {
		if len(answer) > 200 {
			answer = answer[:200]
		}
		return resp.StatusCode, fmt.Errorf("HTTP %d: %s", resp.StatusCode, bytes.TrimSpace(answer))
	}
	return resp.StatusCode, nil
}

// backoff is the delay before attempt n+1 after n failures: RetryBase
// doubled each time, at most MaxBackoff, with ±20% jitter so receivers
// coming back are not hit by every retry at once. With the defaults the
// attempts spread over about three days (5s, 10s, 20s, … 12h).
func (w *Worker) backoff(failures int) time.Duration {
	d := w.opt.RetryBase
	for i := 1; i < failures && d < w.opt.MaxBackoff; i++ {
		d *= 2
	}
	d = min(d, w.opt.MaxBackoff)
	return time.Duration(float64(d) * (0.8 + 0.4*rand.Float64()))
}
