package reference_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"fieldapi/engine"
	"fieldapi/engine/reference"
	"fieldapi/internal/dbtest"
)

// statementsSession is who the counted writes act as.
var statementsSession = engine.Session{Company: "demo", Sign: "API", ClientID: "statements"}

// onCountedEngines runs a test on the demo engine of each SQL database,
// its statements counted.
func onCountedEngines(t *testing.T, test func(t *testing.T, e *reference.Engine, counter *dbtest.StatementCounter)) {
	for _, b := range sqlBackends(t) {
		t.Run(b.Name, func(t *testing.T) {
			e, counter := countedDemoEngine(t, b.DSN(t))
			test(t, e, counter)
		})
	}
}

// positioningStatements is what a write that records events sends on
// SQLite beyond PostgreSQL's: it gives its events their positions itself,
// moving the company's event counter (sqlplatform's recordInFeed), where
// on PostgreSQL a reader of the feed positions them after the commit.
func positioningStatements(t *testing.T) int64 {
	if strings.HasSuffix(t.Name(), "/sqlite") {
		return 1
	}
	return 0
}

// countedDemoEngine is the engine on dsn with the demo data loaded, and the
// counter of the statements it sends.
func countedDemoEngine(t *testing.T, dsn string) (*reference.Engine, *dbtest.StatementCounter) {
	t.Helper()
	counter := &dbtest.StatementCounter{}
	e := openDemo(t, dsn, builtin(t), reference.Options{WrapDriver: counter.Wrap})
	return e, counter
}

// TestStatementsPerCreateDoNotGrowWithLines: a create resolves its
// references in one query per referenced register, inserts each line list
// in one statement and writes its change-log rows and events in one each,
// so the statements it sends do not depend on how many lines it carries
// (counted through the database driver, on SQLite and PostgreSQL). It
// pins how many a task create sends: 11 (12 on SQLite, which positions
// the task's event in the write: positioningStatements), the task's Id (its row number,
// catalog rowNumber) written in the task's INSERT (14 when a rule wrote
// it with an UPDATE of its own), the company's settings kept from the
// create before (13 when each create read them), its number checked free
// in the statement that takes it (12 with a query of its own) and its
// computed extra field ('Task ' || "nr") evaluated from the values it
// stored, not read back (store.ExactInGo: 12 with the read).
func TestStatementsPerCreateDoNotGrowWithLines(t *testing.T) {
	const perCreate = 11
	onCountedEngines(t, func(t *testing.T, e *reference.Engine, counter *dbtest.StatementCounter) {
		ctx, s := context.Background(), statementsSession
		products := []string{"4001", "4002", "4004", "4011", "4018", "4025", "4026"}
		create := func(lines int) int64 {
			t.Helper()
			in := engine.NewInput()
			in.Values["CustomerNr"], in.Values["TaskText"] = "1001", fmt.Sprintf("%d lines", lines)
			for i := range lines {
				line := engine.NewInput()
				line.Values["ProductNr"], line.Values["Quantity"] = products[i%len(products)], float64(i+1)
				in.AddLine("materials", line)
				times := engine.NewInput()
				times.Values["TimeType"], times.Values["Hours"] = "Normaltid", 1.5
				in.AddLine("times", times)
			}
			create := func() error {
				_, err := e.Create(ctx, s, "tasks", in, engine.Receipt{Render: func(engine.Record) (engine.Response, error) {
					return engine.Response{Status: 201}, nil
				}})
				return err
			}
			if err := create(); err != nil { // the first create of a run warms the engine's caches
				t.Fatal(err)
			}
			before := counter.Count()
			if err := create(); err != nil {
				t.Fatal(err)
			}
			return counter.Count() - before
		}
		one, three, twenty := create(1), create(3), create(20)
		t.Logf("statements per task create: %d with 1 line of each list, %d with 3, %d with 20", one, three, twenty)
		if one != three || three != twenty {
			t.Errorf("statements per create: %d with 1 line of each list, %d with 3, %d with 20; want the same", one, three, twenty)
		}
		if want := perCreate + positioningStatements(t); one != want {
			t.Errorf("statements per task create: %d; want %d", one, want)
		}
	})
}

