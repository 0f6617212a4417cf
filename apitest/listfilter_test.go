package apitest

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"fieldapi/runtime"
)

// walk lists every record of a query by cursor and returns their keys,
// in order; it fails on a key seen twice.
func (e *Env) walk(t *testing.T, register, key, query string) []string {
	t.Helper()
	var keys []string
	seen := map[string]bool{}
	path := "/v1/" + register + "?limit=7"
	if query != "" {
		path += "&" + query
	}
	next := path
	for pages := 0; ; pages++ {
		if pages > 200 {
			t.Fatalf("%s: the walk did not end", path)
		}
		p := e.listPage(t, next)
		for _, rec := range p.Items {
			k, _ := rec[key].(string)
			if seen[k] {
				t.Fatalf("%s: %s %s seen twice", path, key, k)
			}
			seen[k] = true
			keys = append(keys, k)
		}
		if p.NextCursor == nil {
			return keys
		}
		next = path + "&cursor=" + url.QueryEscape(*p.NextCursor)
	}
}

// all reads every record of a register, newest first.
func (e *Env) all(t *testing.T, register string) []map[string]any {
	t.Helper()
	p := e.listPage(t, "/v1/"+register+"?limit=500")
	if p.NextCursor != nil {
		t.Fatalf("%s has more than 500 demo records", register)
	}
	return p.Items
}

func text(rec map[string]any, field string) (string, bool) {
	s, ok := rec[field].(string)
	return s, ok && s != ""
}

func number(rec map[string]any, field string) (float64, bool) {
	n, ok := rec[field].(float64)
	return n, ok
}

// TestListFilterOps: every operator keeps exactly the records its
// meaning keeps, on each type (dates, numbers, text), by cursor walk.
func TestListFilterOps(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		t.Parallel()
		e := Start(t, b, runtime.Config{})
		// Give some tasks no plan date and a few a date-time, so isnull
		// and whole-day bounds have something to find.
		tasks := e.all(t, "tasks")
		for i, nr := range []string{keyOf(tasks[0], "Nr"), keyOf(tasks[1], "Nr")} {
			body := map[string]any{"planStartDate": ""}
			if i == 1 {
				body["planStartDate"] = "2025-07-16T17:00:00Z"
			}
			Expect(t, e.Patch(KeyPath("tasks", nr), body), http.StatusOK)
		}
		tasks = e.all(t, "tasks")
		products := e.all(t, "products")
		customers := e.all(t, "customers")
		date := func(field string, keep func(d string) bool) func(map[string]any) bool {
			return func(rec map[string]any) bool { d, ok := text(rec, field); return ok && keep(d) }
		}
		cases := []struct {
			register, key, query string
			records              []map[string]any
			keep                 func(map[string]any) bool
		}{
			{"tasks", "Nr", "planStartDate[gte]=2025-07-16", tasks, date("PlanStartDate", func(d string) bool { return d >= "2025-07-16" })},
			{"tasks", "Nr", "planStartDate[gt]=2025-07-16", tasks, date("PlanStartDate", func(d string) bool { return d >= "2025-07-17" })},
			{"tasks", "Nr", "planStartDate[lte]=2025-07-16", tasks, date("PlanStartDate", func(d string) bool { return d < "2025-07-17" })},
			{"tasks", "Nr", "planStartDate[lt]=2025-07-16", tasks, date("PlanStartDate", func(d string) bool { return d < "2025-07-16" })},
			{"tasks", "Nr", "planStartDate[gte]=2025-07-01&planStartDate[lt]=2025-08-01", tasks, date("PlanStartDate", func(d string) bool { return d >= "2025-07-01" && d < "2025-08-01" })},
			{"tasks", "Nr", "planStartDate[isnull]=true", tasks, func(rec map[string]any) bool { _, ok := text(rec, "PlanStartDate"); return !ok }},
			{"tasks", "Nr", "planStartDate[isnull]=false", tasks, func(rec map[string]any) bool { _, ok := text(rec, "PlanStartDate"); return ok }},
			{"tasks", "Nr", "status[in]=Finished,Planned", tasks, func(rec map[string]any) bool { return rec["Status"] == "Finished" || rec["Status"] == "Planned" }},
			{"tasks", "Nr", "status[in]=Finished&customerNr[in]=1005,1007", tasks, func(rec map[string]any) bool {
				return rec["Status"] == "Finished" && (rec["CustomerNr"] == "1005" || rec["CustomerNr"] == "1007")
			}},
			{"tasks", "Nr", "estimatedTime[gte]=4&estimatedTime[lt]=8", tasks, func(rec map[string]any) bool { n, ok := number(rec, "EstimatedTime"); return ok && n >= 4 && n < 8 }},
			{"tasks", "Nr", "estimatedTime[gt]=4.5", tasks, func(rec map[string]any) bool { n, ok := number(rec, "EstimatedTime"); return ok && n > 4.5 }},
			{"products", "Nr", "basePrice[lte]=100", products, func(rec map[string]any) bool { n, ok := number(rec, "BasePrice"); return ok && n <= 100 }},
			{"customers", "Nr", "name[prefix]=Norr", customers, func(rec map[string]any) bool { s, _ := text(rec, "Name"); return strings.HasPrefix(s, "Norr") }},
			{"customers", "Nr", "name[prefix]=norr", customers, func(rec map[string]any) bool { s, _ := text(rec, "Name"); return strings.HasPrefix(s, "norr") }},
		}
		for _, c := range cases {
			var want []string
			for _, rec := range c.records {
				if c.keep(rec) {
					want = append(want, keyOf(rec, c.key))
				}
			}
			caseSensitive := c.query == "name[prefix]=norr" // keeps none: prefix is exact
			if !caseSensitive && (len(want) == 0 || len(want) == len(c.records)) {
				t.Errorf("%s?%s keeps %d of %d demo records: the case shows nothing", c.register, c.query, len(want), len(c.records))
			}
			got := e.walk(t, c.register, c.key, c.query)
			if !slices.Equal(got, want) {
				t.Errorf("%s?%s: %d records %q; want %d %q", c.register, c.query, len(got), got, len(want), want)
			}
			p := e.listPage(t, "/v1/"+c.register+"?limit=1&"+c.query)
			if p.Total == nil || *p.Total != len(want) {
				t.Errorf("%s?%s: total %v; want %d", c.register, c.query, p.Total, len(want))
			}
		}
		if n := len(e.walk(t, "tasks", "Nr", "planStartDate[isnull]=true")); n < 1 {
			t.Errorf("isnull=true found %d tasks; want the one cleared", n)
		}
	})
}

