package reference_test

import (
	"context"
	"strconv"
	"sync"
	"testing"

	"fieldapi/engine"
	"fieldapi/engine/dataset"
	"fieldapi/engine/reference"
)

// TestRecordCountsStayExact: the counts the store keeps match the rows
// per company after the demo import and after parallel creates with
// lines, a quarter of them refused after the task and a line were
// written; totals read them.
func TestRecordCountsStayExact(t *testing.T) {
	for _, b := range sqlBackends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			dsn := b.DSN(t)
			cat := builtin(t)
			e := openDemo(t, dsn, cat, reference.Options{})
			countsExact(t, dsn, cat)
			var wg sync.WaitGroup
			for i := range 20 {
				wg.Go(func() {
					lines := []engine.Input{{Values: map[string]any{"ProductNr": "4025", "Quantity": 1.0}}}
					if i%4 == 3 {
						lines = append(lines, engine.Input{Values: map[string]any{"ProductNr": "no-such-product", "Quantity": 1.0}})
					}
					var c capture
					_, err := e.Create(ctx, demoAPI, "tasks", engine.Input{
						Values: map[string]any{"CustomerNr": "1001", "TaskText": "Räkning"},
						Lines:  map[string][]engine.Input{"materials": lines},
					}, c.receipt())
					if (err == nil) != (i%4 != 3) {
						t.Errorf("create %d: %v; want a refusal exactly for every fourth (a line of an unknown product)", i, err)
					}
				})
			}
			wg.Wait()
			countsExact(t, dsn, cat)
			page, err := e.List(ctx, demoAPI, "tasks", engine.Query{Limit: 1})
			if err != nil {
				t.Fatal(err)
			}
			if rows := count(t, dsn, "tasks", `"company" = 'demo'`); page.Total == nil || *page.Total != rows {
				t.Errorf("tasks: Total %v; want the %d rows", page.Total, rows)
			}
		})
	}
}

// TestBulkInsertCountsAndNumbers: a bulk load takes its numbers from the
// series, writes more rows than one statement takes, and counts them; a
// failing load leaves nothing, counts included; API creates continue
// after its numbers.
func TestBulkInsertCountsAndNumbers(t *testing.T) {
	for _, b := range sqlBackends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			dsn := b.DSN(t)
			cat := builtin(t)
			e := openDemo(t, dsn, cat, reference.Options{})
			customers := func() int { return count(t, dsn, "customers", `"company" = 'demo'`) }
			const n = 1234 // more rows than one statement takes
			numbers, err := e.ReserveNumbers(ctx, "demo", "customers", n)
			if err != nil {
				t.Fatal(err)
			}
			if len(numbers) != n || numbers[0] != 1061 || numbers[n-1] != 1061+n-1 {
				t.Errorf("ReserveNumbers = %d numbers, %d to %d; want %d, from 1061, after the demo customers' 1060", len(numbers), numbers[0], numbers[len(numbers)-1], n)
			}
			records := make([]dataset.Record, n)
			for i := range records {
				records[i] = dataset.Record{Values: map[string]any{"Nr": strconv.FormatInt(numbers[i], 10), "Name": "Bulk " + strconv.Itoa(i), "Status": "Active"}}
			}
			before := customers()
			if err := e.BulkInsert(ctx, "demo", []dataset.Register{{Name: "customers", Records: records}}); err != nil {
				t.Fatal(err)
			}
			if got := customers(); got != before+n {
				t.Errorf("%d customers after the bulk load; want %d", got, before+n)
			}
			countsExact(t, dsn, cat)

			bad := []dataset.Record{{Values: map[string]any{"Nr": "x1", "Name": "ok"}}, {Values: map[string]any{"Nr": "x2", "Name": 5.0}}}
			if err := e.BulkInsert(ctx, "demo", []dataset.Register{{Name: "customers", Records: bad}}); err == nil {
				t.Error("a bulk load with a number for a text field succeeded; want an error")
			}
			if got := customers(); got != before+n {
				t.Errorf("%d customers after a failed bulk load; want %d: it leaves nothing", got, before+n)
			}
			countsExact(t, dsn, cat)

			var c capture
			if _, err := e.Create(ctx, demoAPI, "customers", engine.Input{Values: map[string]any{"Name": "Efter bulk AB"}}, c.receipt()); err != nil {
				t.Fatal(err)
			}
			if want := strconv.FormatInt(numbers[n-1]+1, 10); c.rec["Nr"] != want {
				t.Errorf("a customer created after the bulk load: Nr %v; want %s", c.rec["Nr"], want)
			}
		})
	}
}
