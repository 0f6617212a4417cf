package apitest

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"fieldapi/runtime"
)

type page struct {
	Items      []map[string]any
	NextCursor *string
	Page       int
	Total      *int
}

func (e *Env) page(t testing.TB, path string) page {
	t.Helper()
	resp := e.Get(path)
	Expect(t, resp, http.StatusOK)
	var p page
	resp.JSON(t, &p)
	return p
}

// TestEveryRegisterLists walks the catalog: each register lists with the
// envelope, and its newest record reads back by key (escaped whole). A
// register without demo data (one just declared) gets a record created.
func TestEveryRegisterLists(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		env := Start(t, b, runtime.Config{})
		for _, reg := range env.Catalog.Registers {
			t.Run(reg.Name, func(t *testing.T) {
				is := is.New(t)
				p := env.page(t, "/v1/"+reg.Name)
				if len(p.Items) == 0 {
					env.KeyOnlyIn(t, reg.Name, env.Key, env.OtherKey) // creates one, or skips saying why
					p = env.page(t, "/v1/"+reg.Name)
				}
				is.True(len(p.Items) > 0)
				is.Equal(p.Page, 1)
				is.Equal(p.Total == nil, reg.Uncounted)
				first := p.Items[0]
				is.True(first["Modified"] != nil)
				if reg.ExtraFields {
					_, ok := first["ExtraFields"].(map[string]any)
					is.True(ok) // ExtraFields is an object
				}
				key := fmt.Sprint(first[reg.Key])
				got := env.Get(KeyPath(reg.Name, key))
				Expect(t, got, http.StatusOK)
				is.Equal(fmt.Sprint(got.Object(t)[reg.Key]), key)
			})
		}
	})
}

// TestCursorWalkWithInserts pages through customers while new customers are
// created between pages: no row repeats and none is missed.
func TestCursorWalkWithInserts(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		is := is.New(t)
		env := Start(t, b, runtime.Config{})
		total := env.count(t, "/v1/customers")
		seen := map[string]bool{}
		path := "/v1/customers?limit=7"
		for pages := 1; ; pages++ {
			p := env.page(t, path)
			is.Equal(p.Page, pages)
			for _, item := range p.Items {
				nr := item["Nr"].(string)
				is.True(!seen[nr]) // no repeats
				seen[nr] = true
			}
			Expect(t, env.Post("/v1/customers", map[string]any{"name": fmt.Sprintf("Inserted %d", pages)}), http.StatusCreated)
			if p.NextCursor == nil {
				break
			}
			path = "/v1/customers?limit=7&cursor=" + url.QueryEscape(*p.NextCursor)
		}
		is.Equal(len(seen), total) // no gaps: every record that existed at the start
	})
}

