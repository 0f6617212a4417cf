package reference_test

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"

	"fieldapi/engine"
	"fieldapi/engine/reference"
	"fieldapi/internal/dbtest"
)

// TestCreateTakesItsNumberWithItsReadsAhead: on PostgreSQL, whose
// sequences hand numbers out outside transactions, a task create takes
// its number with the reads it does before its transaction (they go in
// one round trip), not inside it; a create that gives its Nr takes none;
// and a number taken ahead that a key given by hand holds is passed over
// for the next free one, as inside the transaction. Statements counted
// through the driver, where BEGIN is one of its own.
func TestCreateTakesItsNumberWithItsReadsAhead(t *testing.T) {
	onCountedEngines(t, func(t *testing.T, e *reference.Engine, counter *dbtest.StatementCounter) {
		if !strings.Contains(t.Name(), "postgres") {
			t.Skip("SQLite's series is a row its writes update in their transaction")
		}
		ctx, s := context.Background(), statementsSession
		create := func(in engine.Input) (nr string, sent []string) {
			t.Helper()
			mark := counter.Mark()
			resp, err := e.Create(ctx, s, "tasks", in, engine.Receipt{Render: func(rec engine.Record) (engine.Response, error) {
				return engine.Response{Status: 201, Body: []byte(rec["Nr"].(string))}, nil
			}})
			if err != nil {
				t.Fatal(err)
			}
			return string(resp.Body), counter.Sent(mark)
		}
		create(taskInput("warms the caches and makes the series' sequence", "4001"))

		first, sent := create(taskInput("numbered", "4001"))
		number := slices.IndexFunc(sent, func(q string) bool { return strings.Contains(q, "nextval") && !strings.Contains(q, "INSERT") })
		begin := slices.Index(sent, "BEGIN")
		if number < 0 || begin < 0 || number > begin {
			t.Errorf("a task create sent %q: want its number's nextval before BEGIN", sent)
		}

		n, _ := strconv.Atoi(first)
		byHand := taskInput("by hand", "4001")
		byHand.Values["Nr"] = strconv.Itoa(n + 1)
		if nr, sent := create(byHand); nr != byHand.Values["Nr"] || slices.ContainsFunc(sent, func(q string) bool {
			return strings.Contains(q, "nextval") && !strings.Contains(q, "INSERT")
		}) {
			t.Errorf("a create giving Nr %v: Nr %s, sent %q; want its Nr and no number taken", byHand.Values["Nr"], nr, sent)
		}
		// The next create takes n+1 ahead, finds it held and takes n+2.
		if nr, _ := create(taskInput("after one by hand", "4001")); nr != strconv.Itoa(n+2) {
			t.Errorf("the create after Nr %d was given by hand: Nr %s; want %d", n+1, nr, n+2)
		}
	})
}
