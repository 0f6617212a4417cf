package reference_test

import (
	"context"
	"database/sql/driver"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ngrok/sqlmw"

	"fieldapi/engine"
	"fieldapi/engine/reference"
)

// TestStatementsPerExpansionDoNotGrowWithThePage: expand= reads each
// expanded relation for a whole page at once, so what an expansion adds
// to a list's statements is bounded the same for a page of 5 records as
// for one of 50 (counted through the database driver, on SQLite and
// PostgreSQL): one query for the related records, plus what their
// register's own read adds once per page (its extra fields); none when no
// record of the page names one (the first tasks have no project).
func TestStatementsPerExpansionDoNotGrowWithThePage(t *testing.T) {
	for _, b := range sqlBackends(t) {
		t.Run(b.Name, func(t *testing.T) {
			ctx := context.Background()
			e, counter := countedDemoEngine(t, b.DSN(t))
			s := engine.Session{Company: "demo", Sign: "API", ClientID: "statements"}
			list := func(register string, limit int, expand ...string) int64 {
				t.Helper()
				q := engine.Query{Limit: limit}
				for _, name := range expand {
					q.Shape.Expand = append(q.Shape.Expand, engine.Expand{Name: name})
				}
				if _, err := e.List(ctx, s, register, q); err != nil { // the first read warms the engine's caches
					t.Fatal(err)
				}
				before := counter.Count()
				page, err := e.List(ctx, s, register, q)
				if err != nil {
					t.Fatal(err)
				}
				if len(page.Records) != limit {
					t.Fatalf("%s: %d records; want %d", register, len(page.Records), limit)
				}
				for _, rec := range page.Records {
					for _, name := range expand {
						if _, ok := rec[name]; !ok {
							t.Fatalf("%s: a record lacks its expansion %s", register, name)
						}
					}
				}
				return counter.Count() - before
			}
			for _, tc := range []struct {
				register string
				expand   []string
				most     int64 // statements the expansions may add to a page
			}{
				{"tasks", []string{"Customer"}, 2},            // the customers, their extra fields
				{"tasks", []string{"Customer", "Project"}, 3}, // and the projects
				{"customers", []string{"Contacts"}, 1},        // the contacts
				{"materials", []string{"Product"}, 2},         // the products, their extra fields
			} {
				added5 := list(tc.register, 5, tc.expand...) - list(tc.register, 5)
				added50 := list(tc.register, 50, tc.expand...) - list(tc.register, 50)
				t.Logf("%s expand=%v: %d statements more for a page of 5, %d for a page of 50", tc.register, tc.expand, added5, added50)
				if added5 > tc.most || added50 < 1 || added50 > tc.most {
					t.Errorf("%s expand=%v: %d statements more for a page of 5, %d for 50; want at most %d for either page", tc.register, tc.expand, added5, added50, tc.most)
				}
			}
		})
	}
}

// queryRecorder keeps the text of the queries a database is sent, and
// their arguments.
type queryRecorder struct {
	sqlmw.NullInterceptor
	mu      sync.Mutex
	queries []string
	args    [][]driver.NamedValue
}

func (r *queryRecorder) record(query string, args []driver.NamedValue) {
	r.mu.Lock()
	r.queries = append(r.queries, query)
	r.args = append(r.args, args)
	r.mu.Unlock()
}

func (r *queryRecorder) ConnQueryContext(ctx context.Context, conn driver.QueryerContext, query string, args []driver.NamedValue) (context.Context, driver.Rows, error) {
	r.record(query, args)
	rows, err := conn.QueryContext(ctx, query, args)
	return ctx, rows, err
}

func (r *queryRecorder) StmtQueryContext(ctx context.Context, stmt driver.StmtQueryContext, query string, args []driver.NamedValue) (context.Context, driver.Rows, error) {
	r.record(query, args)
	rows, err := stmt.QueryContext(ctx, args)
	return ctx, rows, err
}

// recordedDemo opens the demo engine over dsn, recording the queries it
// sends from its opening on.
func recordedDemo(t *testing.T, dsn string) (*reference.Engine, *queryRecorder) {
	t.Helper()
	rec := &queryRecorder{}
	e := openDemo(t, dsn, builtin(t), reference.Options{
		WrapDriver: func(d driver.Driver) driver.Driver { return sqlmw.Driver(d, rec) }})
	rec.mu.Lock()
	rec.queries, rec.args = nil, nil
	rec.mu.Unlock()
	return e, rec
}

// since are the queries recorded after the first n.
func (r *queryRecorder) since(n int) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.queries[n:])
}

// argsOf are the arguments of the query recorded i-th.
func (r *queryRecorder) argsOf(i int) []driver.NamedValue {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.args[i]
}

// count is how many queries are recorded.
func (r *queryRecorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.queries)
}

