// Package storetest is the conformance suite of engine/store: what any
// store.Store must do for the pipeline above it to be right, as
// testing/fstest.TestFS is for an fs.FS. A store proves itself with one
// test:
//
//	func TestStore(t *testing.T) {
//		storetest.Run(t, func(t *testing.T, schema *store.Schema) store.Store {
//			return mystore.Open(t, schema) // empty, its tables created
//		})
//	}
//
// The suite declares its own schema (Schema) and checks rows and their
// types, every condition operator, orders, limits, Seq order, columns
// holding the Seq as text (SeqText), the company confinement, unique
// indexes, upserts, updates and deletes, transactions that roll back
// (OnRollback included), number series, the row counts of Counted
// tables, independent selects run together (store.SelectEach), inserts
// run together (store.InsertEach) and rows appended without their Seqs
// (store.Append). The whole engine's suite,
// engine/enginetest, runs the pipeline on a store and checks the API's
// behaviour on top.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"fieldapi/engine/store"
)

// The suite's tables.
const (
	itemsTable    = "st_items"    // Company, Seq, Counted; a unique Code per company
	settingsTable = "st_settings" // Company, keyed by Name
	globalTable   = "st_global"   // no company, keyed by ID
	numberedTable = "st_numbered" // Company, Seq; Ref holds the Seq as text (SeqText); a unique Code per company
)

// Schema is the schema the suite's stores keep.
func Schema() *store.Schema {
	return &store.Schema{Tables: []*store.Table{
		{
			Name: itemsTable, Company: true, Seq: true, Counted: true,
			Columns: itemColumns(),
			Indexes: []store.Index{
				{Name: "st_items_code", Fields: []string{"Code"}, Unique: true},
				{Name: "st_items_day", Fields: []string{"Day", store.SeqField}},
			},
		},
		{
			Name: numberedTable, Company: true, Seq: true,
			Columns: append(itemColumns(), store.Column{Field: "Ref", Name: "ref", Type: store.Text, SeqText: true}),
			Indexes: []store.Index{{Name: "st_numbered_code", Fields: []string{"Code"}, Unique: true}},
		},
		{
			Name: settingsTable, Company: true, Key: []string{"Name"},
			Columns: []store.Column{
				{Field: "Name", Name: "name", Type: store.Text, NotNull: true},
				{Field: "Value", Name: "value", Type: store.Text, NotNull: true},
			},
		},
		{
			Name: globalTable, Key: []string{"ID"},
			Columns: []store.Column{
				{Field: "ID", Name: "id", Type: store.Text, NotNull: true},
				{Field: "N", Name: "n", Type: store.Int, NotNull: true},
			},
		},
	}}
}

// itemColumns are the columns of the items: one of each type.
func itemColumns() []store.Column {
	return []store.Column{
		{Field: "Code", Name: "code", Type: store.Text},
		{Field: "Name", Name: "name", Type: store.Text},
		{Field: "Price", Name: "price", Type: store.Number},
		{Field: "Stock", Name: "stock", Type: store.Int},
		{Field: "Active", Name: "active", Type: store.Bool},
		{Field: "Tags", Name: "tags", Type: store.List},
		{Field: "Attrs", Name: "attrs", Type: store.Object},
		{Field: "Blob", Name: "blob", Type: store.Bytes},
		{Field: "Day", Name: "day", Type: store.Text},
	}
}

// Run runs the suite. newStore returns a store of schema holding no rows,
// ready for use; it is called once per subtest, which run in parallel.
func Run(t *testing.T, newStore func(t *testing.T, schema *store.Schema) store.Store) {
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, newStore(t, Schema()))
		})
	}
}

var tests = []struct {
	name string
	run  func(t *testing.T, s store.Store)
}{
	{"values keep their types", valuesKeepTypes},
	{"seq is insert order", seqIsInsertOrder},
	{"conditions", conditions},
	{"order, limit and offset", orderLimitOffset},
	{"companies are apart", companiesApart},
	{"unique index", uniqueIndex},
	{"update and delete", updateAndDelete},
	{"upsert", upsert},
	{"rollback leaves nothing", rollbackLeavesNothing},
	{"number series", numberSeries},
	{"counted tables", countedTables},
	{"columns and expressions", columnsAndExprs},
	{"estimates", estimates},
	{"keyset walks", keysetWalks},
	{"seq as text", seqAsText},
	{"select each", selectEach},
	{"append", appendRows},
	{"insert each", insertEach},
	{"insert and update later", insertLater},
	{"update then select", updateThenSelect},
	{"in rows", inRows},
	{"insert shapes", insertShapes},
}

