package reference_test

import (
	"context"
	"database/sql/driver"
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
				before := counter.n.Load()
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
				return counter.n.Load() - before
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

// queryRecorder keeps the text of the queries a database is sent.
type queryRecorder struct {
	sqlmw.NullInterceptor
	mu      sync.Mutex
	queries []string
}

func (r *queryRecorder) record(query string) {
	r.mu.Lock()
	r.queries = append(r.queries, query)
	r.mu.Unlock()
}

func (r *queryRecorder) ConnQueryContext(ctx context.Context, conn driver.QueryerContext, query string, args []driver.NamedValue) (context.Context, driver.Rows, error) {
	r.record(query)
	rows, err := conn.QueryContext(ctx, query, args)
	return ctx, rows, err
}

func (r *queryRecorder) StmtQueryContext(ctx context.Context, stmt driver.StmtQueryContext, query string, args []driver.NamedValue) (context.Context, driver.Rows, error) {
	r.record(query)
	rows, err := stmt.QueryContext(ctx, args)
	return ctx, rows, err
}

// TestFieldsReadOnlyTheirColumns: a list with fields= has the store read
// the columns named (and the key), not the record's others, nor its extra
// fields or line lists unless named; an expanded record is read the same.
func TestFieldsReadOnlyTheirColumns(t *testing.T) {
	for _, b := range sqlBackends(t) {
		t.Run(b.Name, func(t *testing.T) {
			ctx := context.Background()
			rec := &queryRecorder{}
			e := openDemo(t, b.DSN(t), builtin(t), reference.Options{
				WrapDriver: func(d driver.Driver) driver.Driver { return sqlmw.Driver(d, rec) }})
			s := engine.Session{Company: "demo", Sign: "API", ClientID: "columns"}
			rec.mu.Lock()
			rec.queries = nil
			rec.mu.Unlock()
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
