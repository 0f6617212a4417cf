// Package memstore keeps the tables of a store.Schema in memory: a
// store.Store for tests and disposable servers that passes the same suite
// (engine/store/storetest) as the SQL store. It reads rows with package
// store's evaluation of conditions, orders and expressions (eval.go).
//
// Committed data never changes. A write transaction works on its own copy,
// each call replacing the rows of the table it changes (so a call that
// fails leaves nothing), and its commit publishes the copy: reads never
// wait, and one writer runs at a time, as in SQLite. Values are copied on
// the way in and out. A rollback gives its series' numbers back, not its
// Seqs.
package memstore

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"

	"fieldapi/engine/store"
)

// Store is a store.Store in memory. It is safe for concurrent use.
type Store struct {
	reader    // of the committed state
	writing   sync.Mutex
	committed atomic.Pointer[state]
}

// state is the data at one moment.
type state struct {
	rows   map[[2]string][]row // by table and company ("" in a table without)
	series map[[2]string]int64 // by company and series: the next number (0: 1)
}

// reader reads a state: the committed one, or a transaction's own (nil
// once the transaction has ended).
type reader struct {
	tables map[string]*table
	at     *atomic.Pointer[state]
}

// Tx is a write transaction.
type Tx struct {
	reader
	own        atomic.Pointer[state]
	onRollback []func()
}

var (
	_ store.Store = (*Store)(nil)
	_ store.Tx    = (*Tx)(nil)

	errEnded = errors.New("memstore: the transaction has ended")
)

// New returns a store of schema's tables, empty.
func New(schema *store.Schema) (*Store, error) {
	if err := schema.Check(); err != nil {
		return nil, err
	}
	s := &Store{}
	s.reader = reader{tables: map[string]*table{}, at: &s.committed}
	for _, t := range schema.Tables {
		s.tables[t.Name] = newTable(t)
	}
	s.committed.Store(&state{rows: map[[2]string][]row{}, series: map[[2]string]int64{}})
	return s, nil
}

// Ping reports that the store answers: it always does.
func (s *Store) Ping(context.Context) error { return nil }

// Close does nothing: the data goes with the store.
func (s *Store) Close() error { return nil }

// Write runs fn in a transaction, one at a time. When fn fails or panics,
// its copy is dropped and the OnRollback functions run, last registered
// first, before the next write starts (a platform sharing the transaction
// gives its feed positions back before another write takes them).
func (s *Store) Write(ctx context.Context, fn func(ctx context.Context, tx store.Tx) error) error {
	s.writing.Lock()
	defer s.writing.Unlock()
	committed, tx := s.committed.Load(), &Tx{}
	tx.reader = reader{tables: s.tables, at: &tx.own}
	tx.own.Store(&state{rows: maps.Clone(committed.rows), series: maps.Clone(committed.series)})
	ok := false
	defer func() {
		if own := tx.own.Swap(nil); ok {
			s.committed.Store(own)
		} else {
			for _, undo := range slices.Backward(tx.onRollback) {
				undo()
			}
		}
	}()
	err := fn(ctx, tx)
	ok = err == nil
	return err
}

// find returns a table, the state to read it in and a company's rows of it
// in two new slices: those where refuses and those it selects (all of
// them when where is empty).
func (r reader) find(name, company string, where []store.Cond) (t *table, st *state, kept, found []row, err error) {
	if st = r.at.Load(); st == nil {
		return nil, nil, nil, nil, errEnded
	}
	if t = r.tables[name]; t == nil {
		return nil, nil, nil, nil, fmt.Errorf("memstore: no table %q in the schema", name)
	}
	rows := st.rows[t.key(company)]
	if len(where) == 0 { // a fast path for Insert and whole lists
		return t, st, nil, slices.Clone(rows), nil
	}
	if where, err = store.ResolveRows(where, func(q store.Select) ([]store.Row, error) { return r.Select(context.Background(), q) }); err != nil {
		return nil, nil, nil, nil, err
	}
	match, err := t.matcher(where)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	for _, r := range rows {
		if match(r) {
			found = append(found, r)
		} else {
			kept = append(kept, r)
		}
	}
	return t, st, kept, found, nil
}

// Select reads rows.
func (r reader) Select(ctx context.Context, q store.Select) ([]store.Row, error) {
	t, _, _, found, err := r.find(q.Table, q.Company, q.Where)
	if err != nil {
		return nil, err
	}
	return t.read(found, q)
}

// Count counts the rows that match.
func (r reader) Count(ctx context.Context, q store.Select) (int64, error) {
	_, _, _, found, err := r.find(q.Table, q.Company, q.Where)
	return int64(len(found)), err
}