const acme, other = "acme", "other"

// write runs fn in a transaction, failing the test on an error.
func write(t *testing.T, s store.Store, fn func(ctx context.Context, tx store.Tx) error) {
	t.Helper()
	if err := s.Write(context.Background(), fn); err != nil {
		t.Fatal(err)
	}
}

// insert inserts items in one transaction and returns their seqs.
func insert(t *testing.T, s store.Store, company string, rows ...store.Values) []int64 {
	t.Helper()
	return insertInto(t, s, itemsTable, company, rows...)
}

// insertInto inserts rows of a table in one transaction and returns their seqs.
func insertInto(t *testing.T, s store.Store, table, company string, rows ...store.Values) []int64 {
	t.Helper()
	var seqs []int64
	write(t, s, func(ctx context.Context, tx store.Tx) error {
		var err error
		seqs, err = tx.Insert(ctx, table, company, rows)
		return err
	})
	if len(seqs) != len(rows) {
		t.Fatalf("Insert of %d rows returned %d seqs", len(rows), len(seqs))
	}
	return seqs
}

func selectRows(t *testing.T, s store.Store, q store.Select) []store.Row {
	t.Helper()
	if q.Table == "" {
		q.Table = itemsTable
	}
	rows, err := s.Select(context.Background(), q)
	if err != nil {
		t.Fatalf("Select %+v: %v", q, err)
	}
	return rows
}

// codes lists the Code of each row.
func codes(rows []store.Row) []string {
	out := []string{}
	for _, r := range rows {
		c, _ := r.Values["Code"].(string)
		out = append(out, c)
	}
	return out
}

func valuesKeepTypes(t *testing.T, s store.Store) {
	want := store.Values{
		"Code": "a1", "Name": "Ångström", "Price": 12.5, "Stock": int64(7), "Active": true,
		"Tags": []string{"x", "y"}, "Attrs": map[string]string{"k": "v"}, "Blob": []byte{0, 1, 2}, "Day": "2026-11-25",
	}
	insert(t, s, acme, want, store.Values{"Code": "a2", "Blob": []byte(nil)})
	rows := selectRows(t, s, store.Select{Company: acme, Where: []store.Cond{store.Equal("Code", "a1")}})
	if len(rows) != 1 {
		t.Fatalf("got %d rows, want 1", len(rows))
	}
	if !reflect.DeepEqual(rows[0].Values, want) {
		t.Fatalf("read %#v, wrote %#v", rows[0].Values, want)
	}
	rows = selectRows(t, s, store.Select{Company: acme, Where: []store.Cond{store.Equal("Code", "a2")}})
	for _, f := range []string{"Name", "Price", "Stock", "Active", "Tags", "Attrs", "Blob", "Day"} {
		if v, ok := rows[0].Values[f]; !ok || v != nil {
			t.Errorf("%s, not written (Blob: nil bytes), reads %#v (present %v), want nil", f, v, ok)
		}
	}
	if got := codes(selectRows(t, s, store.Select{Company: acme, Where: []store.Cond{{Field: "Blob", Op: store.NotNull}}})); !slices.Equal(got, []string{"a1"}) {
		t.Errorf("rows whose bytes are not NULL: %v, want [a1] (nil bytes are NULL)", got)
	}
}

