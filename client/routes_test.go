package client_test

import (
	"context"
	"io"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"fieldapi/apitest"
	"fieldapi/client"
	"fieldapi/codegen/model"
	"fieldapi/generated"
	"fieldapi/runtime"
)

// recorder remembers the method and path of every request, and its
// preconditions.
type recorder struct {
	mu       sync.Mutex
	requests []recorded
}

// recorded is one request as sent.
type recorded struct {
	request              string // GET /v1/tasks/10065
	ifMatch, ifNoneMatch string
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	r.requests = append(r.requests, recorded{req.Method + " " + req.URL.EscapedPath(), req.Header.Get(runtime.HeaderIfMatch), req.Header.Get(runtime.HeaderIfNoneMatch)})
	r.mu.Unlock()
	return http.DefaultTransport.RoundTrip(req)
}

// routeOf is the route of the table a request was for: an exact path
// first (/v1/tasks/extra-fields), else a pattern whose :key and :id match
// one segment each.
func routeOf(routes []runtime.Route, request string) (runtime.Route, bool) {
	method, path, _ := strings.Cut(request, " ")
	segments := strings.Split(path, "/")
	matches := func(route runtime.Route, wildcards bool) bool {
		pattern := strings.Split(route.Path, "/")
		if route.Method != method || len(pattern) != len(segments) {
			return false
		}
		for i, p := range pattern {
			if p != segments[i] && !(wildcards && strings.HasPrefix(p, ":")) {
				return false
			}
		}
		return true
	}
	for _, wildcards := range []bool{false, true} {
		for _, route := range routes {
			if matches(route, wildcards) {
				return route, true
			}
		}
	}
	return runtime.Route{}, false
}

// TestClientCoversEveryRoute calls every method of every service of the
// client against the real server and records the requests: together they
// reach every route of the generated route table, and none goes anywhere
// else. A route the generator adds without a client method fails here.
func TestClientCoversEveryRoute(t *testing.T) {
	rec := callEveryMethod(t, context.Background())
	routes := generated.Routes()
	reached := map[string]bool{}
	for _, sent := range rec.requests {
		route, ok := routeOf(routes, sent.request)
		if !ok {
			t.Errorf("%s is no route of the table", sent.request)
			continue
		}
		reached[route.Method+" "+route.Path] = true
	}
	for _, route := range routes {
		if !reached[route.Method+" "+route.Path] {
			t.Errorf("no client method calls %s %s", route.Method, route.Path)
		}
	}
	t.Logf("%d routes, %d requests", len(routes), len(rec.requests))
}

// TestPreconditionsGoWhereTheServerHonoursThem calls every method with a
// context asking for both preconditions: If-Match goes exactly with the
// writes the server checks it on (Update, Upsert, actions, line posts: the route
// kinds the OpenAPI document gives If-Match), If-None-Match exactly with
// Get, and no other write is sent at all, since it would run blind.
func TestPreconditionsGoWhereTheServerHonoursThem(t *testing.T) {
	const etag = `"0000"`
	ctx := client.WithIfNoneMatch(client.WithIfMatch(context.Background(), etag), etag)
	rec := callEveryMethod(t, ctx)
	kinds := map[string]model.RouteKind{}
	for _, r := range builtinModel(t).Registers {
		for _, rt := range r.Routes {
			kinds[rt.Method+" "+rt.Path] = rt.Kind
		}
	}
	conditional := func(kind model.RouteKind) (ifMatch, ifNoneMatch bool) {
		switch kind {
		case model.KindUpdate, model.KindUpsert, model.KindAction, model.KindAddLine:
			return true, false
		case model.KindGet, model.KindGetBy:
			return false, true
		}
		return false, false
	}
	routes := generated.Routes()
	reached := map[string]bool{}
	for _, sent := range rec.requests {
		route, _ := routeOf(routes, sent.request)
		kind := kinds[route.Method+" "+route.Path]
		reached[route.Method+" "+route.Path] = true
		ifMatch, ifNoneMatch := conditional(kind)
		if !ifMatch && route.Method != http.MethodGet {
			t.Errorf("%s (%s) was sent under If-Match, which it cannot honour", sent.request, kind)
		}
		if (sent.ifMatch == etag) != ifMatch || (sent.ifNoneMatch == etag) != ifNoneMatch {
			t.Errorf("%s (%s): If-Match %q, If-None-Match %q", sent.request, kind, sent.ifMatch, sent.ifNoneMatch)
		}
	}
	for route, kind := range kinds {
		if ifMatch, ifNoneMatch := conditional(kind); (ifMatch || ifNoneMatch) && !reached[route] {
			t.Errorf("%s (%s) was not sent", route, kind)
		}
	}
}

// callEveryMethod calls every method of every service once, with ctx and
// sample arguments, against the real server on SQLite, and returns the
// requests sent. Answers are not looked at: many are refusals.
func callEveryMethod(t *testing.T, ctx context.Context) *recorder {
	env := apitest.Start(t, apitest.Backends(t)[0], runtime.Config{})
	rec := &recorder{}
	c := client.New(env.URL, client.WithKey(env.Key), client.WithHTTPClient(&http.Client{Transport: rec}),
		client.WithRetryPolicy(client.RetryPolicy{MaxAttempts: 1}))
	for _, r := range builtinModel(t).Registers {
		svc := service(t, c, r)
		key, ok := env.FirstKey(r.Name, env.Key)
		if !ok {
			key = "1"
		}
		for j := range svc.NumMethod() {
			method := svc.Type().Method(j)
			if method.Name == "All" {
				continue // List's route; walking is tested elsewhere
			}
			args := []reflect.Value{reflect.ValueOf(ctx)}
			for k := 2; k < method.Type.NumIn(); k++ { // after the receiver and ctx
				args = append(args, sampleArg(method.Type.In(k), k == 2, key))
			}
			call := svc.Method(j).Call
			if method.Type.IsVariadic() { // read options: none
				call = svc.Method(j).CallSlice
			}
			out := call(args)
			if doc, ok := out[0].Interface().(*client.DocumentContent); ok && doc != nil {
				doc.Body.Close()
			}
		}
	}
	return rec
}

// sampleArg is an argument of a parameter's type: the record key for the
// first string, zero values for parameters and bodies, a small file.
func sampleArg(typ reflect.Type, first bool, key string) reflect.Value {
	switch {
	case typ.Kind() == reflect.String && first:
		return reflect.ValueOf(key)
	case typ.Kind() == reflect.String:
		return reflect.ValueOf("client-coverage.txt")
	case typ == reflect.TypeFor[io.Reader]():
		return reflect.ValueOf(strings.NewReader("coverage"))
	case slices.Contains([]reflect.Kind{reflect.Int, reflect.Int64}, typ.Kind()):
		return reflect.ValueOf(int64(1)).Convert(typ)
	}
	return reflect.New(typ).Elem()
}
