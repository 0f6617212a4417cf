package sqlengine

import (
	"context"
	"strconv"
	"sync"
	"testing"

	"github.com/matryer/is"

	"fieldapi/engine"
	"fieldapi/engine/dataset"
)

// countsExact checks every register's stored count against its rows, per
// company: the counter table holds exactly the companies that have rows.
func countsExact(t *testing.T, e testEngine) {
	t.Helper()
	ctx := context.Background()
	for name, tb := range e.tables {
		var counted []struct {
			Company string `db:"company"`
			N       int    `db:"n"`
		}
		err := sel(ctx, e.db, &counted, `SELECT "company", COUNT(*) AS "n" FROM `+tb.name()+` GROUP BY "company"`)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range counted {
			stored, err := storedCount(ctx, e.db, c.Company, tb)
			if err != nil {
				t.Fatal(err)
			}
			if stored != c.N {
				t.Errorf("%s of %s: stored count %d, rows %d", name, c.Company, stored, c.N)
			}
		}
		if n := count(t, e, "record_counts", `"register" = ? AND "n" <> 0`, name); n != len(counted) {
			t.Errorf("%s: %d counter rows, %d companies with rows", name, n, len(counted))
		}
	}
}

func TestRecordCountsStayExact(t *testing.T) {
	eachEngine(t, func(t *testing.T, e testEngine) {
		is := is.New(t)
		ctx := context.Background()
		countsExact(t, e) // after Import of the demo data

		total := func(register string) int {
			page, err := e.List(ctx, demoAPI, register, engine.Query{Limit: 1})
			is.NoErr(err)
			return *page.Total
		}
		tasks, materials := total("tasks"), count(t, e, "materials", `"company" = 'demo'`)

		// Parallel creates of tasks with lines, and refused ones whose
		// transaction rolls back after the task row and a line were inserted.
		var wg sync.WaitGroup
		for i := range 20 {
			wg.Go(func() {
				lines := []engine.Input{input(map[string]any{"ProductNr": "4025", "Quantity": 1.0})}
				if i%4 == 3 {
					lines = append(lines, input(map[string]any{"ProductNr": "no-such-product", "Quantity": 1.0}))
				}
				_, err := e.Create(ctx, demoAPI, "tasks", engine.Input{
					Values: map[string]any{"CustomerNr": "1001", "TaskText": "Räkning"},
					Lines:  map[string][]engine.Input{"materials": lines},
				}, asJSON(zeroClaim))
				if i%4 == 3 {
					if err == nil {
						t.Error("a line with an unknown product was accepted")
					}
				} else if err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		is.Equal(total("tasks"), tasks+15)
		is.Equal(count(t, e, "materials", `"company" = 'demo'`), materials+15)
		countsExact(t, e)

		// A filtered total still counts the rows that pass.
		page, err := e.List(ctx, demoAPI, "tasks", engine.Query{Limit: 1,
			Where: []engine.Condition{{Field: "CustomerNr", Op: engine.OpEquals, Values: []any{"1001"}}}})
		is.NoErr(err)
		is.Equal(*page.Total, count(t, e, "tasks", `"company" = 'demo' AND "customer_nr" = '1001'`))
	})
}

// A database from before the counters has none: Migrate fills them from
// the rows, and running it again keeps them.
func TestMigrateBackfillsRecordCounts(t *testing.T) {
	eachEngine(t, func(t *testing.T, e testEngine) {
		is := is.New(t)
		ctx := context.Background()
		_, err := exec(ctx, e.db, `DELETE FROM "record_counts"`)
		is.NoErr(err)
		is.NoErr(e.Migrate(ctx))
		countsExact(t, e)
		is.True(count(t, e, "record_counts", "") > 10)
		is.NoErr(e.Migrate(ctx))
		countsExact(t, e)
	})
}

// A bulk load takes its numbers from the series, writes many rows per
// statement, and counts them; API creates continue after its numbers.
func TestBulkInsertCountsAndNumbers(t *testing.T) {
	eachEngine(t, func(t *testing.T, e testEngine) {
		is := is.New(t)
		ctx := context.Background()
		const n = 1234 // more rows than one statement takes
		first, err := e.ReserveNumbers(ctx, "demo", "customers", n)
		is.NoErr(err)
		is.Equal(first, int64(1061)) // the demo customers end at 1060
		records := make([]dataset.Record, n)
		for i := range records {
			records[i] = dataset.Record{Values: map[string]any{"Nr": strconv.FormatInt(first+int64(i), 10), "Name": "Bulk " + strconv.Itoa(i), "Status": "Active"}}
		}
		before := count(t, e, "customers", `"company" = 'demo'`)
		is.NoErr(e.BulkInsert(ctx, "demo", []dataset.Register{{Name: "customers", Records: records}}))
		is.Equal(count(t, e, "customers", `"company" = 'demo'`), before+n)
		countsExact(t, e)

		// A failing load leaves nothing, counts included.
		bad := []dataset.Record{{Values: map[string]any{"Nr": "x1", "Name": "ok"}}, {Values: map[string]any{"Nr": "x2", "Name": 5.0}}}
		is.True(e.BulkInsert(ctx, "demo", []dataset.Register{{Name: "customers", Records: bad}}) != nil)
		countsExact(t, e)

		resp, err := e.Create(ctx, demoAPI, "customers", input(map[string]any{"Name": "Efter bulk AB"}), asJSON(zeroClaim))
		is.NoErr(err)
		is.Equal(decoded(t, resp)["Nr"], strconv.FormatInt(first+n, 10))
	})
}