// Counted counts a company's rows of a Counted table.
func (r reader) Counted(ctx context.Context, table, company string) (int64, error) {
	if t := r.tables[table]; t != nil && !t.Counted {
		return 0, fmt.Errorf("memstore: table %s is not Counted", t.Name)
	}
	return r.Count(ctx, store.Select{Table: table, Company: company})
}

// OnRollback registers fn to run if the transaction does not commit
// (ignored once it has ended). fn must not call the store.
func (tx *Tx) OnRollback(fn func()) {
	if tx.own.Load() != nil {
		tx.onRollback = append(tx.onRollback, fn)
	}
}

// Insert adds rows, all or none of them, each with the next seq, which
// the row's SeqText columns hold when it leaves them empty.
func (tx *Tx) Insert(ctx context.Context, table, company string, in []store.Values) ([]int64, error) {
	t, st, _, rows, err := tx.find(table, company, nil)
	if err != nil {
		return nil, err
	}
	from, seqs := len(rows), make([]int64, len(in))
	for i, vals := range in {
		r, err := t.values(vals)
		if err != nil {
			return nil, err
		}
		t.last++
		r[store.SeqField] = t.last
		for _, c := range t.Columns {
			if c.SeqText && r[c.Field] == nil {
				r[c.Field] = store.SeqText(t.last)
			}
		}
		if rows = append(rows, r); t.Seq {
			seqs[i] = t.last
		}
	}
	return seqs, t.put(st, company, rows, from)
}

// Update sets columns of the matching rows, all or none of them.
func (tx *Tx) Update(ctx context.Context, table, company string, where []store.Cond, set store.Values) (int64, error) {
	t, st, kept, found, err := tx.find(table, company, where)
	if err == nil {
		set, err = t.values(set)
	}
	if err != nil {
		return 0, err
	}
	for i := range found {
		found[i] = maps.Clone(found[i]) // stored rows never change
		maps.Copy(found[i], set)
	}
	return int64(len(found)), t.put(st, company, append(kept, found...), len(kept))
}

// Upsert updates the row whose conflict columns (a unique index) hold
// the row's values, setting its replace columns, or else inserts the row.
func (tx *Tx) Upsert(ctx context.Context, table, company string, in store.Values, conflict, replace []string) error {
	conflict = slices.Sorted(slices.Values(conflict))
	if t := tx.tables[table]; t != nil && !slices.ContainsFunc(t.uniques, func(ix store.Index) bool {
		return slices.Equal(slices.Sorted(slices.Values(ix.Fields)), conflict)
	}) {
		return fmt.Errorf("memstore: table %s has no unique index on %v", t.Name, conflict)
	}
	where, set := make([]store.Cond, len(conflict)), store.Values{}
	for i, f := range conflict {
		where[i] = store.OneOf(f, []any{in[f]}) // IN, not =: a NULL conflicts with nothing
	}
	for _, f := range replace {
		set[f] = in[f]
	}
	n, err := tx.Update(ctx, table, company, where, set)
	if err == nil && n == 0 {
		_, err = tx.Insert(ctx, table, company, []store.Values{in})
	}
	return err
}

// Delete removes the matching rows.
func (tx *Tx) Delete(ctx context.Context, table, company string, where []store.Cond) (int64, error) {
	t, st, kept, found, err := tx.find(table, company, where)
	if err != nil {
		return 0, err
	}
	return int64(len(found)), t.put(st, company, kept, len(kept))
}

// NextNumbers takes n consecutive numbers of a company's series; a
// rollback gives them back.
func (tx *Tx) NextNumbers(ctx context.Context, company, series string, n int) ([]int64, error) {
	if n < 1 {
		return nil, fmt.Errorf("memstore: %d numbers of series %q asked for", n, series)
	}
	first, err := tx.series(company, series, func(first int64) int64 { return first + int64(n) })
	return store.Consecutive(first, n), err
}

// AlignNumbers moves a series up so that its next number is at least next.
func (tx *Tx) AlignNumbers(ctx context.Context, company, series string, next int64) error {
	_, err := tx.series(company, series, func(first int64) int64 { return max(first, next) })
	return err
}

// ReturnNumbers moves a series back to from when it stands at next.
func (tx *Tx) ReturnNumbers(ctx context.Context, company, series string, from, next int64) error {
	_, err := tx.series(company, series, func(first int64) int64 {
		if first == next && from < next {
			return from
		}
		return first
	})
	return err
}

// series moves a series' next number from first to move(first) and
// returns first.
func (tx *Tx) series(company, name string, move func(first int64) int64) (int64, error) {
	st := tx.own.Load()
	if st == nil {
		return 0, errEnded
	}
	k := [2]string{company, name}
	first := max(st.series[k], 1)
	st.series[k] = move(first)
	return first, nil
}
