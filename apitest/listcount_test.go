package apitest

import (
	"net/http"
	"slices"
	"testing"

	"fieldapi/runtime"
)

// listPage is the list envelope as a client reads it.
type listPage struct {
	Items          []map[string]any `json:"items"`
	NextCursor     *string          `json:"nextCursor"`
	Page           int              `json:"page"`
	Total          *int             `json:"total"`
	TotalEstimated *bool            `json:"totalEstimated"`
}

func (e *Env) listPage(t *testing.T, path string) listPage {
	t.Helper()
	r := e.Get(path)
	Expect(t, r, http.StatusOK)
	var p listPage
	r.JSON(t, &p)
	return p
}

// TestListCount: count=exact is the default and today's total; none
// answers total null and no totalEstimated; estimated answers a total
// that says whether it is an estimate (only PostgreSQL estimates, and
// only a filtered list), and a cursor walk carries it on.
func TestListCount(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		t.Parallel()
		e := Start(t, b, runtime.Config{})
		exact := e.listPage(t, "/v1/customers?limit=5")
		if exact.Total == nil || *exact.Total != 60 || exact.TotalEstimated != nil {
			t.Fatalf("default count: total %v, totalEstimated %v; want 60 and absent", exact.Total, exact.TotalEstimated)
		}
		if p := e.listPage(t, "/v1/customers?limit=5&count=exact"); p.Total == nil || *p.Total != 60 {
			t.Errorf("count=exact: total %v; want 60", p.Total)
		}
		none := e.listPage(t, "/v1/customers?limit=5&count=none")
		if none.Total != nil || none.TotalEstimated != nil || len(none.Items) != 5 || none.NextCursor == nil {
			t.Fatalf("count=none: total %v, totalEstimated %v, %d items; want null, absent, 5 and a cursor", none.Total, none.TotalEstimated, len(none.Items))
		}
		next := e.listPage(t, "/v1/customers?limit=5&count=none&cursor="+*none.NextCursor)
		if next.Total != nil || len(next.Items) != 5 {
			t.Errorf("count=none, second page: total %v; want null", next.Total)
		}
		// A cursor is bound to its count mode as to its filters.
		Expect(t, e.Get("/v1/customers?limit=5&cursor="+*none.NextCursor), http.StatusBadRequest)

		unfiltered := e.listPage(t, "/v1/customers?limit=5&count=estimated")
		if unfiltered.Total == nil || *unfiltered.Total != 60 || unfiltered.TotalEstimated != nil {
			t.Errorf("count=estimated without filters: total %v, totalEstimated %v; want the kept count 60, exact", unfiltered.Total, unfiltered.TotalEstimated)
		}
		all := e.listPage(t, "/v1/tasks?limit=500")
		started := 0
		for _, task := range all.Items {
			if task["Status"] == "Started" {
				started++
			}
		}
		est := e.listPage(t, "/v1/tasks?limit=2&status=Started&count=estimated")
		if est.Total == nil {
			t.Fatal("count=estimated: total null")
		}
		isEstimate := est.TotalEstimated != nil && *est.TotalEstimated
		if est.TotalEstimated != nil && !*est.TotalEstimated {
			t.Error("totalEstimated: false; want it absent unless true")
		}
		if wantEstimate := b.Name == "postgres"; isEstimate != wantEstimate {
			t.Errorf("%s: totalEstimated %v; want %v", b.Name, isEstimate, wantEstimate)
		}
		// A narrowed answer says so as well.
		shaped := e.listPage(t, "/v1/tasks?limit=2&status=Started&count=estimated&fields=Nr")
		if shapedEstimate := shaped.TotalEstimated != nil && *shaped.TotalEstimated; shapedEstimate != isEstimate {
			t.Errorf("count=estimated&fields=Nr: totalEstimated %v; want %v as without fields", shapedEstimate, isEstimate)
		}
		if !isEstimate && *est.Total != started {
			t.Errorf("exact estimate %d; want %d", *est.Total, started)
		}
		if isEstimate && (*est.Total < 0 || *est.Total > len(all.Items)) {
			t.Errorf("estimate %d out of 0..%d", *est.Total, len(all.Items))
		}
		if est.NextCursor != nil {
			cont := e.listPage(t, "/v1/tasks?limit=2&status=Started&count=estimated&cursor="+*est.NextCursor)
			if cont.Total == nil || *cont.Total != *est.Total || (cont.TotalEstimated != nil) != (est.TotalEstimated != nil) {
				t.Errorf("cursor page: total %v estimated %v; want the first page's %d %v", cont.Total, cont.TotalEstimated, *est.Total, est.TotalEstimated)
			}
		}

		bad := e.SkipRequestValidation().Get("/v1/customers?count=some")
		Expect(t, bad, http.StatusBadRequest)
		if p := bad.Problem(t); !slices.Equal(p.ValidValues, runtime.CountModes) {
			t.Errorf("count=some: validValues %q; want %q", p.ValidValues, runtime.CountModes)
		}
	})
}
