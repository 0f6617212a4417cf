package memstore

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"fieldapi/engine/store"
	"fieldapi/engine/store/storetest"
)

// TestStore runs the store conformance suite.
func TestStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T, schema *store.Schema) store.Store {
		return newStore(t, schema)
	})
}

func newStore(t *testing.T, schema *store.Schema) *Store {
	t.Helper()
	s, err := New(schema)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// testSchema is one table with a column of each type and a unique index.
func testSchema() *store.Schema {
	return &store.Schema{Tables: []*store.Table{{
		Name: "items", Company: true, Seq: true,
		Columns: []store.Column{
			{Field: "Code", Name: "code", Type: store.Text},
			{Field: "Tags", Name: "tags", Type: store.List},
			{Field: "Attrs", Name: "attrs", Type: store.Object},
			{Field: "Blob", Name: "blob", Type: store.Bytes},
		},
		Indexes: []store.Index{{Name: "items_code", Fields: []string{"Code"}, Unique: true}},
	}}}
}

// TestExprInSelect reads the demo data's expressions through Select.
func TestExprInSelect(t *testing.T) {
	s := newStore(t, &store.Schema{Tables: []*store.Table{{Name: "customers", Company: true,
		Columns: []store.Column{{Field: "Name", Name: "name"}, {Field: "City", Name: "city"}, {Field: "Nr", Name: "nr"}}}}})
	ctx := context.Background()
	err := s.Write(ctx, func(ctx context.Context, tx store.Tx) error {
		_, err := tx.Insert(ctx, "customers", "c", []store.Values{{"Name": "Ek", "City": "Umeå", "Nr": "9"}, {"Name": "Al"}})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := s.Select(ctx, store.Select{Table: "customers", Company: "c", Exprs: []store.Expr{
		{Name: "label", Text: `COALESCE("name", '') || ' / ' || COALESCE("city", '')`},
		{Name: "town", Text: `UPPER(COALESCE("city", ''))`},
		{Name: "task", Text: `'Task ' || COALESCE("nr", '')`},
		{Name: "bad", Text: `"name" ||`},
	}})
	if err != nil || len(rows) != 2 {
		t.Fatal(rows, err)
	}
	for i, want := range []map[string]string{
		{"label": "Ek / Umeå", "town": "UMEÅ", "task": "Task 9", "bad": ""},
		{"label": "Al / ", "town": "", "task": "Task ", "bad": ""},
	} {
		for name, w := range want {
			if got := rows[i].Values[name]; got != w {
				t.Errorf("row %d %s = %#v, want %q", i, name, got, w)
			}
		}
	}
}

// TestCopies checks that values passed in and read out share nothing with
// the stored ones.
func TestCopies(t *testing.T) {
	s := newStore(t, testSchema())
	ctx := context.Background()
	tags, attrs, blob := []string{"a", "b"}, map[string]string{"k": "v"}, []byte{1, 2}
	setTags := []string{"s"}
	err := s.Write(ctx, func(ctx context.Context, tx store.Tx) error {
		if _, err := tx.Insert(ctx, "items", "c", []store.Values{{"Code": "1", "Tags": tags, "Attrs": attrs, "Blob": blob}}); err != nil {
			return err
		}
		if _, err := tx.Insert(ctx, "items", "c", []store.Values{{"Code": "2"}}); err != nil {
			return err
		}
		_, err := tx.Update(ctx, "items", "c", []store.Cond{store.Equal("Code", "2")}, store.Values{"Tags": setTags})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	tags[0], attrs["k"], blob[0], setTags[0] = "changed", "changed", 9, "changed"
	attrs["new"] = "x"
	read := func() []store.Row {
		rows, err := s.Select(ctx, store.Select{Table: "items", Company: "c", OrderBy: []store.Order{{Field: store.SeqField}}})
		if err != nil || len(rows) != 2 {
			t.Fatal(rows, err)
		}
		return rows
	}
	check := func() {
		t.Helper()
		rows := read()
		want := store.Values{"Code": "1", "Tags": []string{"a", "b"}, "Attrs": map[string]string{"k": "v"}, "Blob": []byte{1, 2}}
		if !reflect.DeepEqual(rows[0].Values, want) {
			t.Errorf("row 1 reads %#v, want %#v", rows[0].Values, want)
		}
		if got := rows[1].Values["Tags"]; !reflect.DeepEqual(got, []string{"s"}) {
			t.Errorf("row 2's tags read %#v, want [s]", got)
		}
	}
	check() // the caller changed what it passed in
	rows := read()
	rows[0].Values["Tags"].([]string)[0] = "changed"
	rows[0].Values["Attrs"].(map[string]string)["k"] = "changed"
	rows[0].Values["Blob"].([]byte)[0] = 9
	rows[0].Values["Code"] = "changed"
	rows[1].Values["Tags"].([]string)[0] = "changed"
	check() // the caller changed what it read
}

// TestPanicRollsBack checks that a panic inside Write undoes the
// transaction, runs OnRollback, releases the lock and goes on.
func TestPanicRollsBack(t *testing.T) {
	s := newStore(t, testSchema())
	ctx := context.Background()
	undone := false
	var got any
	func() {
		defer func() { got = recover() }()
		s.Write(ctx, func(ctx context.Context, tx store.Tx) error {
			tx.OnRollback(func() { undone = true })
			if _, err := tx.Insert(ctx, "items", "c", []store.Values{{"Code": "gone"}}); err != nil {
				return err
			}
			if _, err := tx.NextNumbers(ctx, "c", "s", 3); err != nil {
				return err
			}
			panic("boom")
		})
	}()
	if got != "boom" {
		t.Fatalf("recovered %#v, want the panic of fn", got)
	}
	if !undone {
		t.Error("OnRollback did not run")
	}
	if n, err := s.Count(ctx, store.Select{Table: "items", Company: "c"}); err != nil || n != 0 {
		t.Errorf("after the panic: %d rows, %v", n, err)
	}
	err := s.Write(ctx, func(ctx context.Context, tx store.Tx) error { // the lock is free again
		numbers, err := tx.NextNumbers(ctx, "c", "s", 1)
		if err == nil && numbers[0] != 1 {
			t.Errorf("the series after the panic starts at %d, want 1", numbers[0])
		}
		_, err = tx.Insert(ctx, "items", "c", []store.Values{{"Code": "gone"}}) // its key is free again
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestErrors checks errors that must not be panics or silent.
func TestErrors(t *testing.T) {
	s := newStore(t, testSchema())
	ctx := context.Background()
	var ended store.Tx
	err := s.Write(ctx, func(ctx context.Context, tx store.Tx) error {
		ended = tx
		for _, bad := range []store.Values{{"Code": 1}, {"Tags": "x"}, {"Attrs": map[string]any{}}, {"Blob": "x"}, {"Nope": "x"}} {
			if _, err := tx.Insert(ctx, "items", "c", []store.Values{bad}); err == nil {
				t.Errorf("Insert %v: no error", bad)
			}
		}
		if _, err := tx.Update(ctx, "items", "c", nil, store.Values{"Code": 1.5}); err == nil {
			t.Error("Update with a wrong type: no error")
		}
		if _, err := tx.Select(ctx, store.Select{Table: "items", Company: "c", Where: []store.Cond{store.Equal("Code", int64(1))}}); err == nil {
			t.Error("condition with a wrong type: no error")
		}
		for _, q := range []store.Select{
			{Table: "items", Columns: []string{"Nope"}},
			{Table: "items", Where: []store.Cond{store.Equal("Nope", "x")}},
			{Table: "items", OrderBy: []store.Order{{Field: "Nope"}}},
			{Table: "items", Where: []store.Cond{{Field: "Code", Op: store.Contains, Value: 1.5}}},
			{Table: "items", Where: []store.Cond{{Field: "Code", Op: 99}}},
		} {
			if _, err := tx.Select(ctx, q); err == nil {
				t.Errorf("Select %+v: no error", q)
			}
		}
		if _, err := tx.Insert(ctx, "nope", "c", []store.Values{{}}); err == nil {
			t.Error("Insert into an unknown table: no error")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := s.Count(ctx, store.Select{Table: "items", Company: "c"}); n != 0 {
		t.Errorf("refused inserts left %d rows", n)
	}
	if _, err := ended.Insert(ctx, "items", "c", []store.Values{{"Code": "late"}}); err == nil {
		t.Error("Insert after the transaction ended: no error")
	}
	if _, err := ended.Select(ctx, store.Select{Table: "items", Company: "c"}); err == nil {
		t.Error("Select after the transaction ended: no error")
	}
	if _, err := New(&store.Schema{Tables: []*store.Table{{Name: "empty"}}}); err == nil {
		t.Error("New accepted a table without columns")
	}
	refused := errors.New("refused")
	if err := s.Write(ctx, func(ctx context.Context, tx store.Tx) error { return refused }); !errors.Is(err, refused) {
		t.Errorf("Write returned %v, want fn's error", err)
	}
}

// TestCallsAreAtomic checks that a failing call inside a transaction
// leaves nothing, and that a rollback restores rows, their order and
// their unique keys.
func TestCallsAreAtomic(t *testing.T) {
	s := newStore(t, testSchema())
	ctx := context.Background()
	codes := func(r store.Reader) []string {
		rows, err := r.Select(ctx, store.Select{Table: "items", Company: "c"})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, row := range rows {
			out = append(out, row.Values["Code"].(string))
		}
		return out
	}
	if err := s.Write(ctx, func(ctx context.Context, tx store.Tx) error {
		_, err := tx.Insert(ctx, "items", "c", []store.Values{{"Code": "a"}, {"Code": "b"}, {"Code": "c"}})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	refused := errors.New("refused")
	err := s.Write(ctx, func(ctx context.Context, tx store.Tx) error {
		if _, err := tx.Update(ctx, "items", "c", nil, store.Values{"Code": "x"}); !store.IsDuplicate(err) {
			t.Errorf("an update giving two rows one code: %v", err)
		}
		if got := codes(tx); !reflect.DeepEqual(got, []string{"a", "b", "c"}) {
			t.Errorf("after the refused update: %v", got)
		}
		if n, err := tx.Delete(ctx, "items", "c", []store.Cond{store.OneOf("Code", []string{"a", "b"})}); n != 2 || err != nil {
			t.Errorf("delete: %d, %v", n, err)
		}
		if err := tx.Upsert(ctx, "items", "c", store.Values{"Code": "c", "Tags": []string{"t"}}, []string{"Code"}, []string{"Tags"}); err != nil {
			t.Error(err)
		}
		if _, err := tx.Insert(ctx, "items", "c", []store.Values{{"Code": "b"}}); err != nil {
			t.Errorf("inserting a deleted row's code: %v", err)
		}
		return refused
	})
	if !errors.Is(err, refused) {
		t.Fatal(err)
	}
	if got := codes(s); !reflect.DeepEqual(got, []string{"a", "b", "c"}) {
		t.Errorf("after the rollback: %v", got)
	}
	rows, _ := s.Select(ctx, store.Select{Table: "items", Company: "c", Where: []store.Cond{store.Equal("Code", "c")}})
	if len(rows) != 1 || rows[0].Values["Tags"] != nil {
		t.Errorf("the upsert outlived the rollback: %v", rows)
	}
	err = s.Write(ctx, func(ctx context.Context, tx store.Tx) error {
		_, err := tx.Insert(ctx, "items", "c", []store.Values{{"Code": "b"}})
		return err
	})
	if !store.IsDuplicate(err) {
		t.Errorf("the restored row's code is free: %v", err)
	}
}

// TestConcurrent writes and reads one store from several goroutines (for
// -race).
func TestConcurrent(t *testing.T) {
	s := newStore(t, testSchema())
	ctx := context.Background()
	done := make(chan error)
	for g := range 4 {
		go func() {
			var err error
			for i := 0; i < 50 && err == nil; i++ {
				err = s.Write(ctx, func(ctx context.Context, tx store.Tx) error {
					_, err := tx.Insert(ctx, "items", "c", []store.Values{{"Code": fmt.Sprint(g, "-", i)}})
					return err
				})
				if err == nil {
					_, err = s.Select(ctx, store.Select{Table: "items", Company: "c", Limit: 5})
				}
			}
			done <- err
		}()
	}
	for range 4 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
	if n, err := s.Count(ctx, store.Select{Table: "items", Company: "c"}); n != 200 || err != nil {
		t.Errorf("count %d, %v; want 200", n, err)
	}
}
