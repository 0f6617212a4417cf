package runtime_test

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/matryer/is"

	"fieldapi/runtime"
)

// lockedBuilder is a log sink shared by the server's goroutines and the test.
type lockedBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuilder) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuilder) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestFailuresAreLoggedWithStackAndRequestID: an internal error and a
// panic each leave an ERROR line with the request id and the stack, and an
// access-log line with the request id, the status and the problem code.
func TestFailuresAreLoggedWithStackAndRequestID(t *testing.T) {
	is := is.New(t)
	var logs lockedBuilder
	log := slog.New(slog.NewJSONHandler(&logs, nil))
	hs, _ := newServerWith(t, runtime.Config{Logger: log, Observers: []runtime.Observer{runtime.NewAccessLog(log)}},
		runtime.Route{Method: http.MethodGet, Path: "/fails", Public: true, Handler: func(c *runtime.Call) error {
			return errors.New("disk on fire")
		}},
		runtime.Route{Method: http.MethodGet, Path: "/panics", Public: true, Handler: func(c *runtime.Call) error {
			panic("boom")
		}})
	for _, call := range []struct{ path, id string }{{"/fails", "fail-1"}, {"/panics", "panic-2"}} {
		req, _ := http.NewRequest(http.MethodGet, hs.URL+call.path, nil)
		req.Header.Set(runtime.HeaderRequestID, call.id)
		resp, err := http.DefaultClient.Do(req)
		is.NoErr(err)
		resp.Body.Close()
		is.Equal(resp.StatusCode, http.StatusInternalServerError)
	}
	var failed, panicked, accessed int
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var m map[string]any
		is.NoErr(json.Unmarshal([]byte(line), &m))
		stack, _ := m["stack"].(string)
		switch {
		case m["msg"] == "request failed" && m["requestId"] == "fail-1":
			failed++
			is.Equal(m["level"], "ERROR")
			is.Equal(m["error"], "disk on fire")
			is.True(strings.Contains(stack, "runtime/debug.Stack")) // where it failed
		case m["msg"] == "panic" && m["requestId"] == "panic-2":
			panicked++
			is.True(strings.Contains(stack, "accesslog_test.go")) // the panicking handler is in the stack
		case m["msg"] == "request":
			accessed++
			is.Equal(m["status"], float64(500))
			is.Equal(m["problem"], "internal_error")
			is.True(m["requestId"] == "fail-1" || m["requestId"] == "panic-2")
		}
	}
	is.Equal([]int{failed, panicked, accessed}, []int{1, 1, 2})
}