func seqIsInsertOrder(t *testing.T, s store.Store) {
	first := insert(t, s, acme, store.Values{"Code": "1"}, store.Values{"Code": "2"}, store.Values{"Code": "3"})
	second := insert(t, s, acme, store.Values{"Code": "4"})
	all := append(first, second...)
	if !slices.IsSorted(all) || slices.Compact(slices.Clone(all))[len(all)-1] != all[len(all)-1] || len(slices.Compact(slices.Clone(all))) != 4 {
		t.Fatalf("seqs %v are not increasing in insert order", all)
	}
	rows := selectRows(t, s, store.Select{Company: acme, OrderBy: []store.Order{{Field: store.SeqField, Desc: true}}})
	if got := codes(rows); !slices.Equal(got, []string{"4", "3", "2", "1"}) {
		t.Fatalf("newest first: %v", got)
	}
	for i, r := range rows {
		if r.Seq != all[3-i] {
			t.Fatalf("row %s has seq %d, Insert said %d", codes(rows)[i], r.Seq, all[3-i])
		}
	}
	rows = selectRows(t, s, store.Select{Company: acme, Where: []store.Cond{{Field: store.SeqField, Op: store.Lt, Value: all[2]}}})
	if got := codes(rows); len(got) != 2 {
		t.Fatalf("seq < third: %v", got)
	}
}

func conditions(t *testing.T, s store.Store) {
	insert(t, s, acme,
		store.Values{"Code": "c1", "Name": "Örebro VVS", "Price": 10.0, "Stock": int64(1), "Active": true, "Day": "2026-01-01"},
		store.Values{"Code": "c2", "Name": "100% rör_AB", "Price": 20.0, "Stock": int64(2), "Active": false, "Day": "2026-02-01"},
		store.Values{"Code": "c3", "Name": "Nordic", "Price": 30.0, "Stock": int64(3), "Day": "2026-03-01"},
		store.Values{"Code": "C4"},
	)
	for _, c := range []struct {
		cond store.Cond
		want []string
	}{
		{store.Equal("Name", "Nordic"), []string{"c3"}},
		{store.Equal("Name", nil), []string{"C4"}},
		{store.Equal("Active", true), []string{"c1"}},
		{store.Equal("Price", 20.0), []string{"c2"}},
		{store.Equal("Stock", int64(3)), []string{"c3"}},
		{store.OneOf("Code", []string{"c1", "c3", "zz"}), []string{"c1", "c3"}},
		{store.OneOf("Code", []string{}), []string{}},
		{store.Cond{Field: "Name", Op: store.NotIn, Values: []any{"Nordic"}}, []string{"c1", "c2", "C4"}},
		{store.Cond{Field: "Name", Op: store.NotIn}, []string{"c1", "c2", "c3", "C4"}},
		{store.Cond{Field: "Name", Op: store.Contains, Value: "öREB"}, []string{"c1"}},
		{store.Cond{Field: "Name", Op: store.Contains, Value: "0%"}, []string{"c2"}},
		{store.Cond{Field: "Name", Op: store.Contains, Value: "r_a"}, []string{"c2"}},
		{store.Cond{Field: "Name", Op: store.Contains, Value: "_"}, []string{"c2"}},
		{store.Cond{Field: "Code", Op: store.Prefix, Value: "c"}, []string{"c1", "c2", "c3"}},
		{store.Cond{Field: "Name", Op: store.Prefix, Value: "Öre"}, []string{"c1"}},
		{store.Cond{Field: "Price", Op: store.Lt, Value: 20.0}, []string{"c1"}},
		{store.Cond{Field: "Price", Op: store.Le, Value: 20.0}, []string{"c1", "c2"}},
		{store.Cond{Field: "Price", Op: store.Gt, Value: 20.0}, []string{"c3"}},
		{store.Cond{Field: "Day", Op: store.Ge, Value: "2026-02-01"}, []string{"c2", "c3"}},
		{store.Cond{Field: "Stock", Op: store.IsNull}, []string{"C4"}},
		{store.Cond{Field: "Stock", Op: store.NotNull}, []string{"c1", "c2", "c3"}},
	} {
		rows := selectRows(t, s, store.Select{Company: acme, Where: []store.Cond{c.cond}, OrderBy: []store.Order{{Field: store.SeqField}}})
		if got := codes(rows); !slices.Equal(got, c.want) {
			t.Errorf("%+v: got %v, want %v", c.cond, got, c.want)
		}
		n, err := s.Count(context.Background(), store.Select{Table: itemsTable, Company: acme, Where: []store.Cond{c.cond}})
		if err != nil || n != int64(len(c.want)) {
			t.Errorf("Count %+v = %d, %v; want %d", c.cond, n, err, len(c.want))
		}
	}
}

