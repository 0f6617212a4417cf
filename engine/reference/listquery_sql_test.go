package reference_test

import (
	"context"
	"database/sql/driver"
	"strings"
	"testing"

	"github.com/ngrok/sqlmw"

	"fieldapi/engine"
	"fieldapi/engine/reference"
)

// TestListValuesNeverReachSQLText: the values of filter operators, sort
// cursors and estimated counts are bound as parameters; no statement's
// text holds them (SQLite and PostgreSQL).
func TestListValuesNeverReachSQLText(t *testing.T) {
	const marker = "x'); DROP TABLE tasks; --"
	for _, b := range sqlBackends(t) {
		t.Run(b.Name, func(t *testing.T) {
			rec := &queryRecorder{}
			e := openDemo(t, b.DSN(t), builtin(t), reference.Options{
				WrapDriver: func(d driver.Driver) driver.Driver { return sqlmw.Driver(d, rec) }})
			s := engine.Session{Company: "demo", Sign: "API", ClientID: "sqltext"}
			ctx := context.Background()
			after := int64(1 << 40)
			for _, q := range []engine.Query{
				{Limit: 5, Count: engine.CountEstimated, Where: []engine.Condition{{Field: "CustomerNr", Op: engine.OpIn, Values: []any{marker, "1001"}}}},
				{Limit: 5, Where: []engine.Condition{{Field: "CustomerNr", Op: engine.OpPrefix, Values: []any{marker}}}},
				{Limit: 5, Where: []engine.Condition{{Field: "TaskText", Op: engine.OpGte, Values: []any{marker}}}},
				{Limit: 5, Sort: []engine.SortKey{{Field: "PlanStartDate", Desc: true}, {Field: "Nr"}}, After: &after, AfterKeys: []any{"2026-01-01", marker}},
			} {
				if _, err := e.List(ctx, s, "tasks", q); err != nil {
					t.Fatalf("List %+v: %v", q, err)
				}
			}
			rec.mu.Lock()
			defer rec.mu.Unlock()
			if len(rec.queries) == 0 {
				t.Fatal("no statement recorded")
			}
			for _, text := range rec.queries {
				if strings.Contains(text, "DROP TABLE") {
					t.Errorf("a value reached the SQL text: %s", text)
				}
			}
		})
	}
}
