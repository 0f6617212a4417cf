// Package store is the narrow interface between the engine's pipeline
// (engine/pipeline) and the storage below it. A store keeps rows of the
// tables a Schema declares, in transactions, with the schema's indexes;
// it knows no catalog semantics and no business rule: defaults,
// references, number series use, line lists, extra fields, permissions
// and the change log are the pipeline's, written once for every store.
//
// engine/store/sqlstore (SQLite and PostgreSQL) and engine/store/memstore
// (memory) implement it; another, such as an adapter to a business
// system, passes engine/enginetest by implementing its interfaces.
//
// Rows are maps keyed by a column's Field name; values are nil, string,
// float64, int64, bool, []byte, []string or map[string]string as the
// column's Type says. A table whose Company flag is set is confined to
// one company: every call names it, and no call sees another's rows.
// Faults a store cannot help are engine.ErrBusy, engine.ErrUnreachable and
// engine.ErrTimeout, wrapped with the cause.
package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
)

// Store keeps the rows of a Schema.
type Store interface {
	Reader
	// Write runs fn in one transaction: committed when fn returns nil,
	// rolled back when it returns an error (which Write returns). fn's ctx
	// carries the call's budget: use it for every call on tx. A fault
	// before the commit was sent wrote nothing and is engine.ErrBusy or
	// engine.ErrUnreachable, never engine.ErrTimeout ("may have written").
	Write(ctx context.Context, fn func(ctx context.Context, tx Tx) error) error
	// Ping reports whether the storage answers.
	Ping(ctx context.Context) error
	// Close releases the store.
	Close() error
}

// Reader reads rows. Outside a transaction each call sees committed data
// as of its own start.
type Reader interface {
	// Select returns the rows of one table that match the query.
	Select(ctx context.Context, q Select) ([]Row, error)
	// Count returns how many rows of one table match the query's Where
	// (Columns, OrderBy, Limit and Offset are ignored).
	Count(ctx context.Context, q Select) (int64, error)
	// Counted returns how many rows a company has in a table the schema
	// marks Counted, kept as rows are inserted and deleted: a list's total
	// costs one read however many rows there are.
	Counted(ctx context.Context, table, company string) (int64, error)
}

// Estimator is a Reader that keeps statistics of its tables.
type Estimator interface {
	// Estimate returns about how many rows of one table match the query's
	// Where, from the statistics, and whether the number is exact.
	Estimate(ctx context.Context, q Select) (n int64, exact bool, err error)
}

// Estimate estimates as r's Estimate when r is an Estimator (a list's
// total on a large table), else counts: exact.
func Estimate(ctx context.Context, r Reader, q Select) (n int64, exact bool, err error) {
	if est, ok := r.(Estimator); ok {
		return est.Estimate(ctx, q)
	}
	n, err = r.Count(ctx, q)
	return n, true, err
}

// EachSelector is a Reader that can run several independent selects
// together: the SQL store sends PostgreSQL them in one round trip.
type EachSelector interface {
	// SelectEach returns the rows of each query, in order.
	SelectEach(ctx context.Context, qs []Select) ([][]Row, error)
}

