package write

import (
	"context"
	"errors"

	"fieldapi/engine/store"
)

// seqPool holds the Seqs an atomic batch took ahead for its creates' rows,
// by table (store.SeqTaker): a create given its Seqs inserts without
// waiting on the store, and like creates (engine.LikeWrites) take theirs at
// once. An unused Seq is a gap, as a rolled-back insert leaves.
type seqPool struct {
	free map[string][]int64
	off  bool // the store takes none ahead: creates insert as alone
}

func newSeqPool() *seqPool { return &seqPool{free: map[string][]int64{}} }

// maxPooledSeqs caps what one take asks of a table.
const maxPooledSeqs = 20000

// take returns want[table] Seqs of each table, taking like times as many
// when the pool runs short; false when the store takes none ahead, or
// when the pool is short and no like write follows (taking a create's
// own Seqs would cost the round trip it saves).
func (p *seqPool) take(ctx context.Context, tx store.Tx, want map[string]int, like int) (map[string][]int64, bool, error) {
	taker, ok := tx.(store.SeqTaker)
	if p.off || !ok {
		p.off = true
		return nil, false, nil
	}
	short := map[string]int{}
	for table, n := range want {
		if len(p.free[table]) < n {
			short[table] = max(n, min(n*like, maxPooledSeqs))
		}
	}
	if len(short) > 0 && like < 2 {
		return nil, false, nil
	}
	if len(short) > 0 {
		got, ok, err := taker.TakeSeqs(ctx, short)
		if err != nil || !ok {
			p.off = err == nil
			return nil, false, err
		}
		for table, seqs := range got {
			p.free[table] = append(p.free[table], seqs...)
		}
	}
	out := make(map[string][]int64, len(want))
	for table, n := range want {
		out[table], p.free[table] = p.free[table][:n:n], p.free[table][n:]
	}
	return out, true, nil
}

// insert runs a create's inserts (its record's, then its line lists') and
// the reads after them, and returns each insert's Seqs and each read's
// rows; refused names the failure of insert i. In an atomic batch whose
// store takes Seqs ahead, inserts with nothing to read after them take
// theirs from the pool and do not wait (PostgreSQL sends them with the
// next statement; a failure still reaches refused); otherwise they run
// together and wait (store.InsertEach: one round trip on PostgreSQL).
func (w *Writer) insert(ctx context.Context, r string, inserts []store.Insertion, reads []store.Select, refused func(i int, err error) error) ([][]int64, [][]store.Row, error) {
	if len(reads) == 0 && w.seqs != nil {
		want := map[string]int{}
		for _, in := range inserts {
			if len(in.Rows) > 0 {
				want[in.Table] += len(in.Rows)
			}
		}
		taken, ok, err := w.seqs.take(ctx, w.tx, want, w.like(r))
		if err != nil {
			return nil, nil, err
		}
		if ok {
			taker := w.tx.(store.SeqTaker)
			seqs := make([][]int64, len(inserts))
			for i, in := range inserts {
				n := len(in.Rows)
				seqs[i], taken[in.Table] = taken[in.Table][:n:n], taken[in.Table][n:]
				if err := taker.InsertLater(ctx, in.Table, in.Company, in.Rows, seqs[i], func(err error) error { return refused(i, err) }); err != nil {
					return nil, nil, refused(i, err)
				}
			}
			return seqs, nil, nil
		}
	}
	seqs, read, err := store.InsertEach(ctx, w.tx, inserts, reads)
	if failed := (*store.InsertionError)(nil); errors.As(err, &failed) {
		return nil, nil, refused(failed.Index, failed.Err)
	}
	return seqs, read, err
}
