// Package ratelimit limits the calls of each key (and of each address,
// for POST /v1/token) with a token bucket, and words the IETF RateLimit
// headers of a key's answer.
package ratelimit

import (
	"fmt"
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"fieldapi/runtime/problem"
)

// Limits keeps one token bucket per key (and per address for POST
// /v1/token), in this process: each process of a scaled-out service limits
// on its own (see README, Scaling out). A bucket left idle until it is full
// again is the same as a new one, so idle buckets are dropped: the map
// stays as small as the set of recent callers, whatever addresses call.
type Limits struct {
	limit rate.Limit
	burst int
	now   func() time.Time
	// idleAfter is how long a bucket may go unused before it is dropped:
	// at least the time it takes to fill up again.
	idleAfter time.Duration
	// policy is the RateLimit-Policy header value: it depends only on
	// limit and burst, so it is formatted once, not per call.
	policy string

	mu        sync.Mutex
	buckets   map[string]*bucket
	lastSweep time.Time
}

type bucket struct {
	limiter  *rate.Limiter
	lastUsed time.Time
}

// minIdle keeps buckets of fast-refilling limits a while, so a steady
// caller is not dropped and remade between calls.
const minIdle = time.Minute

// New limits each name to limit calls per second, burst at once; a
// negative limit turns limiting off.
func New(limit rate.Limit, burst int, now func() time.Time) *Limits {
	l := &Limits{limit: limit, burst: burst, now: now, buckets: map[string]*bucket{}, idleAfter: minIdle}
	if limit > 0 {
		if refill := time.Duration(float64(burst) / float64(limit) * float64(time.Second)); refill > l.idleAfter {
			l.idleAfter = refill
		}
	}
	if limit > 0 {
		window := math.Ceil(float64(burst) / float64(limit))
		l.policy = fmt.Sprintf(`"per-key";q=%d;w=%d`, burst, int(window))
	}
	l.lastSweep = now()
	return l
}

// Allow takes one call from the bucket, or answers 429 with the wait.
func (l *Limits) Allow(name string) error {
	_, err := l.take(name)
	return err
}

// AllowKey is Allow for a key's call, and returns the values of the IETF
// RateLimit-Policy and RateLimit headers (draft-ietf-httpapi-ratelimit-headers)
// of its answer: the bucket's size and refill window, the calls left and
// the seconds until the bucket is full again; both "" when limiting is off.
func (l *Limits) AllowKey(clientID string) (policy, state string, err error) {
	tokens, err := l.take(clientID)
	if l.limit < 0 {
		return "", "", err
	}
	remaining := max(0, math.Floor(tokens))
	reset := math.Ceil((float64(l.burst) - tokens) / float64(l.limit))
	return l.policy, fmt.Sprintf(`"per-key";r=%d;t=%d`, int(remaining), int(max(0, reset))), err
}

// take takes one call from the named bucket and returns the tokens left.
func (l *Limits) take(name string) (float64, error) {
	if l.limit < 0 {
		return 0, nil
	}
	now := l.now()
	l.mu.Lock()
	l.sweep(now)
	b, ok := l.buckets[name]
	if !ok {
		b = &bucket{limiter: rate.NewLimiter(l.limit, l.burst)}
		l.buckets[name] = b
	}
	b.lastUsed = now
	l.mu.Unlock()
	r := b.limiter.Reserve()
	if d := r.Delay(); d > 0 {
		r.Cancel()
		return b.limiter.Tokens(), problem.RateLimited(int(math.Ceil(d.Seconds())))
	}
	return b.limiter.Tokens(), nil
}

// sweep drops the buckets idle longer than idleAfter, at most once per
// idleAfter, so the cost is spread thin over the calls. l.mu is held.
func (l *Limits) sweep(now time.Time) {
	if now.Sub(l.lastSweep) < l.idleAfter {
		return
	}
	l.lastSweep = now
	for name, b := range l.buckets {
		if now.Sub(b.lastUsed) > l.idleAfter {
			delete(l.buckets, name)
		}
	}
}

// size is the number of buckets kept.
func (l *Limits) size() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.buckets)
}