// SelectEach runs independent selects on r: together when r is an
// EachSelector, else one after the other. The pipeline reads what it can
// ask at once (a record's line lists and extra fields, a write's
// references) through it.
func SelectEach(ctx context.Context, r Reader, qs []Select) ([][]Row, error) {
	if each, ok := r.(EachSelector); ok && len(qs) > 1 {
		return each.SelectEach(ctx, qs)
	}
	out := make([][]Row, len(qs))
	for i, q := range qs {
		var err error
		if out[i], err = r.Select(ctx, q); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// FreeNumberTaker is a Tx that takes a number and checks it is free in
// one statement, as every create does.
type FreeNumberTaker interface {
	NextFreeNumber(ctx context.Context, company, series, table, field string) (n int64, free bool, err error)
}

// NextFreeNumber takes the next number of a company's series, as
// NextNumbers(…, 1) does, and reports whether it is free: whether no row
// of the company in table holds it, as decimal text, in the text column
// of field (a key given by hand may have used it). Another tx than a
// FreeNumberTaker takes the number, then counts.
func NextFreeNumber(ctx context.Context, tx Tx, company, series, table, field string) (n int64, free bool, err error) {
	if taker, ok := tx.(FreeNumberTaker); ok {
		return taker.NextFreeNumber(ctx, company, series, table, field)
	}
	numbers, err := tx.NextNumbers(ctx, company, series, 1)
	if err != nil {
		return 0, false, err
	}
	used, err := tx.Count(ctx, Select{Table: table, Company: company, Where: []Cond{Equal(field, strconv.FormatInt(numbers[0], 10))}})
	return numbers[0], used == 0, err
}

// NumberTaker is a Store whose number series need no transaction
// (PostgreSQL's sequences: neither a rollback nor ReturnNumbers gives a
// number back). A create takes its number with the reads it does before
// its transaction, in their round trip, rather than in one of its own
// inside the transaction.
type NumberTaker interface {
	// SelectEachTakingNumber runs the selects as SelectEach does and,
	// with them, takes and checks the series' next number as
	// NextFreeNumber does. When it cannot (series in transactions, or this
	// one not set up yet) it takes none and returns nil.
	SelectEachTakingNumber(ctx context.Context, qs []Select, of NumberOf) ([][]Row, *TakenNumber, error)
}

// NumberOf names the series a number is taken from and where it must be
// free, as the arguments of Tx.NextFreeNumber do.
type NumberOf struct{ Company, Series, Table, Field string }

// TakenNumber is a number NumberTaker took.
type TakenNumber struct {
	N    int64
	Free bool // no row holds it (Tx.NextFreeNumber)
}

// Appender is a Tx that can add rows whose Seqs nothing reads (a write's
// change log) without a round trip of their own: the SQL store sends
// PostgreSQL them with the transaction's next statement or its commit.
type Appender interface {
	// Append inserts rows as Insert does, without their Seqs, for rows
	// that repeat no unique index. Its failure may come from a later call
	// of the transaction or from its Write.
	Append(ctx context.Context, table, company string, rows []Values) error
}

// Append adds rows to a table in tx: by Append when it is an Appender,
// else by Insert.
func Append(ctx context.Context, tx Tx, table, company string, rows []Values) error {
	if a, ok := tx.(Appender); ok {
		return a.Append(ctx, table, company, rows)
	}
	_, err := tx.Insert(ctx, table, company, rows)
	return err
}

// LaterUpdater is a Tx that can run an update whose count nothing needs
// without a round trip of its own, as Appender appends.
type LaterUpdater interface {
	// UpdateLater sets columns as Update does, without counting the rows,
	// for sets that change no column of a unique index. Its failure may
	// come from a later call of the transaction or from its Write.
	UpdateLater(ctx context.Context, table, company string, where []Cond, set Values) error
}

// UpdateLater updates rows in tx: by UpdateLater when it is a
// LaterUpdater, else by Update.
func UpdateLater(ctx context.Context, tx Tx, table, company string, where []Cond, set Values) error {
	if u, ok := tx.(LaterUpdater); ok {
		return u.UpdateLater(ctx, table, company, where, set)
	}
	_, err := tx.Update(ctx, table, company, where, set)
	return err
}

// Sender is a Tx that can send what it queued (InsertLater, Append) now,
// without waiting for the outcome: the database inserts a write's last
// rows while the write prepares what ends it (its events).
type Sender interface {
	SendQueued(ctx context.Context)
}

// SeqTaker is a Tx whose tables' Seqs can be taken before their rows are
// inserted (PostgreSQL's sequences; SQLite's AUTOINCREMENT counters under
// the write lock), so that the rows go in queued, nothing read back: an
// atomic batch's creates take theirs at once, none waiting on the store
// by itself, and each table's queued rows go in one statement, with the
// transaction's next statement or at its end.
type SeqTaker interface {
	// TakeSeqs takes n Seqs of each table of want, increasing. ok is
	// false, and none taken, where the store cannot now (a SQLite table
	// that has never held a row).
	TakeSeqs(ctx context.Context, want map[string]int) (seqs map[string][]int64, ok bool, err error)
	// InsertLater inserts rows with the Seqs TakeSeqs gave them, as
	// Insert does. Its failure comes from a later call of the transaction
	// or from its Write, turned by failed (nil: none) into the caller's
	// error: a repeated unique index is a *DuplicateError before that.
	InsertLater(ctx context.Context, table, company string, rows []Values, seqs []int64, failed func(error) error) error
}

// Insertion is one Insert of InsertEach: rows of one table.
type Insertion struct {
	Table   string
	Company string
	Rows    []Values
}

// EachInserter is a Tx that can run several inserts and selects together
// (PostgreSQL: a record, its line lists and its answer's read in one
// round trip).
type EachInserter interface {
	// InsertEach runs the inserts in order, as Insert would one after the
	// other, then the selects, which see their rows, and returns each
	// insert's Seqs and each select's rows. The failure of an insert is
	// an *InsertionError; after any failure the transaction must end.
	InsertEach(ctx context.Context, ins []Insertion, reads []Select) ([][]int64, [][]Row, error)
}

// InsertionError is the failure of one insert of InsertEach.
type InsertionError struct {
	Index int // of the insert that failed
	Err   error
}

func (e *InsertionError) Error() string { return e.Err.Error() }
func (e *InsertionError) Unwrap() error { return e.Err }

// InsertEach runs inserts, then selects, in tx: together when tx is an
// EachInserter, else one after the other.
func InsertEach(ctx context.Context, tx Tx, ins []Insertion, reads []Select) ([][]int64, [][]Row, error) {
	if each, ok := tx.(EachInserter); ok && len(ins)+len(reads) > 1 {
		return each.InsertEach(ctx, ins, reads)
	}
	seqs := make([][]int64, len(ins))
	for i, in := range ins {
		var err error
		if seqs[i], err = tx.Insert(ctx, in.Table, in.Company, in.Rows); err != nil {
			return nil, nil, &InsertionError{Index: i, Err: err}
		}
	}
	rows, err := SelectEach(ctx, tx, reads)
	return seqs, rows, err
}

// EachUpdater is a Tx that can send an update and selects after it
// together (PostgreSQL: a record's UPDATE and its answer's read in one
// round trip).
type EachUpdater interface {
	// UpdateThenSelect runs Update, then the selects, which see its
	// change, and returns Update's count and each select's rows.
	UpdateThenSelect(ctx context.Context, table, company string, where []Cond, set Values, reads []Select) (int64, [][]Row, error)
}

// UpdateThenSelect runs an update, then selects, in tx: together when tx
// is an EachUpdater, else one after the other.
func UpdateThenSelect(ctx context.Context, tx Tx, table, company string, where []Cond, set Values, reads []Select) (int64, [][]Row, error) {
	if each, ok := tx.(EachUpdater); ok && len(reads) > 0 && len(set) > 0 {
		return each.UpdateThenSelect(ctx, table, company, where, set, reads)
	}
	n, err := tx.Update(ctx, table, company, where, set)
	if err != nil {
		return 0, nil, err
	}
	rows, err := SelectEach(ctx, tx, reads)
	return n, rows, err
}

// Tx is one write transaction.
type Tx interface {
	Reader
	// Insert adds rows to a table and returns each row's Seq (0 for a
	// table without Seq), increasing in the order of rows. A SeqText
	// column a row gives no value holds that row's Seq. A row that
	// repeats a unique index of the table fails the call with a
	// *DuplicateError.
	Insert(ctx context.Context, table, company string, rows []Values) ([]int64, error)
	// Update sets columns of the rows that match where and returns how
	// many matched.
	Update(ctx context.Context, table, company string, where []Cond, set Values) (int64, error)
	// Upsert inserts a row, or, when its Conflict columns (a unique index of
	// the table) match a row already there, sets that row's Replace columns
	// from it (none: keeps the row as it is). A row it inserts fills its
	// SeqText columns as Insert does.
	Upsert(ctx context.Context, table, company string, row Values, conflict, replace []string) error
	// Delete removes the rows that match where and returns how many.
	Delete(ctx context.Context, table, company string, where []Cond) (int64, error)
	// NextNumbers takes n numbers of a company's number series, in
	// increasing order, unique within the series, which starts at 1.
	// Whether they are consecutive and whether a rollback gives them back
	// is the store's choice (the README says which do).
	NextNumbers(ctx context.Context, company, series string, n int) ([]int64, error)
	// AlignNumbers moves a series so that its next number is at least next.
	AlignNumbers(ctx context.Context, company, series string, next int64) error
	// ReturnNumbers gives back numbers from..next-1 of a series, the last
	// this transaction took and did not use: the series' next goes back
	// to from when it stands at next. A store whose series cannot go back
	// keeps them taken, a gap.
	ReturnNumbers(ctx context.Context, company, series string, from, next int64) error
	// OnRollback registers fn to run if the transaction does not commit,
	// to undo state kept beside the store. fn must not call the store.
	OnRollback(fn func())
}

// Consecutive is n numbers from first on: NextNumbers of a store whose
// series hand out blocks.
func Consecutive(first int64, n int) []int64 {
	numbers := make([]int64, n)
	for i := range numbers {
		numbers[i] = first + int64(i)
	}
	return numbers
}

// Values are the columns of one row by Field name.
type Values = map[string]any

// Row is one row as read: its Seq (when the table has one) and the
// columns asked for, by Field name. Values is the caller's to keep and
// change.
type Row struct {
	Seq    int64
	Values Values
}

// SeqField names a row's Seq in conditions and orders.
const SeqField = "@seq"

// Select is a query of one table.
type Select struct {
	Table   string
	Company string // the company of a Company table
	Where   []Cond // all must hold
	// Columns lists the fields to read; nil reads every column.
	Columns []string
	// Exprs are values computed from each row (a company's computed extra
	// fields), read as text under their names; one the store cannot
	// evaluate reads as "".
	Exprs   []Expr
	OrderBy []Order
	// After holds a row's values of the OrderBy keys, one per key: only
	// the rows after it in that order are read (a keyset; CheckAfter).
	After  []any
	Limit  int // 0: no limit
	Offset int
	// ForUpdate holds the rows read until the transaction ends (inside Tx
	// only): a read-modify-write never works from a changing row.
	ForUpdate bool
}

// Expr is a value computed from a row.
type Expr struct {
	Name string // the name it is read under
	Text string // the expression, as the company's administration wrote it
}

// Order is one sort key.
type Order struct {
	Field string // a column's Field, or SeqField
	Desc  bool
	// NullsLast sorts rows without a value after all others, in either
	// direction; without it where NULLs go is the store's choice.
	NullsLast bool
}

// Op is how a condition compares a column.
type Op uint8

// The condition operators. Text comparisons are by code point, except
// Contains, which folds case (beyond ASCII) and takes % and _ literally.
const (
	Eq       Op = iota // = Value (nil: the column is NULL)
	In                 // one of Values (none: no row matches)
	NotIn              // none of Values; a NULL column is none of them
	Contains           // text containing Value, ignoring case
	Prefix             // text starting with Value
	Lt                 // < Value
	Le                 // <= Value
	Gt                 // > Value
	Ge                 // >= Value
	IsNull             // the column is NULL
	NotNull            // the column is not NULL
	InRows             // one of the values Rows finds in its one column (SeqField: its rows' Seqs)
)

// Cond is one condition on a column (or SeqField).
type Cond struct {
	Field  string
	Op     Op
	Value  any     // Eq, Contains, Prefix, Lt, Le, Gt, Ge
	Values []any   // In, NotIn
	Rows   *Select // InRows: a select of one column, no order, limit or cursor
}

// Equal is Field = value.
func Equal(field string, value any) Cond { return Cond{Field: field, Op: Eq, Value: value} }

// OneOf is Field IN values.
func OneOf[T any](field string, values []T) Cond {
	list := make([]any, len(values))
	for i, v := range values {
		list[i] = v
	}
	return Cond{Field: field, Op: In, Values: list}
}

// InRowsOf is Field IN (the values of column in the rows sel finds): a
// read that depends on another's rows, sent with it in one round trip.
func InRowsOf(field string, sel Select, column string) Cond {
	sel.Columns = []string{column}
	return Cond{Field: field, Op: InRows, Rows: &sel}
}

// CheckRows refuses an InRows condition whose select is not one column,
// unordered and whole (what both stores can run as a subselect).
func CheckRows(c Cond) error {
	if sub := c.Rows; sub == nil || len(sub.Columns) != 1 || len(sub.OrderBy) > 0 || sub.Limit > 0 || sub.Offset > 0 || sub.After != nil {
		return fmt.Errorf("the rows of an InRows condition on %s select one column, unordered and whole", c.Field)
	}
	return nil
}

// ResolveRows replaces each InRows condition by In of the values its
// select finds, run by sel: for a store that evaluates conditions itself.
func ResolveRows(where []Cond, sel func(Select) ([]Row, error)) ([]Cond, error) {
	if !slices.ContainsFunc(where, func(c Cond) bool { return c.Op == InRows }) {
		return where, nil
	}
	out := slices.Clone(where)
	for i, c := range out {
		if c.Op != InRows {
			continue
		}
		if err := CheckRows(c); err != nil {
			return nil, err
		}
		sub, column := *c.Rows, c.Rows.Columns[0]
		if column == SeqField {
			sub.Columns = []string{} // a row's Seq comes with it
		}
		rows, err := sel(sub)
		if err != nil {
			return nil, err
		}
		values := make([]any, len(rows))
		for j, r := range rows {
			if values[j] = r.Values[column]; column == SeqField {
				values[j] = r.Seq
			}
		}
		out[i] = Cond{Field: c.Field, Op: In, Values: values}
	}
	return out, nil
}

// DuplicateError is an insert that repeats a unique index of its table.
type DuplicateError struct {
	Table string
	Index string // the index's name (Table.Indexes), or "" when unknown
}

func (e *DuplicateError) Error() string {
	if e.Index == "" {
		return "duplicate row in " + e.Table
	}
	return "duplicate row in " + e.Table + " (" + e.Index + ")"
}

// IsDuplicate reports whether err is a *DuplicateError.
func IsDuplicate(err error) bool {
	var d *DuplicateError
	return errors.As(err, &d)
}
