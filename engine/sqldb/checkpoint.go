package sqldb

import (
	"context"
	"sync/atomic"
)

// walCheckpointer copies SQLite's write-ahead log back into the database
// file beside the writes instead of inside one of them. SQLite's own
// automatic checkpoint runs in the commit that grows the log past 1000
// pages: one write in about thirty paid for copying the log and two
// fsyncs while it held the writer gate, and every write queued behind it.
// Connections are opened with wal_autocheckpoint(0), and every
// checkpointEvery commits a PASSIVE checkpoint, which takes no write lock,
// runs in the background; a trigger while one runs is dropped.
//
// Passive checkpoints alone let the log grow without end under writes
// that follow each other closely (447 MB in ten seconds): SQLite starts
// the log over only when a write begins with all of it copied. So a log
// left longer than maxLogFrames gets a RESTART checkpoint, holding the
// writer gate, and the next write starts the log over (and truncates the
// file to journal_size_limit, see parseDSN).
type walCheckpointer struct {
	db           *DB
	maxLogFrames int // log length past which a checkpoint restarts the log
	commits      atomic.Int64
	running      atomic.Bool
	failing      atomic.Bool // the last checkpoint failed
	jobs         background  // the checkpoint running, for Close (and tests) to wait on
}

// checkpointEvery is how many commits pass between checkpoints: about the
// 1000 pages of SQLite's automatic checkpoint for a task created with its
// lines, whose commit writes some thirty pages.
const checkpointEvery = 32

// maxLogFrames is the log length (in pages) past which a checkpoint
// restarts the log: 128 MiB of 4 KiB pages, twice what 64 clients creating
// tasks one by one let it reach between restarts of its own (so only
// writes that outrun the passive checkpoints pay for a restart).
const maxLogFrames = 32768

// committed counts one commit, starting a checkpoint when one is due.
// A nil checkpointer (PostgreSQL) does nothing.
func (c *walCheckpointer) committed() {
	if c == nil || c.commits.Add(1)%checkpointEvery != 0 || !c.running.CompareAndSwap(false, true) {
		return
	}
	if !c.jobs.start(func(context.Context) {
		defer c.running.Store(false)
		c.checkpoint(context.Background()) // close waits for it rather than ending it
	}) {
		c.running.Store(false)
	}
}

// checkpoint copies the log into the database file, and restarts a log
// grown past maxLogFrames. A checkpoint that fails (closing, busy) loses
// nothing: the log keeps the pages until the next. Only a change between
// failing and succeeding is logged: a failure every checkpointEvery
// commits would flood the log.
func (c *walCheckpointer) checkpoint(ctx context.Context) {
	err := c.copyLog(ctx)
	switch failing := err != nil; {
	case failing && !c.failing.Swap(true):
		c.db.opt.Logger.Warn("SQLite checkpoint failed; the write-ahead log grows until one succeeds", "err", err)
	case !failing && c.failing.Swap(false):
		c.db.opt.Logger.Info("SQLite checkpoint succeeded again")
	}
}

func (c *walCheckpointer) copyLog(ctx context.Context) error {
	var busy, logged, copied int
	err := c.db.pool.QueryRowxContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &logged, &copied)
	if err != nil || logged <= c.maxLogFrames {
		return err
	}
	leave, err := c.db.writers.enter(ctx)
	if err != nil {
		return err
	}
	defer leave()
	_, err = c.db.pool.ExecContext(ctx, `PRAGMA wal_checkpoint(RESTART)`)
	return err
}

// wait waits for the checkpoint running, if any.
func (c *walCheckpointer) wait() {
	if c != nil {
		c.jobs.wait()
	}
}

// close stops new checkpoints and waits for the one running: the pool is
// about to close (SQLite checkpoints the rest of the log as its last
// connection closes).
func (c *walCheckpointer) close() {
	if c != nil {
		c.jobs.close()
	}
}
