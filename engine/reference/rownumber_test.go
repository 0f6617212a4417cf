package reference_test

import (
	"context"
	"slices"
	"strconv"
	"testing"

	"fieldapi/engine"
	"fieldapi/engine/reference"
)

// TestTaskIdIsItsRowNumber: a task created alone, with lines, or in an
// atomic batch has its row number as Id (catalog rowNumber): the row's
// seq as text, stored in its row by the task's own INSERT, increasing
// from task to task, and answered by the create. On SQLite and
// PostgreSQL, read past the engine.
func TestTaskIdIsItsRowNumber(t *testing.T) {
	for _, b := range sqlBackends(t) {
		t.Run(b.Name, func(t *testing.T) {
			ctx := context.Background()
			dsn := b.DSN(t)
			e := openDemo(t, dsn, builtin(t), reference.Options{})
			s := engine.Session{Company: "demo", Sign: "API", ClientID: "rownumber"}
			task := func(lines int) engine.Input {
				return taskInput("row number", slices.Repeat([]string{"4001"}, lines)...)
			}
			answered := map[string]any{} // Nr → the Id the create answered with
			create := func(ctx context.Context, lines int) {
				t.Helper()
				var c capture
				if _, err := e.Create(ctx, s, "tasks", task(lines), c.receipt()); err != nil {
					t.Fatal(err)
				}
				answered[c.rec["Nr"].(string)] = c.rec["Id"]
			}
			create(ctx, 0)
			create(ctx, 3)
			_, err := e.Atomically(ctx, s, engine.Claim{}, func(ctx context.Context) (engine.Response, error) {
				for i := range 3 {
					create(engine.WithLikeWrites(ctx, 3-i), i)
				}
				return engine.Response{Status: 200}, nil
			})
			if err != nil {
				t.Fatal(err)
			}
			rows, err := rawDB(t, dsn).Query(`SELECT "nr", "seq", "id" FROM "tasks" WHERE "company" = 'demo' ORDER BY "seq"`)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			var seqs []int64
			for rows.Next() {
				var nr string
				var seq int64
				var id *string
				if err := rows.Scan(&nr, &seq, &id); err != nil {
					t.Fatal(err)
				}
				want, created := answered[nr]
				if !created {
					continue // the demo data's, with the Ids it gives
				}
				if id == nil || *id != strconv.FormatInt(seq, 10) || want != *id {
					t.Errorf("task %s: row %d stores Id %v and the create answered %#v; want %q in both", nr, seq, deref(id), want, strconv.FormatInt(seq, 10))
				}
				seqs = append(seqs, seq)
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			if len(seqs) != len(answered) {
				t.Fatalf("found %d of the %d tasks created", len(seqs), len(answered))
			}
		})
	}
}

func deref(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}
