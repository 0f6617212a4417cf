package sqldb

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// Sending ahead overlaps a long write's work with PostgreSQL's: once
// the rows a transaction queued (ExecLaterRows) hold sendAheadValues
// values, they are sent at once, and the server inserts them while the
// write goes on preparing the next; their answers are read before the
// transaction's next statement. An atomic batch of 100 task creates
// otherwise sent all its rows with the COMMIT, whose round trip (13 ms,
// the server inserting them) came after the 27 ms of Go that made them;
// sent ahead, 6-7 ms are left to it. A write of a few records queues
// fewer values and is sent as before, with its next statement or its
// COMMIT.
//
// A failure of what was sent ahead is the failure of the transaction's
// next statement (or of its COMMIT), as a queued statement's always is:
// sending never fails the call that queued.

// sendAheadValues is how many queued values are sent ahead.
const sendAheadValues = 2048

// sentAhead is a pgx batch sent ahead, its answers not read yet.
type sentAhead struct {
	results    pgx.BatchResults
	statements []laterStatement
}

// sendAhead sends what ExecLater queued without waiting for the answers,
// after reading those of what it sent before.
func (t *Tx) sendAhead(ctx context.Context) {
	if t.drainAhead() != nil {
		return // the transaction has failed: it cannot commit
	}
	queued := t.pending()
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

// drainAhead reads the answers of what sendAhead sent, and returns the
// transaction's failure, if it has one.
func (t *Tx) drainAhead() error {
	a := t.ahead
	if a == nil {
		return t.laterErr
	}
	t.ahead = nil
	err := t.conn.Raw(func(any) error {
		_, err := execResults(a.results, a.statements)
		if closed := a.results.Close(); err == nil {
			err = closed
		}
		return err
	})
	if err != nil && t.laterErr == nil {
		t.laterErr = err
	}
	return t.laterErr
}
