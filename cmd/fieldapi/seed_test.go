package main

import (
	"database/sql"
	"strings"
	"testing"

	"github.com/matryer/is"

	"fieldapi/engine"
)

// seed fills a company through the bulk path on both databases: the list
// totals count what it wrote, a task's lines are found by their owner, the
// same seed writes the same data, and without a terminal progress is
// reported in plain lines.
func TestSeedFillsACompany(t *testing.T) {
	dsns := map[string]func(t *testing.T) string{"sqlite": newDSN, "postgres": postgresDSN}
	for name, dsnOf := range dsns {
		t.Run(name, func(t *testing.T) {
			is := is.New(t)
			dsn := dsnOf(t)
			r := runCLI(t, nil, "seed", "--db", dsn, "--tasks", "300", "--customers", "20", "--orders", "30", "--batch", "70")
			is.Equal(r.code, 0) // seed exits 0
			is.True(strings.Contains(r.stdout, "20 customers, 40 objects, 300 tasks"))
			is.True(strings.Contains(r.stderr, "seeded 390 of 390 records (100 %"))

			eng := openTestEngine(t, dsn)
			s := engine.Session{Company: "demo", Sign: "API", ClientID: "test"}
			total := func(register string, where ...engine.Condition) (int, engine.Record) {
				page, err := eng.List(t.Context(), s, register, engine.Query{Limit: 1, Where: where})
				is.NoErr(err)
				return *page.Total, page.Records[0]
			}
			tasks, newest := total("tasks")
			is.Equal(tasks, 300+64) // the demo company has 64
			is.Equal(newest["Nr"], "10364")
			is.True(newest["CustomerName"] != "")
			lines, _ := total("materials", engine.Condition{Field: "OwnerNr", Op: engine.OpEquals, Values: []any{"10364"}})
			is.True(lines >= 1 && lines <= 3)
			orders, _ := total("orders")
			is.Equal(orders, 30+12)

			// An API create continues the task series after the seeded numbers.
			resp, err := eng.Create(t.Context(), s, "tasks", engine.Input{Values: map[string]any{"CustomerNr": "1001"}},
				engine.Receipt{Render: func(rec engine.Record) (engine.Response, error) {
					is.Equal(rec["Nr"], "10365")
					return engine.Response{Status: 201}, nil
				}})
			is.NoErr(err)
			is.Equal(resp.Status, 201)

			if name == "postgres" {
				// The seed leaves the tables vacuumed, as autovacuum would
				// after a load: their pages all-visible.
				db, err := sql.Open("pgx", dsn)
				is.NoErr(err)
				defer db.Close()
				var visible int
				is.NoErr(db.QueryRow(`SELECT relallvisible FROM pg_class WHERE oid = 'materials'::regclass`).Scan(&visible))
				is.True(visible > 0) // the seeded material lines' pages are marked all-visible
			}
		})
	}
}

func TestSeedRefusesBadCounts(t *testing.T) {
	is := is.New(t)
	r := runCLI(t, nil, "seed", "--db", newDSN(t), "--tasks", "10", "--customers", "0")
	is.Equal(r.code, exitUsage)
	is.True(strings.Contains(r.stderr, "--customers must be at least 1"))
}