// TestStatementsPerUpdate pins what a PATCH of a task's note sends,
// counted through the driver on SQLite and PostgreSQL: the record with
// its extra fields and line lists read under its lock, the UPDATE, the
// change-log row and the event: 7 (8 on SQLite: positioningStatements),
// the transaction's begin and commit not counted. The computed extra field is evaluated from the values stored
// (store.ExactInGo: 8 when it was read back), an update reads no user
// (the $sign defaults are a create's) and the company's settings come
// from the engine's short cache of them: 10 when it read all three.
func TestStatementsPerUpdate(t *testing.T) {
	const perUpdate = 7
	onCountedEngines(t, func(t *testing.T, e *reference.Engine, counter *dbtest.StatementCounter) {
		ctx, s := context.Background(), statementsSession
		receipt := engine.Receipt{Render: func(engine.Record) (engine.Response, error) { return engine.Response{Status: 200}, nil }}
		created, err := e.Create(ctx, s, "tasks", taskInput("to be changed", "4001", "4025"), engine.Receipt{
			Render: func(rec engine.Record) (engine.Response, error) {
				return engine.Response{Status: 201, Body: []byte(rec["Nr"].(string))}, nil
			}})
		if err != nil {
			t.Fatal(err)
		}
		nr := string(created.Body)
		note := func(text string) int64 {
			t.Helper()
			in := engine.NewInput()
			in.Values["TaskNote"] = text
			before := counter.Count()
			if _, err := e.Update(ctx, s, "tasks", nr, in, receipt); err != nil {
				t.Fatal(err)
			}
			return counter.Count() - before
		}
		note("warms the caches")
		if n, want := note("counted"), perUpdate+positioningStatements(t); n != want {
			t.Errorf("statements per task update: %d; want %d", n, want)
		}
	})
}

