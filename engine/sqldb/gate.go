package sqldb

import (
	"context"
	"time"
)

// writerGate queues this process's SQLite writes in Go: its write groups
// (group.go) and Autocommit's statements. Every transaction takes
// SQLite's one write lock up front (_txlock=immediate); without the gate
// the others poll for it in SQLite's busy handler, sleeping 1 to 100 ms
// between tries while the lock stood free, each holding a connection that
// readers then waited for. With the gate the next write starts as soon as
// the last ends, and waiters hold no connection (make bench, SQLite:
// post-task p99 540 → 136 ms, patch-task p99 297 → 87 ms).
//
// The gate only orders this process, and a waiter that gives up on it
// after the busy timeout goes on without it: what fails when the lock
// cannot be had stays what SQLite's busy timeout decides.
type writerGate struct {
	slot    chan struct{}
	timeout time.Duration
}

// enter waits for the gate and returns how to leave it. A nil gate
// (PostgreSQL) lets everyone through.
func (g *writerGate) enter(ctx context.Context) (leave func(), err error) {
	if g == nil {
		return func() {}, nil
	}
	timer := time.NewTimer(g.timeout)
	defer timer.Stop()
	select {
	case g.slot <- struct{}{}:
		return func() { <-g.slot }, nil
	case <-timer.C:
		return func() {}, nil // go on without the gate: SQLite's busy timeout decides
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
