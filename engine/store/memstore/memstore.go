// Package memstore keeps the tables of a store.Schema in memory: a
// store.Store for tests and disposable servers that passes the same suite
// (engine/store/storetest) as the SQL store.
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
	"strconv"
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

// table returns a table and the state to read it in, or why a call cannot run.
func (r reader) table(name string) (*table, *state, error) {
	st := r.at.Load()
	if st == nil {
		return nil, nil, errEnded
	}
	if t := r.tables[name]; t != nil {
		return t, st, nil
	}
	return nil, nil, fmt.Errorf("memstore: no table %q in the schema", name)
}

// find returns the table of a query and its rows that match the Where.
func (r reader) find(q store.Select) (*table, []row, error) {
	t, st, err := r.table(q.Table)
	if err != nil {
		return nil, nil, err
	}
	match, err := t.matcher(q.Where)
	if err != nil {
		return nil, nil, err
	}
	_, found := split(st.rows[t.key(q.Company)], match)
	return t, found, nil
}

// Select reads rows.
func (r reader) Select(ctx context.Context, q store.Select) ([]store.Row, error) {
	t, found, err := r.find(q)
	if err != nil {
		return nil, err
	}
	return t.read(found, q)
}

// Count counts the rows that match.
func (r reader) Count(ctx context.Context, q store.Select) (int64, error) {
	_, found, err := r.find(q)
	return int64(len(found)), err
}

// Estimate counts: a count costs memory no more than an estimate.
func (r reader) Estimate(ctx context.Context, q store.Select) (int64, bool, error) {
	n, err := r.Count(ctx, q)
	return n, true, err
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

// Insert adds rows, all or none of them.
func (tx *Tx) Insert(ctx context.Context, table, company string, in []store.Values) ([]int64, error) {
	t, st, err := tx.table(table)
	if err != nil {
		return nil, err
	}
	k := t.key(company)
	rows, seqs := slices.Clip(st.rows[k]), make([]int64, len(in))
	for i, vals := range in {
		r, err := t.newRow(vals)
		if err != nil {
			return nil, err
		}
		if rows = append(rows, r); t.Seq {
			seqs[i] = r.seq
		}
	}
	return seqs, t.put(st, k, rows, len(st.rows[k]))
}

// Update sets columns of the matching rows, all or none of them.
func (tx *Tx) Update(ctx context.Context, table, company string, where []store.Cond, set store.Values) (int64, error) {
	t, st, err := tx.table(table)
	if err != nil {
		return 0, err
	}
	match, err := t.matcher(where)
	if err == nil {
		set, err = t.values(set)
	}
	if err != nil {
		return 0, err
	}
	k := t.key(company)
	kept, found := split(st.rows[k], match)
	for i := range found {
		found[i].vals = maps.Clone(found[i].vals) // stored maps never change
		maps.Copy(found[i].vals, set)
	}
	return int64(len(found)), t.put(st, k, append(kept, found...), len(kept))
}

// Upsert updates the row whose conflict columns (a unique index) hold
// the row's values, setting its replace columns, or else inserts the row.
func (tx *Tx) Upsert(ctx context.Context, table, company string, in store.Values, conflict, replace []string) error {
	t, _, err := tx.table(table)
	if err != nil {
		return err
	}
	if !slices.ContainsFunc(t.uniques, func(ix store.Index) bool {
		return slices.Equal(slices.Sorted(slices.Values(ix.Fields)), slices.Sorted(slices.Values(conflict)))
	}) {
		return fmt.Errorf("memstore: table %s has no unique index on %v", t.Name, conflict)
	}
	var where []store.Cond
	for _, f := range conflict {
		where = append(where, store.OneOf(f, []any{in[f]})) // IN, not =: a NULL conflicts with nothing
	}
	set := store.Values{}
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
	t, st, err := tx.table(table)
	if err != nil {
		return 0, err
	}
	match, err := t.matcher(where)
	if err != nil {
		return 0, err
	}
	k := t.key(company)
	kept, found := split(st.rows[k], match)
	return int64(len(found)), t.put(st, k, kept, len(kept))
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

// NextFreeNumber takes the series' next number and looks for it among
// the keys of table's field.
func (tx *Tx) NextFreeNumber(ctx context.Context, company, series, table, field string) (int64, bool, error) {
	numbers, err := tx.NextNumbers(ctx, company, series, 1)
	if err != nil {
		return 0, false, err
	}
	used, err := tx.Count(ctx, store.Select{Table: table, Company: company,
		Where: []store.Cond{store.Equal(field, strconv.FormatInt(numbers[0], 10))}})
	return numbers[0], used == 0, err
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