func orderLimitOffset(t *testing.T, s store.Store) {
	insert(t, s, acme,
		store.Values{"Code": "o1", "Day": "2026-01-02"}, store.Values{"Code": "o2", "Day": "2026-01-01"},
		store.Values{"Code": "o3", "Day": "2026-01-02"}, store.Values{"Code": "o4", "Day": "2026-01-03"})
	byDay := []store.Order{{Field: "Day", Desc: true}, {Field: store.SeqField}}
	if got := codes(selectRows(t, s, store.Select{Company: acme, OrderBy: byDay})); !slices.Equal(got, []string{"o4", "o1", "o3", "o2"}) {
		t.Errorf("by day desc, seq: %v", got)
	}
	if got := codes(selectRows(t, s, store.Select{Company: acme, OrderBy: byDay, Limit: 2, Offset: 1})); !slices.Equal(got, []string{"o1", "o3"}) {
		t.Errorf("limit 2 offset 1: %v", got)
	}
	if got := codes(selectRows(t, s, store.Select{Company: acme, OrderBy: byDay, Offset: 3})); !slices.Equal(got, []string{"o2"}) {
		t.Errorf("offset 3 without a limit: %v", got)
	}
}

func companiesApart(t *testing.T, s store.Store) {
	insert(t, s, acme, store.Values{"Code": "same", "Name": "acme's"})
	insert(t, s, other, store.Values{"Code": "same", "Name": "other's"})
	rows := selectRows(t, s, store.Select{Company: other})
	if len(rows) != 1 || rows[0].Values["Name"] != "other's" {
		t.Fatalf("other sees %v", rows)
	}
	write(t, s, func(ctx context.Context, tx store.Tx) error {
		n, err := tx.Update(ctx, itemsTable, acme, []store.Cond{store.Equal("Code", "same")}, store.Values{"Name": "changed"})
		if err == nil && n != 1 {
			err = fmt.Errorf("update matched %d rows, want 1", n)
		}
		return err
	})
	if rows := selectRows(t, s, store.Select{Company: other}); rows[0].Values["Name"] != "other's" {
		t.Fatalf("an update in acme changed other's row: %v", rows[0].Values)
	}
}

func uniqueIndex(t *testing.T, s store.Store) {
	insert(t, s, acme, store.Values{"Code": "u1"})
	err := s.Write(context.Background(), func(ctx context.Context, tx store.Tx) error {
		_, err := tx.Insert(ctx, itemsTable, acme, []store.Values{{"Code": "u2"}, {"Code": "u1"}})
		return err
	})
	var dup *store.DuplicateError
	if !errors.As(err, &dup) {
		t.Fatalf("insert repeating a unique code: %v, want a *store.DuplicateError", err)
	}
	if dup.Table != itemsTable || dup.Index != "st_items_code" {
		t.Fatalf("insert repeating a unique code: table %q, index %q; want %s, st_items_code (%v)", dup.Table, dup.Index, itemsTable, err)
	}
	if got := codes(selectRows(t, s, store.Select{Company: acme})); !slices.Equal(got, []string{"u1"}) {
		t.Fatalf("after the refused insert: %v", got)
	}
	// NULLs do not collide.
	insert(t, s, acme, store.Values{"Name": "no code"}, store.Values{"Name": "no code either"})
}

func updateAndDelete(t *testing.T, s store.Store) {
	insert(t, s, acme, store.Values{"Code": "d1", "Stock": int64(1)}, store.Values{"Code": "d2", "Stock": int64(2)}, store.Values{"Code": "d3", "Stock": int64(3)})
	write(t, s, func(ctx context.Context, tx store.Tx) error {
		n, err := tx.Update(ctx, itemsTable, acme, []store.Cond{{Field: "Stock", Op: store.Ge, Value: int64(2)}}, store.Values{"Active": true, "Tags": []string{"t"}})
		if err == nil && n != 2 {
			return fmt.Errorf("update matched %d rows, want 2", n)
		}
		n, err = tx.Update(ctx, itemsTable, acme, []store.Cond{store.Equal("Code", "nope")}, store.Values{"Active": true})
		if err == nil && n != 0 {
			return fmt.Errorf("update of no row matched %d", n)
		}
		n, err = tx.Delete(ctx, itemsTable, acme, []store.Cond{store.Equal("Code", "d1")})
		if err == nil && n != 1 {
			return fmt.Errorf("delete matched %d rows, want 1", n)
		}
		return err
	})
	rows := selectRows(t, s, store.Select{Company: acme, OrderBy: []store.Order{{Field: store.SeqField}}})
	if got := codes(rows); !slices.Equal(got, []string{"d2", "d3"}) {
		t.Fatalf("after the delete: %v", got)
	}
	for _, r := range rows {
		if r.Values["Active"] != true || !reflect.DeepEqual(r.Values["Tags"], []string{"t"}) {
			t.Fatalf("after the update: %v", r.Values)
		}
	}
}

