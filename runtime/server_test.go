package runtime_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/matryer/is"

	"fieldapi/catalog"
	"fieldapi/engine/memengine"
	"fieldapi/runtime"
)

// newServer serves extra routes beside the built-in ones on the memory
// engine, with the builtin catalog's registers.
func newServer(t *testing.T, log io.Writer, routes ...runtime.Route) *httptest.Server {
	hs, _ := newServerWithEngine(t, log, routes...)
	return hs
}

// newServerWithEngine is newServer that also returns the engine.
func newServerWithEngine(t *testing.T, log io.Writer, routes ...runtime.Route) (*httptest.Server, *memengine.Engine) {
	t.Helper()
	return newServerWith(t, runtime.Config{Logger: slog.New(slog.NewTextHandler(log, nil))}, routes...)
}

// newServerWith is newServerWithEngine with a config of the test's own.
func newServerWith(t *testing.T, cfg runtime.Config, routes ...runtime.Route) (*httptest.Server, *memengine.Engine) {
	t.Helper()
	cat, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	eng := memengine.New(cat)
	srv := runtime.NewServer(eng, cfg, runtime.API{Routes: routes})
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	return hs, eng
}

// TestPanicIsAProblem: a handler that panics answers 500 internal_error
// with the request id, the panic is logged with that id, and the server
// goes on serving.
func TestPanicIsAProblem(t *testing.T) {
	is := is.New(t)
	var log strings.Builder
	hs := newServer(t, &log, runtime.Route{Method: http.MethodGet, Path: "/boom", Public: true, Handler: func(c *runtime.Call) error {
		var m map[string]int
		m["x"]++ // nil map: panics
		return nil
	}})
	req, _ := http.NewRequest(http.MethodGet, hs.URL+"/boom", nil)
	req.Header.Set("X-Request-Id", "panic-1")
	resp, err := http.DefaultClient.Do(req)
	is.NoErr(err)
	defer resp.Body.Close()
	is.Equal(resp.StatusCode, http.StatusInternalServerError)
	is.Equal(resp.Header.Get("Content-Type"), "application/problem+json")
	var p runtime.Problem
	is.NoErr(json.NewDecoder(resp.Body).Decode(&p))
	is.Equal(p.Title, "internal_error")
	is.Equal(p.RequestID, "panic-1")
	is.True(!strings.Contains(p.Detail, "nil map")) // no internals leak
	is.True(strings.Contains(log.String(), "panic-1"))

	health, err := http.Get(hs.URL + "/health")
	is.NoErr(err)
	health.Body.Close()
	is.Equal(health.StatusCode, http.StatusOK) // still serving
}

// TestEscapedKeysStayWhole: a key holding "/" sent as %2F reaches the
// handler whole, unescaped.
func TestEscapedKeysStayWhole(t *testing.T) {
	is := is.New(t)
	hs := newServer(t, io.Discard, runtime.Route{Method: http.MethodGet, Path: "/things/:key", Public: true, Handler: func(c *runtime.Call) error {
		key, err := c.Key()
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, key)
	}})
	resp, err := http.Get(hs.URL + "/things/Travel%2C%20km%2Fday")
	is.NoErr(err)
	defer resp.Body.Close()
	var key string
	is.NoErr(json.NewDecoder(resp.Body).Decode(&key))
	is.Equal(key, "Travel, km/day")
}
