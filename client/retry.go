package client

import (
	"context"
	"math/rand/v2"
	"time"
)

// RetryPolicy says how often and how long a call is retried. A call is
// retried when the server answers 429 (rate limited) or 503 (the engine was
// not reached), after the Retry-After the server sends; and on 504 (the
// engine may have written) or when the server could not be reached at all,
// which is safe for writes because every attempt carries the call's one
// Idempotency-Key (an attempt that runs while an earlier one still does
// answers with the earlier one's response). Other answers, 4xx above
// all, are never retried, but for a 409 idempotency_claim_lost. Without a Retry-After the wait grows
// exponentially from BaseDelay to MaxDelay, with jitter. No wait outlasts
// the context's deadline.
type RetryPolicy struct {
	MaxAttempts int           // attempts in all, the first included; 1 turns retries off
	BaseDelay   time.Duration // the wait before the second attempt, doubled each time
	MaxDelay    time.Duration // the longest wait between attempts without a Retry-After
}

// DefaultRetryPolicy makes up to 4 attempts, waiting about 0.25 s, 0.5 s
// and 1 s (or what Retry-After says) in between.
var DefaultRetryPolicy = RetryPolicy{MaxAttempts: 4, BaseDelay: 250 * time.Millisecond, MaxDelay: 5 * time.Second}

// more reports whether another attempt may follow attempt.
func (p RetryPolicy) more(attempt int) bool { return attempt < p.MaxAttempts }

// delay is the wait after the given failed attempt: retryAfter when the
// server sent one, else capped exponential backoff with jitter (half of
// it random, so clients that failed together do not retry together).
func (p RetryPolicy) delay(attempt int, retryAfter time.Duration) time.Duration {
	if retryAfter > 0 {
		return retryAfter
	}
	d := p.BaseDelay
	for i := 1; i < attempt && d < p.MaxDelay; i++ {
		d *= 2
	}
	d = min(d, p.MaxDelay)
	if d <= 0 {
		return 0
	}
	return d/2 + rand.N(d/2+1)
}

// wait sleeps before the next attempt. It fails at once when the context
// ends first or its deadline falls within the wait, so the caller gets the
// last answer rather than a bare deadline error.
func (p RetryPolicy) wait(ctx context.Context, attempt int, retryAfter time.Duration) error {
	d := p.delay(attempt, retryAfter)
	if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < d {
		return context.DeadlineExceeded
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