// TestStatementsPerCreateInAtomic: the creates of an atomic batch share
// the reads ahead of records they reference, the company's settings, and
// one statement each for their change-log rows and events, so a create in
// a batch costs fewer statements than the same create alone.
func TestStatementsPerCreateInAtomic(t *testing.T) {
	onCountedEngines(t, func(t *testing.T, e *reference.Engine, counter *dbtest.StatementCounter) {
		ctx, s := context.Background(), statementsSession
		task := func() engine.Input {
			in := taskInput("batched", "4001", "4025")
			times := engine.NewInput()
			times.Values["TimeType"], times.Values["Hours"] = "Normaltid", 1.5
			in.AddLine("times", times)
			return in
		}
		receipt := engine.Receipt{Render: func(engine.Record) (engine.Response, error) { return engine.Response{Status: 201}, nil }}
		if _, err := e.Create(ctx, s, "tasks", task(), receipt); err != nil { // warms the caches
			t.Fatal(err)
		}
		before := counter.Count()
		if _, err := e.Create(ctx, s, "tasks", task(), receipt); err != nil {
			t.Fatal(err)
		}
		alone := counter.Count() - before
		const n = 10
		before = counter.Count()
		_, err := e.Atomically(ctx, s, engine.Claim{}, func(ctx context.Context) (engine.Response, error) {
			for range n {
				if _, err := e.Create(ctx, s, "tasks", task(), receipt); err != nil {
					return engine.Response{}, err
				}
			}
			return engine.Response{Status: 200}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		batched := float64(counter.Count()-before) / n
		t.Logf("statements per task create with 3 lines: %d alone, %.1f in an atomic batch of %d", alone, batched, n)
		if batched > float64(alone)*0.6 {
			t.Errorf("a create in a batch costs %.1f statements, alone %d: want at most 60%%", batched, alone)
		}
	})
}

// TestStatementsPerCreateInBatchOfLikeCreates pins what a task create
// with 3 material lines costs in an atomic batch of like creates (the
// hint POST /v1/batch gives, engine.WithLikeWrites): its insert (with its
// Id, the row number) and its lines' insert, 2 statements (3 when its
// computed extra field was read back, 4 when a rule's UPDATE wrote the
// Id); its number is taken
// with the batch's others and checked free in one statement each, and
// the batch's reads, change log and events are shared. Counted through
// the driver on SQLite and PostgreSQL.
func TestStatementsPerCreateInBatchOfLikeCreates(t *testing.T) {
	onCountedEngines(t, func(t *testing.T, e *reference.Engine, counter *dbtest.StatementCounter) {
		ctx, s := context.Background(), statementsSession
		task := func() engine.Input { return taskInput("batched", "4001", "4025", "4002") }
		receipt := engine.Receipt{Render: func(engine.Record) (engine.Response, error) { return engine.Response{Status: 201}, nil }}
		if _, err := e.Create(ctx, s, "tasks", task(), receipt); err != nil { // warms the caches
			t.Fatal(err)
		}
		const n = 50
		before := counter.Count()
		_, err := e.Atomically(ctx, s, engine.Claim{}, func(ctx context.Context) (engine.Response, error) {
			for i := range n {
				if _, err := e.Create(engine.WithLikeWrites(ctx, n-i), s, "tasks", task(), receipt); err != nil {
					return engine.Response{}, err
				}
			}
			return engine.Response{Status: 200}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		batched := float64(counter.Count()-before) / n
		t.Logf("statements per task create with 3 lines in an atomic batch of %d like creates: %.2f", n, batched)
		if batched > 2.3 {
			t.Errorf("a create in a batch of like creates costs %.2f statements: want at most 2.3 (2, and the batch's shared ones)", batched)
		}
	})
}

// TestStatementsPerCreateInBatchReadAhead: the creates of an atomic
// batch whose references POST /v1/batch read ahead (engine.Atomic's
// ReadAhead) send no query of their own for them, though each names
// another customer: one query per referenced register serves the whole
// batch, and a create costs what it does when every one names the same
// customer (TestStatementsPerCreateInBatchOfLikeCreates: 2). Counted
// through the driver on SQLite and PostgreSQL.
func TestStatementsPerCreateInBatchReadAhead(t *testing.T) {
	onCountedEngines(t, func(t *testing.T, e *reference.Engine, counter *dbtest.StatementCounter) {
		ctx, s := context.Background(), statementsSession
		const n = 40 // demo's customers 1001 to 1040
		tasks := make([]engine.PlannedWrite, n)
		for i := range tasks {
			in := taskInput("read ahead", "4001", "4025", "4002")
			in.Values["CustomerNr"] = fmt.Sprint(1001 + i)
			tasks[i] = engine.PlannedWrite{Register: "tasks", Input: in, Create: true}
		}
		receipt := engine.Receipt{Render: func(engine.Record) (engine.Response, error) { return engine.Response{Status: 201}, nil }}
		if _, err := e.Create(ctx, s, "tasks", taskInput("warms the caches", "4001"), receipt); err != nil {
			t.Fatal(err)
		}
		before := counter.Count()
		_, err := e.Atomically(ctx, s, engine.Claim{}, func(ctx context.Context) (engine.Response, error) {
			if err := e.ReadAhead(ctx, s, tasks); err != nil {
				return engine.Response{}, err
			}
			for i, task := range tasks {
				if _, err := e.Create(engine.WithLikeWrites(ctx, n-i), s, "tasks", task.Input, receipt); err != nil {
					return engine.Response{}, err
				}
			}
			return engine.Response{Status: 200}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		batched := float64(counter.Count()-before) / n
		t.Logf("statements per task create, each for another customer, in an atomic batch of %d read ahead: %.2f", n, batched)
		if batched > 2.3 {
			t.Errorf("a create in a batch read ahead costs %.2f statements: want at most 2.3 (no read of its customer)", batched)
		}
	})
}

// taskInput is a task of demo's customer 1001 with the text given and a
// material line of quantity 1 for each product.
func taskInput(text string, products ...string) engine.Input {
	in := engine.NewInput()
	in.Values["CustomerNr"], in.Values["TaskText"] = "1001", text
	for _, p := range products {
		line := engine.NewInput()
		line.Values["ProductNr"], line.Values["Quantity"] = p, 1.0
		in.AddLine("materials", line)
	}
	return in
}
