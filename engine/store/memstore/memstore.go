// Package memstore keeps the tables of a store.Schema in memory: a
// store.Store for tests and disposable servers, passing the same suite
// (engine/store/storetest) as the SQL store.
//
// One sync.RWMutex guards everything: reads outside a transaction take the
// read lock, Write holds the write lock for the whole transaction (one
// writer at a time, like SQLite). A transaction changes the data as it goes
// and logs how to undo each change: fn failing or panicking plays the log
// back. Values are copied on the way in and out. A rolled-back transaction
// gives its series' numbers back, not its Seqs.
//
// Files: memstore.go (the store and its transactions), table.go (rows,
// values, unique keys, conditions), expr.go (the expressions of Exprs).
package memstore

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"
	"sync/atomic"

	"fieldapi/engine/store"
)

// Store is a store.Store in memory. It is safe for concurrent use.
type Store struct {
	mu     sync.RWMutex
	tables map[string]*table
	series map[[2]string]int64 // by company and series: the next number (0: 1)
}

var (
	_ store.Store = (*Store)(nil)
	_ store.Tx    = (*Tx)(nil)
)

// New returns a store of schema's tables, empty.
func New(schema *store.Schema) (*Store, error) {
	if err := schema.Check(); err != nil {
		return nil, err
	}
	s := &Store{tables: map[string]*table{}, series: map[[2]string]int64{}}
	for _, t := range schema.Tables {
		s.tables[t.Name] = newTable(t)
	}
	return s, nil
}

// Ping reports that the store answers: it always does.
func (s *Store) Ping(context.Context) error { return nil }

// Close does nothing: the data goes with the store.
func (s *Store) Close() error { return nil }

// Select reads rows outside a transaction.
func (s *Store) Select(ctx context.Context, q store.Select) ([]store.Row, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.selectRows(q)
}

// Count counts rows outside a transaction.
func (s *Store) Count(ctx context.Context, q store.Select) (int64, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	_, found, err := s.find(q)
	return int64(len(found)), err
}

// Counted reads a company's row count of a Counted table.
func (s *Store) Counted(ctx context.Context, table, company string) (int64, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.counted(table, company)
}

// Write runs fn in a transaction holding the write lock. When fn fails or
// panics, its changes are undone and the OnRollback functions run, last
// registered first, still under the lock, so no other write sees the
// state between (a platform sharing the transaction gives its feed
// positions back before the next write takes one); OnRollback functions
// must not call the store. Then the lock is released and a panic goes on.
func (s *Store) Write(ctx context.Context, fn func(ctx context.Context, tx store.Tx) error) error {
	tx := &Tx{s: s}
	s.mu.Lock()
	committed := false
	defer func() {
		tx.done.Store(true)
		if !committed {
			tx.rollbackTo(0)
			for i := len(tx.onRollback) - 1; i >= 0; i-- {
				tx.onRollback[i]()
			}
		}
		s.mu.Unlock()
	}()
	err := fn(ctx, tx)
	committed = err == nil
	return err
}

// The methods below run under a lock their caller holds.

func (s *Store) table(name string) (*table, error) {
	if t := s.tables[name]; t != nil {
		return t, nil
	}
	return nil, fmt.Errorf("memstore: no table %q in the schema", name)
}

// find returns the table of a Select and its rows that match the Where.
func (s *Store) find(q store.Select) (*table, []*row, error) {
	t, err := s.table(q.Table)
	if err != nil {
		return nil, nil, err
	}
	found, err := t.find(q.Company, q.Where)
	return t, found, err
}

func (s *Store) selectRows(q store.Select) ([]store.Row, error) {
	t, found, err := s.find(q)
	if err != nil {
		return nil, err
	}
	fields := t.fields
	if q.Columns != nil {
		fields = q.Columns
		for _, f := range fields {
			if t.cols[f] == nil {
				return nil, t.noColumn(f)
			}
		}
	}
	if found, err = t.sortAndSkip(q, found); err != nil {
		return nil, err
	}
	found = found[min(max(q.Offset, 0), len(found)):]
	if q.Limit > 0 && q.Limit < len(found) {
		found = found[:q.Limit]
	}
	out := make([]store.Row, len(found))
	for i, r := range found {
		out[i] = t.read(r, fields, q.Exprs)
	}
	return out, nil
}

func (s *Store) counted(table, company string) (int64, error) {
	t, err := s.table(table)
	if err == nil && !t.Counted {
		err = fmt.Errorf("memstore: table %s is not Counted", t.Name)
	}
	if err != nil {
		return 0, err
	}
	return int64(len(t.rows[t.company(company)])), nil
}

// Tx is a transaction of the store. It runs under the write lock its
// Write holds, and never takes a lock itself.
type Tx struct {
	s          *Store
	done       atomic.Bool // ended: every call fails
	undo       []func()    // how to undo each change so far
	onRollback []func()
}

var errEnded = errors.New("memstore: the transaction has ended")

// begin returns the table of a call, or why the call cannot run.
func (tx *Tx) begin(table string) (*table, error) {
	if tx.done.Load() {
		return nil, errEnded
	}
	return tx.s.table(table)
}