func upsert(t *testing.T, s store.Store) {
	put := func(name, value string, replace []string) {
		write(t, s, func(ctx context.Context, tx store.Tx) error {
			return tx.Upsert(ctx, settingsTable, acme, store.Values{"Name": name, "Value": value}, []string{"Name"}, replace)
		})
	}
	put("tz", "Europe/Stockholm", []string{"Value"})
	put("tz", "Europe/Oslo", []string{"Value"})
	put("tz", "UTC", nil) // keep
	rows := selectRows(t, s, store.Select{Table: settingsTable, Company: acme})
	if len(rows) != 1 || rows[0].Values["Value"] != "Europe/Oslo" {
		t.Fatalf("settings after the upserts: %v", rows)
	}
	write(t, s, func(ctx context.Context, tx store.Tx) error {
		return tx.Upsert(ctx, globalTable, "", store.Values{"ID": "g", "N": int64(1)}, []string{"ID"}, []string{"N"})
	})
	if rows := selectRows(t, s, store.Select{Table: globalTable}); len(rows) != 1 || rows[0].Values["N"] != int64(1) {
		t.Fatalf("global table: %v", rows)
	}
}

func rollbackLeavesNothing(t *testing.T, s store.Store) {
	insert(t, s, acme, store.Values{"Code": "keep", "Stock": int64(1)})
	refused := errors.New("refused")
	undone := false
	err := s.Write(context.Background(), func(ctx context.Context, tx store.Tx) error {
		tx.OnRollback(func() { undone = true })
		if _, err := tx.Insert(ctx, itemsTable, acme, []store.Values{{"Code": "gone"}}); err != nil {
			return err
		}
		if _, err := tx.Update(ctx, itemsTable, acme, []store.Cond{store.Equal("Code", "keep")}, store.Values{"Stock": int64(99)}); err != nil {
			return err
		}
		if _, err := tx.NextNumbers(ctx, acme, "items", 5); err != nil {
			return err
		}
		// The transaction sees its own writes.
		rows, err := tx.Select(ctx, store.Select{Table: itemsTable, Company: acme, Where: []store.Cond{store.Equal("Code", "gone")}})
		if err != nil || len(rows) != 1 {
			return fmt.Errorf("the transaction does not see its own insert: %v %v", rows, err)
		}
		return refused
	})
	if !errors.Is(err, refused) {
		t.Fatalf("Write returned %v, want fn's error", err)
	}
	if !undone {
		t.Error("OnRollback did not run")
	}
	rows := selectRows(t, s, store.Select{Company: acme})
	if got := codes(rows); !slices.Equal(got, []string{"keep"}) || rows[0].Values["Stock"] != int64(1) {
		t.Fatalf("after the rollback: %v", rows)
	}
	if n, _ := s.Counted(context.Background(), itemsTable, acme); n != 1 {
		t.Fatalf("count after the rollback: %d, want 1", n)
	}
	committed := false
	write(t, s, func(ctx context.Context, tx store.Tx) error {
		tx.OnRollback(func() { committed = true })
		return nil
	})
	if committed {
		t.Error("OnRollback ran for a transaction that committed")
	}
}