// TestLineFieldsReadOnlyTheirColumns: a list whose fields narrow a line
// list of the read shape (Shape.Lines) reads those lines' columns named
// (with the owner field and the key the read needs), in one query for
// the page; an expanded line list with MaxLines reads at most one line
// more than the page may carry (LIMIT records×MaxLines+1).
func TestLineFieldsReadOnlyTheirColumns(t *testing.T) {
	for _, b := range sqlBackends(t) {
		t.Run(b.Name, func(t *testing.T) {
			ctx := context.Background()
			e, rec := recordedDemo(t, b.DSN(t))
			s := engine.Session{Company: "demo", Sign: "API", ClientID: "columns"}
			from := rec.count()
			page, err := e.List(ctx, s, "tasks", engine.Query{Limit: 10, Shape: engine.Shape{
				Fields: []string{"Status", "Materials"},
				Lines:  map[string][]string{"Materials": {"Id", "Quantity"}},
			}})
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Records) != 10 || page.Records[0]["Materials"] == nil || page.Records[0]["Times"] != nil {
				t.Fatalf("records %v; want the key, Status and Materials only", page.Records[0])
			}
			var materials []string
			for _, q := range rec.since(from) {
				switch {
				case strings.Contains(q, `FROM "materials"`):
					materials = append(materials, q)
				case strings.Contains(q, `"times"`):
					t.Errorf("a query for Times, which fields left out: %s", q)
				}
			}
			if len(materials) != 1 {
				t.Fatalf("%d queries of materials; want one for the page: %q", len(materials), materials)
			}
			for _, want := range []string{`"quantity"`, `"owner_nr"`} {
				if !strings.Contains(materials[0], want) {
					t.Errorf("the materials query lacks %s: %s", want, materials[0])
				}
			}
			for _, unwanted := range []string{`"product_nr"`, `"note"`, `"price"`} {
				if strings.Contains(materials[0], unwanted) {
					t.Errorf("the materials query reads %s, which fields left out: %s", unwanted, materials[0])
				}
			}

			from = rec.count()
			if _, err := e.List(ctx, s, "customers", engine.Query{Limit: 7, Shape: engine.Shape{Expand: []engine.Expand{{Name: "Contacts", MaxLines: 100}}}}); err != nil {
				t.Fatal(err)
			}
			var limited bool
			for i, q := range rec.since(from) {
				if !strings.Contains(q, `FROM "contacts"`) {
					continue
				}
				args := rec.argsOf(from + i)
				// LIMIT ? OFFSET ?: the limit is the last argument but one.
				limited = strings.Contains(q, " LIMIT ") && len(args) >= 2 && fmt.Sprint(args[len(args)-2].Value) == "701"
				if !limited {
					t.Errorf("the expanded contacts query is not limited to 7×100+1 lines: %s %v", q, args)
				}
			}
			if !limited {
				t.Error("no query of the expanded contacts")
			}
		})
	}
}

// TestFieldsReadOnlyTheirColumns: a list with fields= has the store read
// the columns named (and the key), not the record's others, nor its extra
// fields or line lists unless named; an expanded record is read the same.
func TestFieldsReadOnlyTheirColumns(t *testing.T) {
	for _, b := range sqlBackends(t) {
		t.Run(b.Name, func(t *testing.T) {
			ctx := context.Background()
			e, rec := recordedDemo(t, b.DSN(t))
			s := engine.Session{Company: "demo", Sign: "API", ClientID: "columns"}
			page, err := e.List(ctx, s, "tasks", engine.Query{Limit: 10, Shape: engine.Shape{
				Fields: []string{"Status"},
				Expand: []engine.Expand{{Name: "Customer", Fields: []string{"City"}}},
			}})
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Records) != 10 || page.Records[0]["Status"] == nil || page.Records[0]["TaskText"] != nil || page.Records[0]["Materials"] != nil {
				t.Fatalf("records %v; want the key, Status and CustomerNr (followed by the expansion) only", page.Records[0])
			}
			var tasks, customers string
			for _, q := range rec.queries {
				switch {
				case strings.Contains(q, `FROM "tasks"`) && strings.HasPrefix(q, "SELECT"):
					tasks = q
				case strings.Contains(q, `FROM "customers"`):
					customers = q
				case strings.Contains(q, `"materials"`) || strings.Contains(q, `"times"`) || strings.Contains(q, "extra_field"):
					t.Errorf("a query for what fields= left out: %s", q)
				}
			}
			for _, want := range []string{`"status"`, `"nr"`, `"customer_nr"`} {
				if !strings.Contains(tasks, want) {
					t.Errorf("the tasks query lacks %s: %s", want, tasks)
				}
			}
			if strings.Contains(tasks, `"task_text"`) || !strings.Contains(customers, `"city"`) || strings.Contains(customers, `"email"`) {
				t.Errorf("queries read columns fields= left out:\n%s\n%s", tasks, customers)
			}
		})
	}
}
