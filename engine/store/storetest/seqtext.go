package storetest

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"testing"

	"fieldapi/engine/store"
)

// seqAsText: a SeqText column a row leaves empty (absent or nil) holds the
// row's Seq as decimal text, written by the insert itself, alone or among
// many rows (past one statement's worth), beside rows that give their own
// value (kept), by Upsert too; the Seqs stay increasing in insert order
// across inserts of every kind and are not used again after a delete; the
// row's other values keep their types.
func seqAsText(t *testing.T, s store.Store) {
	ctx := context.Background()
	var all []int64 // every seq inserted, in insert order
	numbered := func(company string, rows ...store.Values) []int64 {
		t.Helper()
		seqs := insertInto(t, s, numberedTable, company, rows...)
		all = append(all, seqs...)
		return seqs
	}
	// wantRefs checks the Ref of each row inserted with the given seqs:
	// its seq as text, unless want names another.
	wantRefs := func(what, company string, seqs []int64, want map[int]any) {
		t.Helper()
		rows := selectRows(t, s, store.Select{Table: numberedTable, Company: company, Where: []store.Cond{store.OneOf(store.SeqField, seqs)},
			OrderBy: []store.Order{{Field: store.SeqField}}})
		if len(rows) != len(seqs) {
			t.Fatalf("%s: read %d rows of the %d inserted", what, len(rows), len(seqs))
		}
		for i, r := range rows {
			var ref any = store.SeqText(seqs[i])
			if v, ok := want[i]; ok {
				ref = v
			}
			if r.Seq != seqs[i] || r.Values["Ref"] != ref {
				t.Fatalf("%s: row %d has seq %d and Ref %#v; want seq %d (as Insert said) and Ref %#v", what, i, r.Seq, r.Values["Ref"], seqs[i], ref)
			}
		}
	}

	one := numbered(acme, store.Values{"Code": "n1"})
	wantRefs("one row", acme, one, nil)

	typed := store.Values{
		"Code": "n2", "Name": "Ångström", "Price": 12.5, "Stock": int64(7), "Active": true,
		"Tags": []string{"x", "y"}, "Attrs": map[string]string{"k": "v"}, "Blob": []byte{0, 1, 2}, "Day": "2026-11-25",
	}
	several := numbered(acme, typed, store.Values{"Code": "n3", "Ref": "given"}, store.Values{"Code": "n4", "Ref": nil, "Blob": []byte(nil)},
		store.Values{"Name": "no code"})
	wantRefs("rows among which one gives its Ref", acme, several, map[int]any{1: "given"})
	rows := selectRows(t, s, store.Select{Table: numberedTable, Company: acme, Where: []store.Cond{store.Equal("Code", "n2")}})
	want := maps.Clone(typed)
	want["Ref"] = store.SeqText(several[0])
	if len(rows) != 1 || !reflect.DeepEqual(rows[0].Values, want) {
		t.Fatalf("a numbered row reads %#v; want %#v", rows, want)
	}

	given := numbered(acme, store.Values{"Code": "n5", "Ref": "mine"}, store.Values{"Code": "n6", "Ref": "also mine"})
	wantRefs("rows that all give their Ref", acme, given, map[int]any{0: "mine", 1: "also mine"})

	write(t, s, func(ctx context.Context, tx store.Tx) error {
		_, err := tx.Delete(ctx, numberedTable, acme, []store.Cond{store.Equal("Code", "n6")})
		return err
	})
	many := make([]store.Values, 700) // more than one statement's rows in the SQL store
	for i := range many {
		many[i] = store.Values{"Code": fmt.Sprintf("m%03d", i), "Stock": int64(i)}
	}
	wantRefs("many rows", acme, numbered(acme, many...), nil)
	wantRefs("another company's row", other, numbered(other, store.Values{"Code": "n1"}), nil)

	write(t, s, func(ctx context.Context, tx store.Tx) error {
		if err := tx.Upsert(ctx, numberedTable, acme, store.Values{"Code": "u1", "Name": "new"}, []string{"Code"}, []string{"Name"}); err != nil {
			return err
		}
		return tx.Upsert(ctx, numberedTable, acme, store.Values{"Code": "n1", "Name": "changed"}, []string{"Code"}, []string{"Name"})
	})
	upserted := selectRows(t, s, store.Select{Table: numberedTable, Company: acme, Where: []store.Cond{store.OneOf("Code", []string{"n1", "u1"})},
		OrderBy: []store.Order{{Field: store.SeqField}}})
	if len(upserted) != 2 || upserted[0].Values["Ref"] != store.SeqText(one[0]) || upserted[0].Values["Name"] != "changed" ||
		upserted[1].Values["Ref"] != store.SeqText(upserted[1].Seq) || upserted[1].Seq <= all[len(all)-1] {
		t.Fatalf("after upserting n1 (there) and u1 (new): %+v; want n1's Ref kept and u1's its seq, after every other", upserted)
	}
	all = append(all, upserted[1].Seq)

	if !slices.IsSorted(all) || len(slices.Compact(slices.Clone(all))) != len(all) {
		t.Fatalf("seqs are not increasing in insert order across inserts (a deleted row's seq used again?): %v", all)
	}
	if n, err := s.Count(ctx, store.Select{Table: numberedTable, Company: other}); err != nil || n != 1 {
		t.Fatalf("other company's numbered rows: %d, %v; want 1", n, err)
	}
}
