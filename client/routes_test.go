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
	"fieldapi/generated"
	"fieldapi/runtime"
)

// recorder remembers the method and path of every request.
type recorder struct {
	mu       sync.Mutex
	requests []string
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	r.requests = append(r.requests, req.Method+" "+req.URL.EscapedPath())
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
	env := apitest.Start(t, apitest.Backends(t)[0], runtime.Config{})
	rec := &recorder{}
	c := client.New(env.URL, client.WithKey(env.Key), client.WithHTTPClient(&http.Client{Transport: rec}),
		client.WithRetryPolicy(client.RetryPolicy{MaxAttempts: 1}))
	ctx := context.Background()
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
			out := svc.Method(j).Call(args)
			if doc, ok := out[0].Interface().(*client.DocumentContent); ok && doc != nil {
				doc.Body.Close()
			}
		}
	}

	routes := generated.Routes()
	reached := map[string]bool{}
	for _, request := range rec.requests {
		route, ok := routeOf(routes, request)
		if !ok {
			t.Errorf("%s is no route of the table", request)
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
