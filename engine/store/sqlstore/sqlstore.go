// Package sqlstore keeps the tables of a store.Schema in SQLite or
// PostgreSQL, one code path for both (the differences are engine/sqldb's
// Dialect). It stores rows and knows no business rule.
//
// Files: sqlstore.go (the store and its transactions), query.go (SELECT
// and conditions), write.go (INSERT, UPDATE, upserts, DELETE), counts.go
// (number series and row counts), migrate.go and evolve.go (the schema's
// tables, columns and indexes, and the plan of a migration).
package sqlstore

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"fieldapi/engine/sqldb"
	"fieldapi/engine/store"
)

// Store is a store.Store on one SQL database. It is safe for concurrent use.
type Store struct {
	db        *sqldb.DB
	schema    *store.Schema
	tables    map[string]*table
	unmerged  atomic.Int64   // delta rows of the counts written since the last merge (counts.go)
	deltas    *sqldb.Sweeper // vacuums the delta rows the merges delete (PostgreSQL)
	sequences sync.Map       // names of the PostgreSQL sequences of number series known to exist (counts.go)
}

var (
	_ store.Store        = (*Store)(nil)
	_ store.EachSelector = (*Store)(nil)
	_ store.Estimator    = (*Store)(nil)
	_ store.NumberTaker  = (*Store)(nil)
)

// New keeps schema's tables on db. Migrate creates what is missing.
func New(db *sqldb.DB, schema *store.Schema) (*Store, error) {
	if err := schema.Check(); err != nil {
		return nil, err
	}
	s := &Store{db: db, schema: schema, tables: map[string]*table{}, deltas: db.Sweeper(countDeltasTable)}
	for _, t := range schema.Tables {
		if isOwnTable(t.Name) {
			return nil, fmt.Errorf("sqlstore: table name %q is the store's own", t.Name)
		}
		s.tables[t.Name] = newTable(t)
	}
	return s, nil
}

// DB is the database the store keeps its tables in.
func (s *Store) DB() *sqldb.DB { return s.db }

// Ping reports whether the database answers.
func (s *Store) Ping(ctx context.Context) error { return s.db.Ping(ctx) }

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// Select reads rows outside a transaction.
func (s *Store) Select(ctx context.Context, q store.Select) ([]store.Row, error) {
	return read(ctx, s, func(ctx context.Context, db sqldb.Querier) ([]store.Row, error) {
		return s.selectRows(ctx, db, q, false)
	})
}

// SelectEach reads independent selects outside a transaction, under one
// call budget: PostgreSQL is sent them in one round trip.
func (s *Store) SelectEach(ctx context.Context, qs []store.Select) ([][]store.Row, error) {
	return s.selectEach(ctx, qs, false, s.db.ReadEach)
}

// selectEach runs selects through readEach, a ReadEach of the database or
// of a transaction (inTx: ForUpdate holds).
func (s *Store) selectEach(ctx context.Context, qs []store.Select, inTx bool,
	readEach func(ctx context.Context, queries []sqldb.Query, read func(i int, rows sqldb.Rows) error) error) ([][]store.Row, error) {
	queries, selects, err := s.selectsAfter(make([]sqldb.Query, 0, len(qs)), qs, inTx)
	if err != nil {
		return nil, err
	}
	if err := readEach(ctx, queries, selects.scan); err != nil {
		return nil, err
	}
	return selects.rows, nil
}

// Count counts rows outside a transaction.
func (s *Store) Count(ctx context.Context, q store.Select) (int64, error) {
	return read(ctx, s, func(ctx context.Context, db sqldb.Querier) (int64, error) { return s.count(ctx, db, q) })
}

// Counted reads a company's row count of a Counted table.
func (s *Store) Counted(ctx context.Context, table, company string) (int64, error) {
	return read(ctx, s, func(ctx context.Context, db sqldb.Querier) (int64, error) { return s.counted(ctx, db, table, company) })
}

// read runs fn outside a transaction (sqldb.DB.Read) and returns what it
// read.
func read[T any](ctx context.Context, s *Store, fn func(ctx context.Context, db sqldb.Querier) (T, error)) (T, error) {
	var out T
	err := s.db.Read(ctx, func(ctx context.Context, db sqldb.Querier) error {
		var err error
		out, err = fn(ctx, db)
		return err
	})
	return out, err
}

