package sqldb

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"fieldapi/engine"
)

// writeQueue commits SQLite's write transactions in groups: the writes
// that queued while one group ran run next, one after the other in one
// transaction, each inside a savepoint of its own, and commit together.
// SQLite's writes run one at a time anyway; a group saves the commit each
// paid alone, which wrote every page it touched to the log again (a
// quarter of a PATCH's time): pages many writes touch (an index's right
// edge, the change log, the outbox) are written once per group.
//
// A write is still all or nothing: one that fails rolls back to its
// savepoint (its OnRollback functions run) and the others go on, seeing
// each other's changes as one after the other. A write answers once its
// group has committed; alone, it runs without a savepoint.
//
// The first write to find no group running leads: it runs the group of
// every write then waiting (itself first), then hands the lead to the
// next write waiting, as LevelDB's writers do, so no caller runs others'
// writes for longer than one group.
type writeQueue struct {
	mu      sync.Mutex
	waiting []*queuedWrite
	leading bool // a group runs or is about to

	groups, grouped atomic.Int64 // transactions committed, the writes they held (Stats)
}

// maxGroup bounds a group: its writes wait for each other's.
const maxGroup = 16

type queuedWrite struct {
	ctx   context.Context
	fn    func(ctx context.Context, tx *Tx) error
	state writeState    // guarded by writeQueue.mu
	turn  chan struct{} // closed when the write leads or has its answer
	tx    *Tx
	err   error
	// panicked is what fn panicked with while another write's call ran
	// the group: the write's own call panics with it.
	panicked any
}

type writeState int

const (
	queued  writeState = iota // waiting; its caller may still give up
	leading                   // runs the next group
	taken                     // in a group: its caller waits for the answer
)

// write runs fn in a group and returns its answer; run executes a group.
func (q *writeQueue) write(ctx context.Context, fn func(ctx context.Context, tx *Tx) error, run func(group []*queuedWrite)) error {
	w := &queuedWrite{ctx: ctx, fn: fn, turn: make(chan struct{})}
	q.mu.Lock()
	q.waiting = append(q.waiting, w)
	if !q.leading {
		q.leading = true
		w.state = leading
		close(w.turn)
	}
	q.mu.Unlock()

	select {
	case <-w.turn:
	case <-ctx.Done():
		q.mu.Lock()
		if w.state == queued { // not run yet: leave the queue, nothing written
			q.waiting = slices.DeleteFunc(q.waiting, func(x *queuedWrite) bool { return x == w })
			q.mu.Unlock()
			return nothingWritten(ctx.Err())
		}
		q.mu.Unlock()
		<-w.turn // taken or leading: it runs, and its caller learns how it went
	}
	q.mu.Lock()
	lead := w.state == leading
	q.mu.Unlock()
	if lead {
		q.lead(run)
	}
	if w.panicked != nil {
		panic(w.panicked)
	}
	return w.err
}

// lead runs the group of the writes waiting (the leader first), answers
// them and hands the lead on.
func (q *writeQueue) lead(run func(group []*queuedWrite)) {
	q.mu.Lock()
	n := min(len(q.waiting), maxGroup)
	group := q.waiting[:n:n]
	q.waiting = slices.Clone(q.waiting[n:]) // removing a write from it must not shift group
	for _, w := range group {
		w.state = taken
	}
	q.mu.Unlock()

	run(group)

	q.mu.Lock()
	if len(q.waiting) > 0 {
		next := q.waiting[0]
		next.state = leading
		close(next.turn)
	} else {
		q.leading = false
	}
	q.mu.Unlock()
	for _, w := range group[1:] { // group[0] is the leader, whose turn is closed
		close(w.turn)
	}
}

// runGroup runs a group in one transaction and commits it, leaving each
// write's answer in it.
func (db *DB) runGroup(group []*queuedWrite) {
	// The gate orders the group with this process's other writes
	// (Autocommit); the group's own context is no one caller's.
	ctx := context.WithoutCancel(group[0].ctx)
	leave, _ := db.writers.enter(ctx)
	defer leave()
	for len(group) > 0 {
		group = db.runTransaction(ctx, group)
	}
}

// runTransaction runs writes in one transaction and commits it. Should
// the transaction end before the last has run (a write's failure ended
// it: a full disk, a statement interrupted outside Tx's methods), the
// writes it held answer engine.ErrBusy, having written nothing, and the
// writes not run yet are returned, to run in a transaction of their own.
func (db *DB) runTransaction(ctx context.Context, group []*queuedWrite) (notRun []*queuedWrite) {
	sqlTx, err := db.pool.BeginTxx(ctx, nil)
	if err != nil {
		for _, w := range group {
			w.err = nothingWritten(err)
		}
		return nil
	}
	alone := len(group) == 1
	var held []*queuedWrite // the writes the transaction holds
	for i, w := range group {
		w.tx = &Tx{sqlTx: sqlTx, run: sqlTx, pool: db.pool, Dialect: db.dialect, grouped: !alone}
		if err := db.runInGroup(ctx, w, alone); err != nil {
			_ = sqlTx.Rollback()
			lost := wrapFault(engine.ErrBusy, fmt.Errorf("the transaction shared with another write ended with its failure: %w", err))
			undoAll(held, lost)
			return group[i+1:]
		}
		if w.err == nil {
			held = append(held, w)
		}
	}
	if len(held) == 0 {
		_ = sqlTx.Rollback()
		return nil
	}
	if err := sqlTx.Commit(); err != nil {
		undoAll(held, err)
		return nil
	}
	db.queue.groups.Add(1)
	db.queue.grouped.Add(int64(len(held)))
	for range held {
		db.wal.committed()
	}
	return nil
}

// undoAll answers err to writes a transaction held that did not
// commit, undoing them last first.
func undoAll(held []*queuedWrite, err error) {
	for _, w := range slices.Backward(held) {
		w.tx.undo()
		w.err = err
	}
}

// runInGroup runs one write of a group inside a savepoint (none when it
// is alone), leaving its answer in w; a write that fails is rolled back
// to its savepoint. It returns an error when the transaction itself ended.
func (db *DB) runInGroup(ctx context.Context, w *queuedWrite, alone bool) error {
	if alone {
		if w.err = w.call(); w.err != nil {
			w.tx.undo()
			w.err = nothingWritten(w.err) // the transaction rolls back as a whole
		}
		return nil
	}
	if _, err := w.tx.sqlTx.ExecContext(ctx, `SAVEPOINT "write"`); err != nil {
		w.err = nothingWritten(err)
		return err
	}
	if w.err = w.call(); w.err != nil {
		w.tx.undo()
		w.err = nothingWritten(w.err)
		if _, err := w.tx.sqlTx.ExecContext(ctx, `ROLLBACK TO "write"`); err != nil {
			return err
		}
	}
	_, err := w.tx.sqlTx.ExecContext(ctx, `RELEASE "write"`)
	if err != nil && w.err == nil {
		w.tx.undo()
		w.err = nothingWritten(err)
	}
	return err
}

// call runs the write's fn, catching a panic so the group's other writes
// get their answers; the write's own call panics with it.
func (w *queuedWrite) call() (err error) {
	defer func() {
		if p := recover(); p != nil {
			w.panicked = p
			err = fmt.Errorf("write panicked: %v", p)
		}
		if err != nil {
			_ = w.tx.drainAhead() // nothing sent ahead may run past the rollback
		}
	}()
	if err := w.fn(w.ctx, w.tx); err != nil {
		return err
	}
	return w.tx.flushBefore(w.ctx) // what ExecLaterRows queued: part of this write, under its savepoint
}
