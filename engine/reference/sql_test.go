package reference_test

import (
	"context"
	"maps"
	"testing"

	"fieldapi/catalog"
	"fieldapi/engine"
	"fieldapi/engine/demo"
	"fieldapi/engine/reference"
	"fieldapi/internal/dbtest"
)

// The reference engine over SQL: what its storage does beside the port
// (schema migrations, the counts it keeps, bulk loads, faults), checked
// on SQLite and, with FIELDAPI_TEST_POSTGRES, PostgreSQL, reading the
// database directly where the port shows nothing. What the engine does
// through the port is engine/enginetest's, run by TestConformance.

// demoAPI is the demo company's API signature, which may do everything.
var demoAPI = engine.Session{Company: "demo", Sign: "API", ClientID: "reference_test"}

// sqlBackends are the backends with a SQL database.
func sqlBackends(t *testing.T) []dbtest.Backend { return dbtest.SQL(t) }

// builtin is the builtin catalog.
func builtin(t *testing.T) *catalog.Catalog {
	t.Helper()
	cat, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

// openDemo opens an engine of cat on dsn, migrates it and loads the demo
// companies; it is closed when the test ends.
func openDemo(t *testing.T, dsn string, cat *catalog.Catalog, opt reference.Options) *reference.Engine {
	t.Helper()
	e := openEngine(t, dsn, cat, opt)
	ctx := context.Background()
	if err := e.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if err := demo.Load(ctx, e); err != nil {
		t.Fatal(err)
	}
	return e
}

// capture is a receipt that keeps the record it renders.
type capture struct{ rec engine.Record }

func (c *capture) receipt() engine.Receipt {
	return engine.Receipt{Render: func(r engine.Record) (engine.Response, error) {
		c.rec = r
		return engine.Response{Status: 201}, nil
	}}
}

// queryInts runs a query of the database directly and reads each row's
// first column as text and its second as a number.
func queryInts(t *testing.T, dsn, query string) map[string]int {
	t.Helper()
	db := rawDB(t, dsn)
	defer db.Close()
	rows, err := db.Query(query)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var key string
		var n int
		if err := rows.Scan(&key, &n); err != nil {
			t.Fatal(err)
		}
		out[key] = n
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// count counts the rows of a table matching a condition (SQL, "" for all).
func count(t *testing.T, dsn, table, where string) int {
	t.Helper()
	query := `SELECT 'n', COUNT(*) FROM "` + table + `"`
	if where != "" {
		query += ` WHERE ` + where
	}
	return queryInts(t, dsn, query)["n"]
}

// tableCounts counts the rows of every table of the database, the
// engine's own and the registers' alike.
func tableCounts(t *testing.T, dsn string) map[string]int {
	t.Helper()
	query := `SELECT name, 0 FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`
	if isPostgres(dsn) {
		query = `SELECT tablename, 0 FROM pg_tables WHERE schemaname = current_schema()`
	}
	counts := map[string]int{}
	for name := range queryInts(t, dsn, query) {
		counts[name] = count(t, dsn, name, "")
	}
	return counts
}

// countsExact checks every counted table's stored counts against its
// rows, per company: the counts hold exactly the companies with rows.
func countsExact(t *testing.T, dsn string, cat *catalog.Catalog) {
	t.Helper()
	schema, err := reference.Schema(cat)
	if err != nil {
		t.Fatal(err)
	}
	for _, tb := range schema.Tables {
		if !tb.Counted {
			continue
		}
		rows := queryInts(t, dsn, `SELECT "company", COUNT(*) FROM "`+tb.Name+`" GROUP BY "company"`)
		// A count is its row plus the deltas not merged into it yet.
		stored := queryInts(t, dsn, `SELECT "company", SUM("n") FROM (
			SELECT "company", "n" FROM "record_counts" WHERE "register" = '`+tb.Name+`'
			UNION ALL SELECT "company", "n" FROM "record_count_deltas" WHERE "register" = '`+tb.Name+`') AS "c"
			GROUP BY "company" HAVING SUM("n") <> 0`)
		if !maps.Equal(rows, stored) {
			t.Errorf("%s: stored counts %v; rows per company %v", tb.Name, stored, rows)
		}
	}
}

// columns lists a table's columns.
func columns(t *testing.T, dsn, table string) map[string]bool {
	t.Helper()
	db := rawDB(t, dsn)
	defer db.Close()
	rows, err := db.Query(`SELECT * FROM "` + table + `" WHERE 1 = 0`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	names, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, n := range names {
		out[n] = true
	}
	return out
}
