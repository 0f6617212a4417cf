package write

import (
	"context"
	"fmt"
	"strings"

	"fieldapi/engine"
	"fieldapi/engine/pipeline/settings"
	"fieldapi/engine/platform"
	"fieldapi/engine/store"
)

// A joined transaction is how the writes of an atomic batch share one
// store transaction: Atomically puts it in the context, and every write of
// this engine that finds it there runs in it. The writes also share what
// they read ahead (less the records of the registers a write changed),
// their events, recorded once at the end, and the numbers (numberPool)
// and Seqs (seqPool) taken ahead for their creates.
type joinedKey struct{}

type joined struct {
	e  *Writes
	s  engine.Session
	tx store.Tx

	refs     map[string]map[string]engine.Record // the writers' reference cache, lent to each
	settings *settings.Company                   // the company's settings, once read
	events   []platform.Event                    // events of the writes so far
	numbers  *numberPool                         // numbers taken ahead for the writes
	seqs     *seqPool                            // Seqs taken ahead for the creates' rows
}

// Atomically runs fn with every write of the engine in one transaction
// (engine.Atomic); the response fn returns is settled under claim in it.
func (e *Writes) Atomically(ctx context.Context, s engine.Session, claim engine.Claim, fn func(ctx context.Context) (engine.Response, error)) (engine.Response, error) {
	if j, _ := ctx.Value(joinedKey{}).(*joined); j != nil {
		return engine.Response{}, fmt.Errorf("pipeline: Atomically inside Atomically")
	}
	var resp engine.Response
	err := e.store.Write(ctx, func(ctx context.Context, tx store.Tx) error {
		j := &joined{e: e, s: s, tx: tx, refs: map[string]map[string]engine.Record{},
			numbers: newNumberPool(), seqs: newSeqPool()}
		var err error
		if resp, err = fn(context.WithValue(ctx, joinedKey{}, j)); err != nil {
			return err
		}
		if sender, ok := tx.(store.Sender); ok {
			sender.SendQueued(ctx) // the last creates' rows, inserted while the events are written
		}
		if err := j.numbers.giveBack(ctx, tx, s.Company); err != nil {
			return err
		}
		writes, err := e.platform.Bind(tx)
		if err != nil {
			return err
		}
		if len(j.events) > 0 {
			if err := writes.Record(ctx, s.Company, j.events); err != nil {
				return err
			}
		}
		return writes.Settle(ctx, claim, resp)
	})
	return resp, err
}

// joinedTx is the Atomically call ctx runs in, nil outside one. A write of
// another session inside it is refused: the HTTP layer gives a batch's
// operations the batch's session, and a write that opened a transaction
// of its own there would wait for the joined one.
func (e *Writes) joinedTx(ctx context.Context, s engine.Session) (*joined, error) {
	j, _ := ctx.Value(joinedKey{}).(*joined)
	if j == nil || j.e != e {
		return nil, nil
	}
	if j.s != s {
		return nil, fmt.Errorf("pipeline: a write of another session inside Atomically")
	}
	return j, nil
}

// lend gives a write of the batch the caches the earlier ones filled.
func (j *joined) lend(w *Writer) {
	w.refs, w.settings, w.numbers, w.seqs = j.refs, j.settings, j.numbers, j.seqs
}

// keep takes what a write of the batch noted for its end, and forgets the
// cached records of the registers it wrote. Its change log is appended
// now: PostgreSQL then writes it while the next writes run (at the end it
// was 5 ms of a batch of 100 task creates that nothing overlapped).
func (j *joined) keep(ctx context.Context, w *Writer, rec engine.Record) error {
	if err := w.flushLog(ctx); err != nil {
		return err
	}
	j.events = append(j.events, w.platformEvents(rec)...)
	if w.settings != nil {
		j.settings = w.settings
	}
	if w.refs != nil {
		j.refs = w.refs
	}
	for name := range j.refs {
		register, _, _ := strings.Cut(name, "/") // a cache by lookup key: products/by-Barcode (refTarget.cacheName)
		if w.touched[register] {
			delete(j.refs, name)
		}
	}
	return nil
}

// ReadAhead reads, inside Atomically, the records the planned writes
// reference into the batch's cache (engine.Atomic): one query per
// referenced register. A write of an unknown register fails when it runs.
func (e *Writes) ReadAhead(ctx context.Context, s engine.Session, writes []engine.PlannedWrite) error {
	j, err := e.joinedTx(ctx, s)
	if err != nil || j == nil {
		return err // outside Atomically there is no batch to read for
	}
	planned := make([]plannedInput, 0, len(writes))
	for _, pw := range writes {
		if r := e.registers[pw.Register]; r != nil {
			planned = append(planned, plannedInput{r, pw.Input, pw.Create})
		}
	}
	w := e.newWriter(s)
	w.tx = j.tx
	j.lend(w)
	if err := w.prefetch(ctx, planned...); err != nil {
		return err
	}
	j.refs = w.refs
	return nil
}