// Write runs fn in one transaction of the database.
func (s *Store) Write(ctx context.Context, fn func(ctx context.Context, tx store.Tx) error) error {
	deltas := 0
	var created []string
	err := s.db.Write(ctx, func(ctx context.Context, sqlTx *sqldb.Tx) error {
		tx := &Tx{s: s, tx: sqlTx}
		if err := fn(ctx, tx); err != nil {
			return err
		}
		var err error
		deltas, err = tx.flushCounts(ctx)
		created = tx.created
		return err
	})
	if err == nil {
		for _, name := range created {
			s.sequences.Store(name, true)
		}
		s.noteDeltas(ctx, deltas)
	}
	return err
}

// Tx is a write transaction of the store.
type Tx struct {
	s       *Store
	tx      *sqldb.Tx
	counts  map[countKey]int64 // rows inserted and deleted, written to the counts once, just before the commit
	created []string           // sequences of number series it created (counts.go)
}

var (
	_ store.Tx              = (*Tx)(nil)
	_ store.EachSelector    = (*Tx)(nil)
	_ store.Estimator       = (*Tx)(nil)
	_ store.FreeNumberTaker = (*Tx)(nil)
	_ store.Appender        = (*Tx)(nil)
	_ store.EachInserter    = (*Tx)(nil)
	_ store.SeqTaker        = (*Tx)(nil)
)

// SQL is the database transaction, for state that must commit with the
// write (engine/platform/sqlplatform).
func (t *Tx) SQL() *sqldb.Tx { return t.tx }

// Select reads rows in the transaction.
func (t *Tx) Select(ctx context.Context, q store.Select) ([]store.Row, error) {
	return t.s.selectRows(ctx, t.tx, q, true)
}

// SelectEach reads independent selects in the transaction: PostgreSQL is
// sent them in one round trip.
func (t *Tx) SelectEach(ctx context.Context, qs []store.Select) ([][]store.Row, error) {
	return t.s.selectEach(ctx, qs, true, t.tx.ReadEach)
}

// Count counts rows in the transaction.
func (t *Tx) Count(ctx context.Context, q store.Select) (int64, error) {
	return t.s.count(ctx, t.tx, q)
}

// Counted reads a company's row count in the transaction, with the rows
// it inserted and deleted so far.
func (t *Tx) Counted(ctx context.Context, table, company string) (int64, error) {
	n, err := t.s.counted(ctx, t.tx, table, company)
	return n + t.counts[countKey{table, company}], err
}

// OnRollback registers fn to run if the transaction does not commit.
func (t *Tx) OnRollback(fn func()) { t.tx.OnRollback(fn) }

// table is a schema table with the SQL the store builds for it once.
type table struct {
	*store.Table
	name    string                   // quoted
	columns map[string]*store.Column // by field
	allCols []*store.Column          // in schema order
	allSQL  string                   // the select list of every column: [seq,] columns

	inserts     sync.Map // insertKey → the text of an INSERT (insertSQL), or (rows 0) its [head, row] (valuesParts)
	insertsSize atomic.Int32
}

func newTable(t *store.Table) *table {
	tt := &table{Table: t, name: sqldb.Quote(t.Name), columns: map[string]*store.Column{}}
	fields := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		tt.columns[c.Field], fields[i] = &t.Columns[i], c.Field
	}
	tt.allCols, tt.allSQL, _ = tt.selectList(fields) // every field is a column
	return tt
}

// The store's own columns.
const (
	seqColumn     = "seq"
	companyColumn = "company"
)

// table returns a schema table, or an error naming the unknown one.
func (s *Store) table(name string) (*table, error) {
	t := s.tables[name]
	if t == nil {
		return nil, fmt.Errorf("sqlstore: no table %q in the schema", name)
	}
	return t, nil
}

// keyColumns are the columns of a key, an index or a conflict target: the
// company of a Company table, then the fields'.
func (t *table) keyColumns(fields []string) ([]string, error) {
	var cols []string
	if t.Company {
		cols = append(cols, sqldb.Quote(companyColumn))
	}
	for _, f := range fields {
		col, _, err := t.column(f)
		if err != nil {
			return nil, err
		}
		cols = append(cols, col)
	}
	return cols, nil
}

// column is the SQL of a field of t in conditions and orders.
func (t *table) column(field string) (string, *store.Column, error) {
	if field == store.SeqField && t.Seq {
		return sqldb.Quote(seqColumn), nil, nil
	}
	c := t.columns[field]
	if c == nil {
		return "", nil, fmt.Errorf("sqlstore: table %s has no column %q", t.Name, field)
	}
	return sqldb.Quote(c.Name), c, nil
}
