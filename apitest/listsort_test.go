package apitest

import (
	"cmp"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"fieldapi/runtime"
)

// sortedKeys is records (newest first) sorted as sort= sorts them: by
// the keys, rows without a value last in either direction, ties newest
// first.
func sortedKeys(records []map[string]any, key, sort string) []string {
	recs := slices.Clone(records)
	slices.SortStableFunc(recs, func(a, b map[string]any) int {
		for item := range strings.SplitSeq(sort, ",") {
			name, desc := strings.CutPrefix(item, "-")
			name = strings.ToUpper(name[:1]) + name[1:]
			x, y := a[name], b[name]
			if (x == nil) != (y == nil) {
				return map[bool]int{true: 1, false: -1}[x == nil]
			}
			if x == nil {
				continue
			}
			var n int
			switch xv := x.(type) {
			case float64:
				n = cmp.Compare(xv, y.(float64))
			default:
				n = strings.Compare(fmt.Sprint(x), fmt.Sprint(y))
			}
			if desc {
				n = -n
			}
			if n != 0 {
				return n
			}
		}
		return 0
	})
	keys := make([]string, len(recs))
	for i, r := range recs {
		keys[i] = keyOf(r, key)
	}
	return keys
}

// TestListSort: under every allowed sort a cursor walk reads every
// record once, in the sort's order (NULLs last, ties newest first), page
// paging agrees, records created during a walk neither repeat nor hide
// others, and a cursor is bound to its sort.
func TestListSort(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		t.Parallel()
		e := Start(t, b, runtime.Config{})
		tasks := e.all(t, "tasks")
		// NULLs and ties: clear two plan dates, give three one date.
		for i, rec := range tasks[:5] {
			body := map[string]any{"planStartDate": "", "planStopDate": ""}
			if i >= 2 {
				body = map[string]any{"planStartDate": "2026-03-01", "planStopDate": "2026-03-0" + fmt.Sprint(i%2+2)}
			}
			Expect(t, e.Patch(KeyPath("tasks", keyOf(rec, "Nr")), body), http.StatusOK)
		}
		tasks = e.all(t, "tasks")
		for _, c := range []struct{ register, key, sort string }{
			{"tasks", "Nr", "-PlanStartDate"},
			{"tasks", "Nr", "planStartDate"},
			{"tasks", "Nr", "-planStopDate,nr"},
			{"tasks", "Nr", "planStopDate,-PlanStartDate"},
			{"tasks", "Nr", "Nr"},
			{"tasks", "Nr", "-Nr"},
			{"products", "Nr", "-basePrice,name"},
			{"customers", "Nr", "name"},
		} {
			records := tasks
			if c.register != "tasks" {
				records = e.all(t, c.register)
			}
			want := sortedKeys(records, c.key, c.sort)
			got := e.walk(t, c.register, c.key, "sort="+c.sort)
			if !slices.Equal(got, want) {
				t.Errorf("%s?sort=%s walked %q; want %q", c.register, c.sort, got, want)
			}
			p := e.listPage(t, "/v1/"+c.register+"?limit=7&page=2&sort="+c.sort)
			var paged []string
			for _, r := range p.Items {
				paged = append(paged, keyOf(r, c.key))
			}
			if !slices.Equal(paged, want[7:14]) {
				t.Errorf("%s?sort=%s page 2: %q; want %q", c.register, c.sort, paged, want[7:14])
			}
		}

		// A narrowed read sorts by a field it does not answer with: the
		// walk is still whole and in order, and the records carry only
		// what fields= names.
		want := sortedKeys(tasks, "Nr", "-planStopDate,nr")
		if got := e.walk(t, "tasks", "Nr", "fields=Nr,Status&sort=-planStopDate,nr"); !slices.Equal(got, want) {
			t.Errorf("tasks?fields=Nr,Status&sort=-planStopDate,nr walked %q; want %q", got, want)
		}
		for _, r := range e.listPage(t, "/v1/tasks?limit=3&fields=Nr&sort=planStartDate").Items {
			if _, ok := r["PlanStartDate"]; ok || len(r) != 1 {
				t.Errorf("tasks?fields=Nr&sort=planStartDate answered %v; want only Nr", r)
			}
		}

		// Filters and sort together, with records created during the walk.
		path := "/v1/tasks?limit=4&sort=planStartDate&planStartDate[gte]=2025-01-01"
		var before []string
		for _, r := range tasks {
			if d, ok := text(r, "PlanStartDate"); ok && d >= "2025-01-01" {
				before = append(before, keyOf(r, "Nr"))
			}
		}
		seen := map[string]int{}
		next := path
		for pages := 0; pages < 100; pages++ {
			p := e.listPage(t, next)
			for _, r := range p.Items {
				seen[keyOf(r, "Nr")]++
			}
			Expect(t, e.Post("/v1/tasks", map[string]any{"customerNr": "1001", "planStartDate": "2025-06-0" + fmt.Sprint(pages%9+1)}), http.StatusCreated)
			if p.NextCursor == nil {
				break
			}
			next = path + "&cursor=" + *p.NextCursor
			if pages == 0 {
				// The cursor is bound to its sort.
				r := e.Get("/v1/tasks?limit=4&sort=-planStartDate&planStartDate[gte]=2025-01-01&cursor=" + *p.NextCursor)
				Expect(t, r, http.StatusBadRequest)
			}
		}
		for _, nr := range before {
			if seen[nr] != 1 {
				t.Errorf("task %s seen %d times in a sorted walk during creates; want once", nr, seen[nr])
			}
		}
		for nr, n := range seen {
			if n > 1 {
				t.Errorf("task %s seen %d times", nr, n)
			}
		}
	})
}

// TestListSortRefused: an unsortable or unknown field, an empty item or
// a repeated field is a 400 naming the sortable fields.
func TestListSortRefused(t *testing.T) {
	e := Start(t, Backends(t)[0], runtime.Config{}).SkipRequestValidation()
	for _, sort := range []string{"Status", "nosuch", "", "-", "nr,,planStartDate", "Nr,-nr", "PlanStartDate%3Bdrop%20table%20tasks"} {
		r := e.Get("/v1/tasks?sort=" + sort)
		Expect(t, r, http.StatusBadRequest)
		p := r.Problem(t)
		if !strings.Contains(p.Detail, `"sort"`) || !slices.Equal(p.ValidValues, []string{"Nr", "PlanStartDate", "PlanStopDate"}) {
			t.Errorf("sort=%s: %q, validValues %q; want the sortable fields", sort, p.Detail, p.ValidValues)
		}
	}
	// A list without sortable fields refuses sort=.
	Expect(t, e.Get("/v1/users?sort=Name"), http.StatusBadRequest)
	// A forged cursor whose sort value has another type is a 400, never a 500.
	first := e.listPage(t, "/v1/tasks?limit=2&sort=planStartDate")
	forged := forgeCursorKeys(t, *first.NextCursor, []any{12.5})
	Expect(t, e.Get("/v1/tasks?limit=2&sort=planStartDate&cursor="+forged), http.StatusBadRequest)
}
