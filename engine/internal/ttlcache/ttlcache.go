// Package ttlcache keeps values that change rarely and are read on every
// call (a signature's permissions, extra-field definitions) for a short
// time, by the engine's clock.
package ttlcache

import (
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
)

// Cache keeps values of type V by key for a TTL. It is safe for
// concurrent use.
type Cache[V any] struct {
	ttl time.Duration
	now func() time.Time

	mu      sync.Mutex
	entries map[string]entry[V]
	loading singleflight.Group // one shared load per key at a time
}

type entry[V any] struct {
	value   V
	expires time.Time
}

// maxEntries bounds the cache: past it, it starts afresh.
const maxEntries = 10_000

// New returns an empty cache whose entries expire ttl after they were
// loaded, by the clock now.
func New[V any](ttl time.Duration, now func() time.Time) *Cache[V] {
	return &Cache[V]{ttl: ttl, now: now, entries: map[string]entry[V]{}}
}

// Get returns the value cached under key, or loads and caches it. Calls
// that miss a key at once share one load, so an expiry under load does not
// send them all to the database. A call inside a transaction passes shared
// false and loads on its own connection: a shared load may wait for a
// pool connection held by a writer waiting for this transaction's lock
// (issue 20: every connection held, 5 s, then engine_busy).
func (c *Cache[V]) Get(key string, shared bool, load func() (V, error)) (V, error) {
	now := c.now()
	c.mu.Lock()
	e, ok := c.entries[key]
	c.mu.Unlock()
	if ok && now.Before(e.expires) {
		return e.value, nil
	}
	if !shared {
		return c.load(key, now, load)
	}
	v, err, wasShared := c.loading.Do(key, func() (any, error) { return c.load(key, now, load) })
	if err != nil && wasShared {
		// The error may be the loading call's own (its context ended):
		// this call loads for itself.
		return c.load(key, now, load)
	}
	value, _ := v.(V)
	return value, err
}

func (c *Cache[V]) load(key string, now time.Time, load func() (V, error)) (V, error) {
	v, err := load()
	if err != nil {
		return v, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) >= maxEntries {
		clear(c.entries)
	}
	c.entries[key] = entry[V]{value: v, expires: now.Add(c.ttl)}
	return v, nil
}

// Forget drops the value cached under key: the next Get loads it. A load
// already running when Forget is called may still store what it read.
func (c *Cache[V]) Forget(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.entries, key)
}
