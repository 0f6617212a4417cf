package pipeline

import (
	"sync"
	"time"

	"golang.org/x/sync/singleflight"

	"fieldapi/engine/store"
)

// ttlCache keeps values that change rarely and are read on every call (a
// signature's permissions, extra-field definitions) for a short time. A
// change made in the engine's administration shows within cacheTTL. Its
// entries expire by the engine's clock (Options.Now).
type ttlCache[V any] struct {
	ttl time.Duration
	now func() time.Time

	mu      sync.Mutex
	entries map[string]ttlEntry[V]
	loading singleflight.Group // one load per key at a time, outside transactions
}

type ttlEntry[V any] struct {
	value   V
	expires time.Time
}

// cacheTTL is how long a cached permission or definition is trusted.
const cacheTTL = 2 * time.Second

const maxCacheEntries = 10_000

func newTTLCache[V any](ttl time.Duration, now func() time.Time) *ttlCache[V] {
	return &ttlCache[V]{ttl: ttl, now: now, entries: map[string]ttlEntry[V]{}}
}

// get returns the cached value, or loads it on q and caches it.
func (c *ttlCache[V]) get(q store.Reader, key string, load func(q store.Reader) (V, error)) (V, error) {
	now := c.now()
	c.mu.Lock()
	e, ok := c.entries[key]
	c.mu.Unlock()
	if ok && now.Before(e.expires) {
		return e.value, nil
	}
	if _, inTx := q.(store.Tx); inTx {
		// A transaction loads on its own connection and never waits for a
		// load shared with other calls: that load may be waiting for a
		// connection of the pool, and on SQLite every connection may be
		// held by a writer waiting for the write lock this transaction
		// holds. All waited until the busy timeout (5 s), and the writers
		// then failed with engine_busy (issue 20).
		v, err := load(q)
		if err == nil {
			c.put(key, v, now)
		}
		return v, err
	}
	// When an entry expires under load, every call in flight misses it at
	// once; one of them loads it and the others wait for that (the load
	// stampede was the p99 of GET one under 64 clients).
	shared, err, wasShared := c.loading.Do(key, func() (any, error) {
		v, err := load(q)
		if err == nil {
			c.put(key, v, now)
		}
		return v, err
	})
	if err != nil && wasShared {
		// The error may be the loading call's own (its context ended):
		// this call loads for itself.
		v, err := load(q)
		if err == nil {
			c.put(key, v, now)
		}
		return v, err
	}
	v, _ := shared.(V)
	return v, err
}

func (c *ttlCache[V]) put(key string, v V, loaded time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) >= maxCacheEntries {
		clear(c.entries)
	}
	c.entries[key] = ttlEntry[V]{value: v, expires: loaded.Add(c.ttl)}
}
