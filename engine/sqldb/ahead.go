package sqldb

import (
	"cmp"
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// Sending ahead overlaps a long write's work with the database's: once
// the rows a transaction queued (ExecLaterRows) hold sendAheadValues
// values, they are sent at once, and the database inserts them while the
// write prepares the next. An atomic batch of 100 task creates otherwise
// inserted all its rows at the end: on PostgreSQL in the COMMIT's round
// trip (13 ms of it, 6-7 ms left sent ahead); on SQLite a quarter of its
// CPU, now on a second goroutine (a second core).
//
// A failure of what was sent ahead is the failure of the transaction's
// next statement or COMMIT, as a queued statement's always is. Whatever
// uses the transaction next reads that outcome first (drainAhead), so the
// statements still run in the order they were queued.

// sendAheadValues is how many queued values are sent ahead.
const sendAheadValues = 2048

// sentAhead is what was sent ahead, its outcome not read yet: a pgx
// batch (PostgreSQL) or the goroutine running the statements (SQLite).
type sentAhead struct {
	results    pgx.BatchResults
	statements []laterStatement
	done       chan error
}

// sendAhead sends what ExecLater queued without waiting for the outcome,
// after reading that of what it sent before.
func (t *Tx) sendAhead(ctx context.Context) {
	if t.drainAhead() != nil {
		return // the transaction has failed: it cannot commit
	}
	queued := t.pending()
	if t.sqlTx != nil {
		done := make(chan error, 1)
		go func() {
			defer func() {
				if p := recover(); p != nil { // the write's own goroutine would have recovered it
					done <- fmt.Errorf("statements sent ahead panicked: %v", p)
				}
			}()
			_, err := t.execEach(ctx, queued)
			done <- err
		}()
		t.ahead = &sentAhead{done: done}
		return
	}
	err := t.conn.Raw(func(driverConn any) error {
		batch := &pgx.Batch{}
		queueExec(batch, t.pool, queued)
		// t.batches: the connection is pgx's own.
		t.ahead = &sentAhead{results: driverConn.(*stdlib.Conn).Conn().SendBatch(ctx, batch), statements: queued}
		return nil
	})
	if err != nil {
		t.laterErr = err
	}
}

// SendQueued sends the rows ExecLaterRows queued ahead now, however few:
// a write that has queued its last ones (the creates of an atomic batch)
// lets the database insert them while it prepares its end. A database
// that cannot send ahead (a wrapped PostgreSQL driver) keeps them queued.
func (t *Tx) SendQueued(ctx context.Context) {
	if t.laterValues > 0 && t.sendsAhead() {
		t.sendAhead(ctx)
	}
}

// sendsAhead tells whether the transaction can send its queue ahead: on
// SQLite's connection, or on pgx's own (not behind a wrapping driver).
func (t *Tx) sendsAhead() bool { return t.batches || t.sqlTx != nil }

// drainAhead reads the outcome of what sendAhead sent, and returns the
// transaction's failure, if it has one.
func (t *Tx) drainAhead() error {
	a := t.ahead
	if a == nil {
		return t.laterErr
	}
	t.ahead = nil
	var err error
	if a.done != nil {
		err = <-a.done
	} else {
		err = t.conn.Raw(func(any) error {
			_, err := execResults(a.results, a.statements)
			return cmp.Or(err, a.results.Close())
		})
	}
	if err != nil && t.laterErr == nil {
		t.laterErr = err
	}
	return t.laterErr
}
