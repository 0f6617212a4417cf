package apitest

import (
	"net/http"
	"strings"
	"testing"

	"github.com/matryer/is"

	"fieldapi/generated"
	"fieldapi/runtime"
)

// pathFor fills a route's :key with the given key, and any other
// parameter (a document id) with 1.
func pathFor(route runtime.Route, key string) string {
	return strings.Replace(strings.Replace(route.Path, ":key", key, 1), ":id", "1", 1)
}

// validBody is a well-formed body for a route, so a refusal comes from the
// record, not the shape.
func validBody(route runtime.Route) string {
	switch {
	case strings.HasSuffix(route.Path, "/location"):
		return `{"latitude": 59.91, "longitude": 10.75}`
	case strings.HasSuffix(route.Path, "/notes"):
		return `{"text": "hello"}`
	case strings.HasSuffix(route.Path, "/status"):
		return `{"status": "Sent"}`
	case strings.HasSuffix(route.Path, "/documents"):
		return `{"name": "a.txt", "contentBase64": "aGVsbG8="}`
	case strings.HasSuffix(route.Path, "/times"):
		return `{"timeType": "Work", "hours": 1}`
	case strings.HasSuffix(route.Path, "/materials") || strings.HasSuffix(route.Path, "/lines"):
		return `{"productNr": "P1", "quantity": 1}`
	}
	return "{}"
}

// otherScope is a real scope that is not the one a route needs.
func otherScope(scope string) string {
	if scope == "users:read" {
		return "pricelists:read"
	}
	return "users:read"
}

// TestEveryRouteRefusesBadCallers drives every route of the generated route
// table: no key and a wrong key are 401, a key without the route's scope is
// 403, and each answer is a problem with the request id.
func TestEveryRouteRefusesBadCallers(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		env := Start(t, b, runtime.Config{})
		lacking := map[string]string{} // scope → key lacking it
		for _, route := range generated.Routes() {
			t.Run(route.Method+" "+route.Path, func(t *testing.T) {
				is := is.New(t)
				path := pathFor(route, "1")
				noKey := env.Do(Request{Method: route.Method, Path: path, Body: "{}", SkipRequestValidation: true})
				is.Equal(noKey.Status, http.StatusUnauthorized)
				is.Equal(noKey.Problem(t).Title, "unauthorized")

				badKey := env.Do(Request{Method: route.Method, Path: path, Key: "mk_demo-nobody_0123456789abcdef", Body: "{}", SkipRequestValidation: true})
				is.Equal(badKey.Status, http.StatusUnauthorized)
				is.Equal(badKey.Problem(t).Title, "unauthorized")

				if lacking[route.Scope] == "" {
					lacking[route.Scope] = env.NewKey("demo", "API", otherScope(route.Scope))
				}
				noScope := env.Do(Request{Method: route.Method, Path: path, Key: lacking[route.Scope], Body: "{}", SkipRequestValidation: true})
				is.Equal(noScope.Status, http.StatusForbidden)
				p := noScope.Problem(t)
				is.Equal(p.Title, "insufficient_scope")
				is.True(strings.Contains(p.Detail, route.Scope)) // names the missing scope
			})
		}
	})
}

// TestEveryItemRouteHidesOtherCompanies addresses, for every route with a
// record key, a record that exists only in company demo2 with a key of
// company demo: 404, never the other company's data.
// upsertsByKey reports whether a route is a PUT of a record by its key.
func upsertsByKey(route runtime.Route) bool {
	return route.Method == http.MethodPut && strings.HasSuffix(route.Path, "/:key")
}

func TestEveryItemRouteHidesOtherCompanies(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		env := Start(t, b, runtime.Config{})
		for _, route := range generated.Routes() {
			if !strings.Contains(route.Path, ":key") {
				continue
			}
			register := strings.Split(route.Path, "/")[2]
			t.Run(route.Method+" "+route.Path, func(t *testing.T) {
				is := is.New(t)
				key := env.KeyOnlyIn(t, register, env.OtherKey, env.Key)
				before := env.Do(Request{Method: http.MethodGet, Path: KeyPath(register, key), Key: env.OtherKey})
				resp := env.Do(Request{Method: route.Method, Path: pathFor(route, escape(key)), Key: env.Key, Body: validBody(route)})
				if upsertsByKey(route) {
					// A PUT by key finds no record of the caller's company with
					// it: it creates one there (or its create is refused), and
					// the other company's record is untouched.
					is.True(resp.Status == http.StatusCreated || resp.Status == http.StatusUnprocessableEntity)
				} else {
					is.Equal(resp.Status, http.StatusNotFound)
					is.Equal(resp.Problem(t).Title, "not_found")
				}
				// the owner still sees it, as it was
				own := env.Do(Request{Method: http.MethodGet, Path: KeyPath(register, key), Key: env.OtherKey})
				is.Equal(own.Status, http.StatusOK)
				is.Equal(string(own.Body), string(before.Body))
			})
		}
	})
}
