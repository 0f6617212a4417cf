package readrules

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"fieldapi/engine"
	"fieldapi/engine/enginetest/kit"
)

// testDemoCursorWalk pages through the demo customers by cursor while
// customers are created between pages: every customer that existed when
// the walk began is seen exactly once, newest first, and none created
// during the walk.
func testDemoCursorWalk(t *testing.T, s *suite) {
	s.Demo(t, "customers.Name")
	ctx := context.Background()
	seen := map[string]int{}
	var order []string
	var after *int64
	for pages := 0; ; pages++ {
		if pages >= 20 {
			t.Fatal("the walk did not end after 20 pages")
		}
		page, err := s.Engine.List(ctx, kit.DemoAPI, "customers", engine.Query{Limit: 7, After: after})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range page.Records {
			nr := kit.KeyIn(t, r, "Nr")
			seen[nr]++
			order = append(order, nr)
		}
		s.MustCreateIn(t, kit.DemoAPI, "customers", kit.Values(map[string]any{"Name": fmt.Sprintf("Mellan sidor %d AB", pages)}))
		if page.Next == nil {
			break
		}
		after = page.Next
	}
	if len(order) != 60 || order[0] != "1060" || order[len(order)-1] != "1001" {
		t.Errorf("the walk saw %d customers, from %v to %v; want the 60 demo customers, 1060 to 1001, and none created during it", len(order), first(order), last(order))
	}
	for nr, n := range seen {
		if n != 1 {
			t.Errorf("customer %s seen %d times", nr, n)
		}
	}
}

func first(xs []string) string {
	if len(xs) == 0 {
		return ""
	}
	return xs[0]
}

func last(xs []string) string {
	if len(xs) == 0 {
		return ""
	}
	return xs[len(xs)-1]
}

// testDemoPagePaging: page n of size k is records (n-1)k to nk-1 of the
// whole list; the last page has the rest and no Next; Total counts all.
func testDemoPagePaging(t *testing.T, s *suite) {
	s.Demo(t, "products")
	ctx := context.Background()
	all, err := s.Engine.List(ctx, kit.DemoAPI, "products", engine.Query{Limit: 500})
	if err != nil {
		t.Fatal(err)
	}
	if all.Total == nil || *all.Total != 30 || len(all.Records) != 30 || all.Next != nil {
		t.Fatalf("all products: Total %v, %d records, Next %v; want 30, 30, nil", all.Total, len(all.Records), all.Next)
	}
	page2, err := s.Engine.List(ctx, kit.DemoAPI, "products", engine.Query{Limit: 8, Page: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(page2.Records) != 8 || page2.Next == nil || page2.Total == nil || *page2.Total != 30 {
		t.Errorf("page 2 of 8: %d records, Next %v, Total %v; want 8, set, 30", len(page2.Records), page2.Next, page2.Total)
	}
	for i, r := range page2.Records {
		if r["Nr"] != all.Records[8+i]["Nr"] {
			t.Errorf("page 2, record %d: Nr %v; want %v, record %d of the whole list", i, r["Nr"], all.Records[8+i]["Nr"], 8+i)
		}
	}
	lastPage, err := s.Engine.List(ctx, kit.DemoAPI, "products", engine.Query{Limit: 8, Page: 4})
	if err != nil {
		t.Fatal(err)
	}
	if len(lastPage.Records) != 6 || lastPage.Next != nil {
		t.Errorf("page 4 of 8: %d records, Next %v; want the last 6 and no Next", len(lastPage.Records), lastPage.Next)
	}
}

// testDemoFilters: each condition operator on the demo data, on text,
// bool, number and engine-key fields, and the modified range; Total
// counts what passes. A condition on an unknown field is a plain error.
func testDemoFilters(t *testing.T, s *suite) {
	s.Demo(t, "customers.Name", "customers.Category", "customers.Custom2", "projects.Status", "timetypes.Status",
		"timetypes.BookingType", "addresses.Level", "contacts.Id")
	ctx := context.Background()
	s.Clock.Advance(time.Hour)
	since := s.Clock.Now()
	s.MustCreateIn(t, kit.DemoAPI, "customers", kit.Values(map[string]any{"Name": "100% Rabatt_AB", "Category": "Handel"}))
	cond := func(field string, op engine.Op, values ...any) engine.Condition {
		return engine.Condition{Field: field, Op: op, Values: values}
	}
	contact := s.FirstKey(t, kit.DemoAPI, "contacts")
	for _, c := range []struct {
		name     string
		register string
		query    engine.Query
		want     int
	}{
		{"contains ignores case", "customers", engine.Query{Where: []engine.Condition{cond("Name", engine.OpContains, "SOLBERGA")}}, 3},
		{"contains folds Nordic letters", "customers", engine.Query{Where: []engine.Condition{cond("Name", engine.OpContains, "östergården")}}, 3},
		{"contains takes % literally", "customers", engine.Query{Where: []engine.Condition{cond("Name", engine.OpContains, "100%")}}, 1},
		{"contains takes _ literally", "customers", engine.Query{Where: []engine.Condition{cond("Name", engine.OpContains, "t_a")}}, 1},
		{"equals", "customers", engine.Query{Where: []engine.Condition{cond("Category", engine.OpEquals, "Handel")}}, 21},
		{"two conditions", "customers", engine.Query{Where: []engine.Condition{cond("Category", engine.OpEquals, "Handel"), cond("Name", engine.OpContains, "livs")}}, 20},
		{"in", "projects", engine.Query{Where: []engine.Condition{cond("Status", engine.OpIn, "Active", "Planned")}}, 3},
		{"not in", "timetypes", engine.Query{Where: []engine.Condition{cond("Status", engine.OpNotIn, "Archived")}}, 6},
		{"not in counts an empty field as none", "customers", engine.Query{Where: []engine.Condition{cond("Custom2", engine.OpNotIn, "x")}}, 61},
		{"equals on bool", "timetypes", engine.Query{Where: []engine.Condition{cond("BookingType", engine.OpEquals, true)}}, 3},
		{"equals on number", "addresses", engine.Query{Where: []engine.Condition{cond("Level", engine.OpEquals, 2.0)}}, 0},
		{"equals on engine key", "contacts", engine.Query{Where: []engine.Condition{cond("Id", engine.OpEquals, contact)}}, 1},
		{"modified since", "customers", engine.Query{ModifiedSince: &since}, 1},
		{"modified before", "customers", engine.Query{ModifiedBefore: &since}, 60},
	} {
		c.query.Limit = 500
		page, err := s.Engine.List(ctx, kit.DemoAPI, c.register, c.query)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if len(page.Records) != c.want || page.Total == nil || *page.Total != c.want {
			t.Errorf("%s: %d records, Total %v; want %d and %d", c.name, len(page.Records), page.Total, c.want, c.want)
		}
	}

	_, err := s.Engine.List(ctx, kit.DemoAPI, "customers", engine.Query{Limit: 5, Where: []engine.Condition{cond("Colour", engine.OpEquals, "red")}})
	var ce *engine.CommandError
	if err == nil || errors.As(err, &ce) {
		t.Errorf("a condition on an unknown field: %v; want a plain error (a programming error, not a refusal)", err)
	}
}