// put gives r the values vals (nil: deletes it) if the table allows them,
// and logs how to undo it.
func (tx *Tx) put(t *table, r *row, vals store.Values) error {
	if err := t.allows(r, vals); err != nil {
		return err
	}
	old := r.vals
	t.put(r, vals)
	tx.undo = append(tx.undo, func() { t.put(r, old) })
	return nil
}

// rollbackTo undoes the changes after the first mark ones: all of a
// transaction, or all of one call that fails.
func (tx *Tx) rollbackTo(mark int) {
	for i := len(tx.undo) - 1; i >= mark; i-- {
		tx.undo[i]()
	}
	tx.undo = tx.undo[:mark]
}

// Select reads rows in the transaction, its own writes included.
func (tx *Tx) Select(ctx context.Context, q store.Select) ([]store.Row, error) {
	if _, err := tx.begin(q.Table); err != nil {
		return nil, err
	}
	return tx.s.selectRows(q)
}

// Count counts rows in the transaction.
func (tx *Tx) Count(ctx context.Context, q store.Select) (int64, error) {
	if _, err := tx.begin(q.Table); err != nil {
		return 0, err
	}
	_, found, err := tx.s.find(q)
	return int64(len(found)), err
}

// Counted reads a company's row count in the transaction.
func (tx *Tx) Counted(ctx context.Context, table, company string) (int64, error) {
	if _, err := tx.begin(table); err != nil {
		return 0, err
	}
	return tx.s.counted(table, company)
}

// OnRollback registers fn to run if the transaction does not commit
// (ignored once it has ended).
func (tx *Tx) OnRollback(fn func()) {
	if !tx.done.Load() {
		tx.onRollback = append(tx.onRollback, fn)
	}
}

// Insert adds rows, all or none of them, each SeqText column a row
// leaves empty holding its Seq.
func (tx *Tx) Insert(ctx context.Context, table, company string, rows []store.Values) ([]int64, error) {
	t, err := tx.begin(table)
	if err != nil {
		return nil, err
	}
	mark, seqs := len(tx.undo), make([]int64, len(rows))
	for i, in := range rows {
		t.last++
		r := &row{ord: t.last, company: t.company(company)}
		vals, err := t.values(in)
		if err == nil {
			t.fillSeqText(vals, r.ord)
			err = tx.put(t, r, vals)
		}
		if err != nil {
			tx.rollbackTo(mark)
			return nil, err
		}
		if t.Seq {
			seqs[i] = r.ord
		}
	}
	return seqs, nil
}

// Update sets columns of the matching rows, all or none of them.
func (tx *Tx) Update(ctx context.Context, table, company string, where []store.Cond, set store.Values) (int64, error) {
	t, err := tx.begin(table)
	if err != nil {
		return 0, err
	}
	found, err := t.find(company, where)
	if err == nil {
		set, err = t.values(set)
	}
	mark := len(tx.undo)
	for _, r := range found {
		if err == nil {
			vals := maps.Clone(r.vals)
			maps.Copy(vals, set) // rows may share values: they never change
			err = tx.put(t, r, vals)
		}
	}
	if err != nil {
		tx.rollbackTo(mark)
		return 0, err
	}
	return int64(len(found)), nil
}

// Upsert inserts a row, or sets the replace columns of the row its
// conflict columns (the primary key or a unique index) find.
func (tx *Tx) Upsert(ctx context.Context, table, company string, in store.Values, conflict, replace []string) error {
	t, err := tx.begin(table)
	if err != nil {
		return err
	}
	vals, err := t.values(in)
	if err != nil {
		return err
	}
	for _, f := range replace {
		if t.cols[f] == nil {
			return t.noColumn(f)
		}
	}
	u := t.uniqueOn(conflict)
	if u == nil {
		return fmt.Errorf("memstore: table %s has no unique index on %v", t.Name, conflict)
	}
	old := u.rows[t.key(u, &row{company: t.company(company)}, vals)]
	if old == nil {
		_, err := tx.Insert(ctx, table, company, []store.Values{in})
		return err
	}
	if len(replace) == 0 {
		return nil
	}
	next := maps.Clone(old.vals)
	for _, f := range replace {
		next[f] = vals[f]
	}
	return tx.put(t, old, next)
}

// Delete removes the matching rows.
func (tx *Tx) Delete(ctx context.Context, table, company string, where []store.Cond) (int64, error) {
	t, err := tx.begin(table)
	if err != nil {
		return 0, err
	}
	found, err := t.find(company, where)
	for i := len(found) - 1; i >= 0; i-- { // from the end: less to move
		tx.put(t, found[i], nil)
	}
	return int64(len(found)), err
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
	if tx.done.Load() {
		return 0, errEnded
	}
	k := [2]string{company, name}
	old := tx.s.series[k]
	first := max(old, 1)
	tx.s.series[k] = move(first)
	tx.undo = append(tx.undo, func() { tx.s.series[k] = old })
	return first, nil
}