func TestPagingParameters(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		env := Start(t, b, runtime.Config{})
		t.Run("default and cap", func(t *testing.T) {
			is := is.New(t)
			is.Equal(len(env.page(t, "/v1/customers").Items), runtime.DefaultLimit)
			p := env.page(t, "/v1/customers?limit=100000")
			is.True(len(p.Items) <= runtime.MaxLimit)
		})
		t.Run("page paging", func(t *testing.T) {
			is := is.New(t)
			one := env.page(t, "/v1/customers?limit=5&page=1")
			two := env.page(t, "/v1/customers?limit=5&page=2")
			is.Equal(two.Page, 2)
			is.True(one.Items[4]["Nr"] != two.Items[0]["Nr"])
		})
		t.Run("newest first", func(t *testing.T) {
			is := is.New(t)
			created := env.Post("/v1/customers", map[string]any{"name": "Newest AS"})
			Expect(t, created, http.StatusCreated)
			is.Equal(env.page(t, "/v1/customers?limit=1").Items[0]["Nr"], created.Object(t)["Nr"])
		})
		bad := []struct{ name, query, param string }{
			{"malformed cursor", "cursor=not-a-cursor", "cursor"},
			{"limit not a number", "limit=ten", "limit"},
			{"limit zero", "limit=0", "limit"},
			{"malformed date", "modifiedSince=yesterday", "modifiedSince"},
			{"unknown parameter", "colour=red", "colour"},
			{"cursor and page", "page=2&cursor=abc", "cursor"},
			// A malformed escape is refused, never dropped (which would
			// answer the list unfiltered).
			{"malformed escape in a value", "name=%zz", "name"},
			{"truncated escape in a value", "limit=1&name=ab%2", "name"},
			{"malformed escape in a name", "na%zzme=x", "na%zzme"},
		}
		for _, tc := range bad {
			t.Run(tc.name, func(t *testing.T) {
				is := is.New(t)
				resp := env.SkipRequestValidation().Get("/v1/customers?" + tc.query)
				is.Equal(resp.Status, http.StatusBadRequest)
				p := resp.Problem(t)
				is.Equal(p.Title, "invalid_parameter")
				is.True(strings.Contains(p.Detail, `"`+tc.param+`"`)) // names the parameter
			})
		}
		t.Run("malformed escape on a location", func(t *testing.T) {
			is := is.New(t)
			resp := env.SkipRequestValidation().Get("/v1/customers/1001/location?locate=%zz")
			is.Equal(resp.Status, http.StatusBadRequest)
			is.Equal(resp.Problem(t).Title, "invalid_parameter")
		})
		t.Run("cursor bound to its filters", func(t *testing.T) {
			is := is.New(t)
			p := env.page(t, "/v1/customers?limit=2&name=a")
			is.True(p.NextCursor != nil)
			resp := env.Get("/v1/customers?limit=2&name=b&cursor=" + url.QueryEscape(*p.NextCursor))
			is.Equal(resp.Status, http.StatusBadRequest)
		})
	})
}

func TestFilters(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		env := Start(t, b, runtime.Config{})
		t.Run("contains ignores case", func(t *testing.T) {
			is := is.New(t)
			Expect(t, env.Post("/v1/customers", map[string]any{"name": "Nordlys Varme AS", "category": "Zebra"}), http.StatusCreated)
			p := env.page(t, "/v1/customers?name=nordlys+varme")
			is.Equal(len(p.Items), 1)
			is.Equal(p.Items[0]["Name"], "Nordlys Varme AS")
			is.Equal(len(env.page(t, "/v1/customers?category=Zebra").Items), 1)
			is.Equal(len(env.page(t, "/v1/customers?category=zebra").Items), 0) // equals is exact
		})
		t.Run("modifiedSince and modifiedBefore", func(t *testing.T) {
			is := is.New(t)
			mark := time.Now().UTC().Add(-time.Millisecond).Format(time.RFC3339Nano)
			created := env.Post("/v1/customers", map[string]any{"name": "Fresh AS"})
			Expect(t, created, http.StatusCreated)
			since := env.page(t, "/v1/customers?modifiedSince="+url.QueryEscape(mark))
			is.Equal(len(since.Items), 1)
			is.Equal(since.Items[0]["Name"], "Fresh AS")
			before := env.page(t, "/v1/customers?limit=500&modifiedBefore="+url.QueryEscape(mark))
			for _, item := range before.Items {
				is.True(item["Name"] != "Fresh AS")
			}
		})
		t.Run("hidden unless asked", func(t *testing.T) {
			is := is.New(t)
			all := env.page(t, "/v1/users?includePassive=true&includeArchived=true")
			active := env.page(t, "/v1/users")
			is.True(len(all.Items) > len(active.Items)) // demo has a passive user
			for _, u := range active.Items {
				is.True(u["Status"] != "Passive")
			}
		})
		t.Run("one of a comma list", func(t *testing.T) {
			is := is.New(t)
			p := env.page(t, "/v1/projects?status=Active,Finished")
			for _, item := range p.Items {
				is.True(item["Status"] == "Active" || item["Status"] == "Finished")
			}
		})
		t.Run("time type names are whole keys", func(t *testing.T) {
			is := is.New(t)
			p := env.page(t, "/v1/timetypes?limit=500")
			found := false
			for _, item := range p.Items {
				name := item["Name"].(string)
				resp := env.Get(KeyPath("timetypes", name))
				Expect(t, resp, http.StatusOK)
				is.Equal(resp.Object(t)["Name"], name)
				if strings.Contains(name, ",") && strings.Contains(name, "/") {
					found = true
				}
			}
			is.True(found) // demo has a name with a comma and a slash
		})
	})
}
