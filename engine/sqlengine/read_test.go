package sqlengine

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/matryer/is"

	"fieldapi/engine"
)

func TestCompanyIsolation(t *testing.T) {
	eachSharedEngine(t, func(t *testing.T, e testEngine) {
		is := is.New(t)
		ctx := context.Background()

		_, err := e.Get(ctx, demoAPI, "customers", "5001")
		is.True(errors.Is(err, engine.ErrNotFound)) // demo2's customer is not visible in demo
		_, err = e.Get(ctx, demo2API, "customers", "1002")
		is.True(errors.Is(err, engine.ErrNotFound))

		mine, err := e.Get(ctx, demoAPI, "customers", "1001")
		is.NoErr(err)
		theirs, err := e.Get(ctx, demo2API, "customers", "1001")
		is.NoErr(err)
		is.Equal(mine["Name"], "Bergström Fastigheter AB")
		is.Equal(theirs["Name"], "Bryggen Kontorsenter AS")

		// An engine-assigned Id of another company is not found either.
		page, err := e.List(ctx, demo2API, "contacts", engine.Query{Limit: 1})
		is.NoErr(err)
		_, err = e.Get(ctx, demoAPI, "contacts", page.Records[0]["Id"].(string))
		is.True(errors.Is(err, engine.ErrNotFound))

		all, err := e.List(ctx, demo2API, "customers", engine.Query{Limit: 500})
		is.NoErr(err)
		is.Equal(*all.Total, 21)
		is.Equal(len(all.Records), 21)
	})
}

// TestCursorWalk pages through customers by cursor while new customers are
// created between pages: every customer that existed when the walk began
// is seen exactly once, in newest-first order.
func TestCursorWalk(t *testing.T) {
	eachEngine(t, func(t *testing.T, e testEngine) {
		is := is.New(t)
		ctx := context.Background()
		seen := map[string]int{}
		var order []string
		var after *int64
		for pages := 0; ; pages++ {
			is.True(pages < 20)
			page, err := e.List(ctx, demoAPI, "customers", engine.Query{Limit: 7, After: after})
			is.NoErr(err)
			for _, r := range page.Records {
				nr := r["Nr"].(string)
				seen[nr]++
				order = append(order, nr)
			}
			_, err = e.Create(ctx, demoAPI, "customers", input(map[string]any{"Name": fmt.Sprintf("Mellan sidor %d AB", pages)}), asJSON(zeroClaim))
			is.NoErr(err)
			if page.Next == nil {
				break
			}
			after = page.Next
		}
		is.Equal(len(order), 60) // no gaps, and nothing created during the walk
		for nr, n := range seen {
			if n != 1 {
				t.Errorf("customer %s seen %d times", nr, n)
			}
		}
		is.Equal(order[0], "1060")
		is.Equal(order[59], "1001")
	})
}

func TestPagePaging(t *testing.T) {
	eachSharedEngine(t, func(t *testing.T, e testEngine) {
		is := is.New(t)
		ctx := context.Background()
		all, err := e.List(ctx, demoAPI, "products", engine.Query{Limit: 500})
		is.NoErr(err)
		is.Equal(*all.Total, 30)
		is.Equal(all.Next, nil)

		page2, err := e.List(ctx, demoAPI, "products", engine.Query{Limit: 8, Page: 2})
		is.NoErr(err)
		is.Equal(len(page2.Records), 8)
		for i, r := range page2.Records {
			is.Equal(r["Nr"], all.Records[8+i]["Nr"])
		}
		is.True(page2.Next != nil)
		is.Equal(*page2.Total, 30)

		last, err := e.List(ctx, demoAPI, "products", engine.Query{Limit: 8, Page: 4})
		is.NoErr(err)
		is.Equal(len(last.Records), 6)
		is.Equal(last.Next, nil)
	})
}

func TestFilters(t *testing.T) {
	eachEngine(t, func(t *testing.T, e testEngine) {
		ctx := context.Background()
		e.clock.Advance(time.Hour)
		_, err := e.Create(ctx, demoAPI, "customers", input(map[string]any{"Name": "100% Rabatt_AB", "Category": "Handel"}), asJSON(zeroClaim))
		if err != nil {
			t.Fatal(err)
		}
		since := e.clock.Now()
		cond := func(field string, op engine.Op, values ...any) engine.Condition {
			return engine.Condition{Field: field, Op: op, Values: values}
		}
		cases := []struct {
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
			{"not in counts NULL as none", "customers", engine.Query{Where: []engine.Condition{cond("Custom2", engine.OpNotIn, "x")}}, 61},
			{"equals on bool", "timetypes", engine.Query{Where: []engine.Condition{cond("BookingType", engine.OpEquals, true)}}, 3},
			{"equals on number", "addresses", engine.Query{Where: []engine.Condition{cond("Level", engine.OpEquals, 2.0)}}, 0},
			{"equals on engine key", "contacts", engine.Query{Where: []engine.Condition{cond("Id", engine.OpEquals, "1")}}, 1},
			{"modified since", "customers", engine.Query{ModifiedSince: &since}, 1},
			{"modified before", "customers", engine.Query{ModifiedBefore: &since}, 60},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				is := is.New(t)
				c.query.Limit = 500
				page, err := e.List(ctx, demoAPI, c.register, c.query)
				is.NoErr(err)
				is.Equal(len(page.Records), c.want)
				is.Equal(*page.Total, c.want)
			})
		}

		is := is.New(t)
		_, err = e.List(ctx, demoAPI, "customers", engine.Query{Where: []engine.Condition{cond("Colour", engine.OpEquals, "red")}})
		is.True(err != nil) // unknown field
		var ce *engine.CommandError
		is.True(!errors.As(err, &ce)) // a programming error, not the engine refusing a call
	})
}

// TestLinesInReadShape: a line list marked read in the catalog comes with
// every read of its owner, batch-loaded for a page.
func TestLinesInReadShape(t *testing.T) {
	t.Parallel()
	for _, b := range testBackends(t) {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			is := is.New(t)
			ctx := context.Background()
			cat := catalogEdited(t, "customers.yaml",
				"{name: contacts, register: contacts, parent: CustomerNr}",
				"{name: contacts, register: contacts, parent: CustomerNr, read: true}")
			e := openTestEngineWith(t, b.dsn(t), cat, Options{})

			rec, err := e.Get(ctx, demoAPI, "customers", "1001")
			is.NoErr(err)
			contacts := rec["Contacts"].([]engine.Record)
			is.Equal(len(contacts), 1)
			is.Equal(contacts[0]["CustomerNr"], "1001")

			page, err := e.List(ctx, demoAPI, "customers", engine.Query{Limit: 5})
			is.NoErr(err)
			for _, r := range page.Records {
				lines := r["Contacts"].([]engine.Record)
				is.Equal(len(lines), 1)
				is.Equal(lines[0]["CustomerNr"], r["Nr"])
			}

			in := input(map[string]any{"Name": "Utan kontakter AB"})
			resp, err := e.Create(ctx, demoAPI, "customers", in, asJSON(zeroClaim))
			is.NoErr(err)
			is.Equal(decoded(t, resp)["Contacts"], []any{}) // empty, not missing
		})
	}
}
