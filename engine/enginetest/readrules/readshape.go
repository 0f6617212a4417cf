package readrules

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"fieldapi/catalog"
	"fieldapi/engine"
	"fieldapi/engine/enginetest/kit"
)

// testLinesInReadShape: every line list the catalog marks read comes with
// each read of its owner, Get and List alike: exactly the owner's lines,
// oldest first, each with the owner's key; a record without lines reads
// an empty list, not a missing one.
func testLinesInReadShape(t *testing.T, s *suite) {
	s.Demo(t, "orders/lines")
	ctx := context.Background()
	checked := 0
	for _, r := range s.Catalog.Registers {
		var lists []*catalog.Line
		for _, l := range r.Lines {
			if l.Read {
				lists = append(lists, l)
			}
		}
		if len(lists) == 0 {
			continue
		}
		page, err := s.Engine.List(ctx, kit.DemoAPI, r.Name, engine.Query{Limit: 5})
		if err != nil {
			t.Fatalf("List %s: %v", r.Name, err)
		}
		recs := page.Records
		if len(recs) > 0 {
			recs = append(recs, s.Get(t, kit.DemoAPI, r.Name, kit.KeyIn(t, recs[0], r.Key)))
		}
		for _, rec := range recs {
			key := kit.KeyIn(t, rec, r.Key)
			for _, l := range lists {
				lines, ok := rec[l.ReadName].([]engine.Record)
				if !ok || lines == nil {
					t.Errorf("%s %s: %s = %#v; want its lines", r.Name, key, l.ReadName, rec[l.ReadName])
					continue
				}
				where := []engine.Condition{kit.Equals(l.Parent, key)}
				for field, value := range l.Set {
					where = append(where, kit.Equals(field, value))
				}
				lr := s.Catalog.Register(l.Register)
				var want, got []string
				for _, line := range reversedRecords(s.Walk(t, kit.DemoAPI, l.Register, 100, where...)) {
					want = append(want, kit.KeyIn(t, line, lr.Key))
				}
				for _, line := range lines {
					got = append(got, kit.KeyIn(t, line, lr.Key))
					if line[l.Parent] != key {
						t.Errorf("%s %s: a line of %s has %s %v", r.Name, key, l.ReadName, l.Parent, line[l.Parent])
					}
				}
				if !slices.Equal(got, want) {
					t.Errorf("%s %s: %s = %v; want the owner's lines oldest first, %v", r.Name, key, l.ReadName, got, want)
				}
				checked += len(got)
			}
		}

		if !r.Has(catalog.Create) {
			continue
		}
		created := s.CreateFilled(t, r, nil, 0)
		body, err := json.Marshal(created)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range lists {
			if lines, ok := created[l.ReadName].([]engine.Record); !ok || lines == nil || len(lines) != 0 ||
				!strings.Contains(string(body), fmt.Sprintf("%q:[]", l.ReadName)) {
				t.Errorf("a %s created without lines: %s = %#v; want an empty list, not a missing one", r.Name, l.ReadName, created[l.ReadName])
			}
		}
	}
	if checked == 0 {
		t.Error("the demo records carry no lines in their read shape: nothing was compared")
	}
}

// reversedRecords returns the records in reverse order.
func reversedRecords(recs []engine.Record) []engine.Record {
	out := slices.Clone(recs)
	slices.Reverse(out)
	return out
}