func numberSeries(t *testing.T, s store.Store) {
	var got []int64
	take := func(company string, n int) {
		write(t, s, func(ctx context.Context, tx store.Tx) error {
			numbers, err := tx.NextNumbers(ctx, company, "tasks", n)
			if err == nil && (len(numbers) != n || !slices.IsSorted(numbers)) {
				err = fmt.Errorf("NextNumbers(%d) = %v; want %d numbers, increasing", n, numbers, n)
			}
			if err == nil {
				got = append(got, numbers[0])
			}
			return err
		})
	}
	take(acme, 1)
	take(acme, 3)
	take(acme, 1)
	take(other, 1)
	if !slices.Equal(got, []int64{1, 2, 5, 1}) {
		t.Fatalf("series numbers %v, want [1 2 5 1]", got)
	}
	write(t, s, func(ctx context.Context, tx store.Tx) error { return tx.AlignNumbers(ctx, acme, "tasks", 100) })
	write(t, s, func(ctx context.Context, tx store.Tx) error { return tx.AlignNumbers(ctx, acme, "tasks", 50) }) // never down
	write(t, s, func(ctx context.Context, tx store.Tx) error { return tx.AlignNumbers(ctx, acme, "fresh", 10) })
	got = nil
	take(acme, 1)
	write(t, s, func(ctx context.Context, tx store.Tx) error {
		numbers, err := tx.NextNumbers(ctx, acme, "fresh", 1)
		if err == nil {
			got = append(got, numbers...)
		}
		return err
	})
	if !slices.Equal(got, []int64{100, 10}) {
		t.Fatalf("after aligning: %v, want [100 10]", got)
	}

	// NextFreeNumber takes a number as NextNumbers does, and tells whether
	// a row of the company holds it as its key: 101 was given by hand.
	write(t, s, func(ctx context.Context, tx store.Tx) error {
		_, err := tx.Insert(ctx, itemsTable, acme, []store.Values{{"Code": "101"}})
		return err
	})
	type taken struct {
		n    int64
		free bool
	}
	var takes []taken
	for _, company := range []string{acme, acme, other} {
		write(t, s, func(ctx context.Context, tx store.Tx) error {
			n, free, err := store.NextFreeNumber(ctx, tx, company, "tasks", itemsTable, "Code")
			takes = append(takes, taken{n, free})
			return err
		})
	}
	if want := []taken{{101, false}, {102, true}, {2, true}}; !slices.Equal(takes, want) {
		t.Fatalf("NextFreeNumber: %v, want %v (acme's 101 is a key, other's 2 is not)", takes, want)
	}
}

func countedTables(t *testing.T, s store.Store) {
	ctx := context.Background()
	insert(t, s, acme, store.Values{"Code": "n1"}, store.Values{"Code": "n2"}, store.Values{"Code": "n3"})
	insert(t, s, other, store.Values{"Code": "n1"})
	write(t, s, func(ctx context.Context, tx store.Tx) error {
		if _, err := tx.Delete(ctx, itemsTable, acme, []store.Cond{store.Equal("Code", "n2")}); err != nil {
			return err
		}
		n, err := tx.Counted(ctx, itemsTable, acme)
		if err == nil && n != 2 {
			err = fmt.Errorf("inside the transaction the count is %d, want 2", n)
		}
		return err
	})
	for company, want := range map[string]int64{acme: 2, other: 1, "nobody": 0} {
		if n, err := s.Counted(ctx, itemsTable, company); err != nil || n != want {
			t.Errorf("Counted %s = %d, %v; want %d", company, n, err, want)
		}
	}
}

func columnsAndExprs(t *testing.T, s store.Store) {
	insert(t, s, acme, store.Values{"Code": "e1", "Name": "Ek", "Price": 3.0})
	rows := selectRows(t, s, store.Select{Company: acme, Columns: []string{"Name"}})
	if len(rows) != 1 || rows[0].Values["Name"] != "Ek" || rows[0].Seq == 0 {
		t.Fatalf("Columns [Name]: %+v", rows)
	}
	if _, has := rows[0].Values["Price"]; has {
		t.Errorf("Columns [Name] read Price too: %v", rows[0].Values)
	}
	rows = selectRows(t, s, store.Select{Company: acme, Exprs: []store.Expr{{Name: "label", Text: `'Item ' || COALESCE("code", '')`}}})
	if got := rows[0].Values["label"]; got != "Item e1" {
		t.Errorf(`Exprs 'Item ' || COALESCE("code", ''): %q, want "Item e1"`, got)
	}
}