func keyOf(rec map[string]any, key string) string {
	s, _ := rec[key].(string)
	return s
}

// TestListFilterOpsRefused: a bad operator, value or enum value is a 400
// naming the parameter and, where known, the valid ones.
func TestListFilterOpsRefused(t *testing.T) {
	e := Start(t, Backends(t)[0], runtime.Config{}).SkipRequestValidation()
	for _, c := range []struct {
		query, param string
		valid        []string
	}{
		{"planStartDate[between]=1", "planStartDate[between]", []string{"gte", "lte", "gt", "lt", "isnull"}},
		{"customerNr[gte]=1", "customerNr[gte]", []string{"in"}},
		{"planStartDate[gte]=tomorrow", "planStartDate[gte]", nil},
		{"planStartDate[gte]=", "planStartDate[gte]", nil},
		{"estimatedTime[gt]=NaN", "estimatedTime[gt]", nil},
		{"estimatedTime[gt]=1e999", "estimatedTime[gt]", nil},
		{"planStartDate[isnull]=maybe", "planStartDate[isnull]", nil},
		{"status[in]=Finished,Started", "status[in]", []string{"Planned", "Sent", "Received", "InProgress", "Finished", "Archived"}},
		{"status[in]=,", "status[in]", nil},
		{"nosuch[gte]=1", "nosuch[gte]", nil},
		{"invoice[in]=1", "", nil},
	} {
		r := e.Get("/v1/tasks?" + c.query)
		Expect(t, r, http.StatusBadRequest)
		p := r.Problem(t)
		if c.param != "" && !strings.Contains(p.Detail, `"`+c.param+`"`) {
			t.Errorf("%s: detail %q does not name %s", c.query, p.Detail, c.param)
		}
		if c.valid != nil && !slices.Equal(p.ValidValues, c.valid) {
			t.Errorf("%s: validValues %q; want %q", c.query, p.ValidValues, c.valid)
		}
	}
	r := e.Get("/v1/tasks?nosuch=1")
	if p := r.Problem(t); !slices.Contains(p.ValidValues, "planStartDate[gte]") || !slices.Contains(p.ValidValues, "count") {
		t.Errorf("unknown parameter: validValues %q; want the operators and count too", p.ValidValues)
	}
}
