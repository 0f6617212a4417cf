package runtime

import (
	"math"
	"sync"

	"golang.org/x/time/rate"
)

// rateLimits keeps one token bucket per key, in this process: each process
// of a scaled-out service limits on its own (see README, Scaling out).
type rateLimits struct {
	limit rate.Limit
	burst int

	mu      sync.Mutex
	buckets map[string]*rate.Limiter
}

func newRateLimits(limit rate.Limit, burst int) *rateLimits {
	return &rateLimits{limit: limit, burst: burst, buckets: map[string]*rate.Limiter{}}
}

// allow takes one call from the key's bucket, or answers 429 with the wait.
func (l *rateLimits) allow(clientID string) error {
	if l.limit < 0 {
		return nil
	}
	l.mu.Lock()
	b, ok := l.buckets[clientID]
	if !ok {
		b = rate.NewLimiter(l.limit, l.burst)
		l.buckets[clientID] = b
	}
	l.mu.Unlock()
	r := b.Reserve()
	if d := r.Delay(); d > 0 {
		r.Cancel()
		return RateLimited(int(math.Ceil(d.Seconds())))
	}
	return nil
}
