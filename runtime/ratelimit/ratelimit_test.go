package ratelimit

import (
	"fmt"
	"testing"
	"time"

	"github.com/matryer/is"
)

func TestIdleRateLimitBucketsAreDropped(t *testing.T) {
	is := is.New(t)
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	limits := New(50, 100, func() time.Time { return now }) // refills in 2 s; kept idle a minute
	for i := range 1000 {
		is.NoErr(limits.Allow(fmt.Sprintf("ip:192.0.2.%d:%d", i%250, i)))
	}
	is.Equal(limits.size(), 1000)

	now = now.Add(30 * time.Second)
	is.NoErr(limits.Allow("ip:198.51.100.1"))
	is.Equal(limits.size(), 1001) // nothing has been idle for a minute yet

	now = now.Add(45 * time.Second)
	is.NoErr(limits.Allow("ip:198.51.100.2"))
	is.Equal(limits.size(), 2) // the 1000 idle buckets are gone; the recent ones stay

	now = now.Add(2 * time.Minute)
	is.NoErr(limits.Allow("ip:198.51.100.2"))
	is.Equal(limits.size(), 1) // only the caller of the moment is left
}

func TestSlowRefillingBucketsAreKeptUntilFull(t *testing.T) {
	is := is.New(t)
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	limits := New(0.01, 10, func() time.Time { return now }) // one call per 100 s: full after 1000 s
	is.NoErr(limits.Allow("key-a"))
	now = now.Add(10 * time.Minute)
	is.NoErr(limits.Allow("key-b"))
	is.Equal(limits.size(), 2) // key-a's bucket is not full again yet: dropping it would grant calls
	now = now.Add(10 * time.Minute)
	is.NoErr(limits.Allow("key-b"))
	is.Equal(limits.size(), 1)
}
