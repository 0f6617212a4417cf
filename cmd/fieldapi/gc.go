package main

import "runtime/debug"

// The collector's defaults, unless the operator sets GOGC or GOMEMLIMIT.
// A write allocates about 120 KB that dies with it, while the live heap of
// a busy server is a few MiB: with Go's GOGC=100 the collector ran every
// few MiB and took about a quarter of a create's CPU. GOGC=400 lets the heap
// grow to five times the live heap before a collection; the soft limit
// keeps the 64 clients of a list benchmark at the memory they used before
// (peak RSS 91 → 102 MB where GOGC=400 alone reached 156 MB). The price: a
// live heap above about 32 MiB is collected more often than at GOGC=100.
const (
	defaultGCPercent   = 400
	defaultMemoryLimit = 64 << 20
)

// tuneCollector sets the collector's defaults when the environment leaves
// both GOGC and GOMEMLIMIT unset (the runtime has already read them).
func tuneCollector(getenv func(string) string) {
	if getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetGCPercent(defaultGCPercent)
	debug.SetMemoryLimit(defaultMemoryLimit)
}
