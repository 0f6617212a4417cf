package sqldb

import (
	"context"
	"sync"
	"sync/atomic"
)

// walCheckpointer copies SQLite's write-ahead log back into the database
// file beside the writes instead of inside one of them. SQLite's own
// automatic checkpoint runs in the commit that grows the log past 1000
// pages, so one write in about thirty paid for copying the log and two
// fsyncs while it held the writer gate: every write queued behind it, and
// under mixed load those were the slowest calls. Connections are opened
// with wal_autocheckpoint(0), and every checkpointEvery commits a PASSIVE
// checkpoint runs in the background on a connection of the pool; it takes
// no write lock, so writers and readers go on meanwhile. One runs at a
// time: a trigger while one runs is dropped (the next one copies what it
// would have).
type walCheckpointer struct {
	db      *DB
	commits atomic.Int64
	running atomic.Bool
	closing atomic.Bool    // Close has begun: no checkpoint starts any more
	done    sync.WaitGroup // the checkpoint running, for Close (and tests) to wait on
}

// checkpointEvery is how many commits pass between checkpoints: about the
// 1000 pages of SQLite's automatic checkpoint for a task created with its
// lines, whose commit writes some thirty pages.
const checkpointEvery = 32

// committed counts one commit, starting a checkpoint when one is due.
// A nil checkpointer (PostgreSQL) does nothing.
func (c *walCheckpointer) committed() {
	if c == nil || c.commits.Add(1)%checkpointEvery != 0 || c.closing.Load() || !c.running.CompareAndSwap(false, true) {
		return
	}
	c.done.Add(1)
	go func() {
		defer c.done.Done()
		defer c.running.Store(false)
		// A checkpoint that fails (the database is closing, busy past the
		// timeout) loses nothing: the log keeps the pages until the next.
		_, _ = c.db.pool.ExecContext(context.Background(), `PRAGMA wal_checkpoint(PASSIVE)`)
	}()
}

// wait waits for the checkpoint running, if any.
func (c *walCheckpointer) wait() {
	if c != nil {
		c.done.Wait()
	}
}

// close stops new checkpoints and waits for the one running: the pool is
// about to close (SQLite checkpoints the rest of the log as its last
// connection closes).
func (c *walCheckpointer) close() {
	if c != nil {
		c.closing.Store(true)
		c.done.Wait()
	}
}
