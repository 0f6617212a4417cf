package apitest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/jmoiron/sqlx"

	"fieldapi/runtime"
)

// The speed targets of the foundation issue, checked here and never by
// timed tests (make bench):
//   - the framework adds at most 20% to a hand-written net/http + sqlx
//     handler that answers the same read (BenchmarkGetCustomer);
//   - a cursor page at depth 100,000 costs what the first page costs
//     (BenchmarkCursorPage).

const seededCustomers = 100_000

// seededEnv is a running service whose company demo holds 100,000 extra
// customers, inserted straight into the engine's table in one transaction.
func seededEnv(b *testing.B) (*Env, *sqlx.DB) {
	b.Helper()
	env := Start(b, Backends(b)[0], runtime.Config{RateLimit: -1})
	db, err := sqlx.Open("sqlite", strings.TrimPrefix(env.DSN, "sqlite:")+"?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	tx := db.MustBegin()
	stmt, err := tx.Prepare(`INSERT INTO "customers" ("company", "modified", "nr", "name", "status", "city") VALUES ('demo', ?, ?, ?, 'Active', 'Bergen')`)
	if err != nil {
		b.Fatal(err)
	}
	for i := range seededCustomers {
		if _, err := stmt.Exec(fmt.Sprintf("2026-01-01T00:00:%02d.000000Z", i%60), fmt.Sprintf("B%06d", i), fmt.Sprintf("Bench Kunde %d", i)); err != nil {
			b.Fatal(err)
		}
	}
	// The rows went in behind the engine's back: count them as it would.
	tx.MustExec(`INSERT INTO "record_count_deltas" ("company", "register", "n") VALUES ('demo', 'customers', ?)`, seededCustomers)
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	return env, db
}

// handWritten is what an engineer would write by hand for GET one
// customer: check the bearer, read the row and its extra fields, encode.
func handWritten(db *sqlx.DB, key string) http.Handler {
	type customer struct {
		Nr, Name, Status, City *string
		Modified               string
		ExtraFields            map[string]string
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(runtime.HeaderAuthorization) != "Bearer "+key {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		nr := strings.TrimPrefix(r.URL.Path, "/v1/customers/")
		var row struct {
			Seq      int64   `db:"seq"`
			Nr       *string `db:"nr"`
			Name     *string `db:"name"`
			Status   *string `db:"status"`
			City     *string `db:"city"`
			Modified string  `db:"modified"`
		}
		err := db.GetContext(r.Context(), &row, `SELECT "seq", "nr", "name", "status", "city", "modified" FROM "customers" WHERE "company" = ? AND "nr" = ?`, "demo", nr)
		if err != nil {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		var extras []struct {
			Key   string `db:"key"`
			Value string `db:"value"`
		}
		if err := db.SelectContext(r.Context(), &extras, `SELECT "key", "value" FROM "extra_field_values" WHERE "company" = ? AND "register" = 'customers' AND "record_seq" = ?`, "demo", row.Seq); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		c := customer{Nr: row.Nr, Name: row.Name, Status: row.Status, City: row.City, Modified: row.Modified, ExtraFields: map[string]string{}}
		for _, x := range extras {
			c.ExtraFields[x.Key] = x.Value
		}
		w.Header().Set(runtime.HeaderContentType, "application/json")
		json.NewEncoder(w).Encode(c)
	})
}

func benchGet(b *testing.B, base, key, path string) {
	b.Helper()
	req, _ := http.NewRequest(http.MethodGet, base+path, nil)
	req.Header.Set(runtime.HeaderAuthorization, "Bearer "+key)
	for b.Loop() {
		getOK(b, req)
	}
}

// getOK sends req and decodes the answer, which must be 200.
func getOK(b *testing.B, req *http.Request) {
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	var v map[string]any
	json.NewDecoder(resp.Body).Decode(&v)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b.Fatalf("status %d", resp.StatusCode)
	}
}

func BenchmarkGetCustomer(b *testing.B) {
	env, db := seededEnv(b)
	plain := httptest.NewServer(handWritten(db, env.Key))
	b.Cleanup(plain.Close)
	path := "/v1/customers/B050000"
	b.Run("handwritten", func(b *testing.B) { benchGet(b, plain.URL, env.Key, path) })
	b.Run("fieldapi", func(b *testing.B) { benchGet(b, env.URL, env.Key, path) })
}

func BenchmarkCursorPage(b *testing.B) {
	env, _ := seededEnv(b)
	// walk to depth 100,000 once, then time the page there against page one
	path := "/v1/customers?limit=500"
	for depth := 0; depth < seededCustomers; depth += 500 {
		resp := env.Get(path)
		var p struct{ NextCursor *string }
		resp.JSON(b, &p)
		if p.NextCursor == nil {
			b.Fatalf("list ended at depth %d", depth)
		}
		path = "/v1/customers?limit=500&cursor=" + url.QueryEscape(*p.NextCursor)
	}
	deep := strings.Replace(path, "limit=500", "limit=50", 1)
	b.Run("first-page", func(b *testing.B) { benchGet(b, env.URL, env.Key, "/v1/customers?limit=50") })
	b.Run("depth-100000", func(b *testing.B) { benchGet(b, env.URL, env.Key, deep) })
}
