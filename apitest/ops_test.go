package apitest

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/matryer/is"
	"github.com/prometheus/client_golang/prometheus"

	"fieldapi/metrics"
	"fieldapi/runtime"
)

// logBuffer is a log sink the server's goroutines and the test share.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// lines are the JSON log lines written so far.
func (b *logBuffer) lines(t testing.TB) []map[string]any {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(b.buf.String()), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line is not JSON: %s", line)
		}
		out = append(out, m)
	}
	return out
}

func TestAccessLogHasOneLinePerRequestWithTheClientsRequestID(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		is := is.New(t)
		logs := &logBuffer{}
		log := slog.New(slog.NewJSONHandler(logs, nil))
		env := Start(t, b, runtime.Config{Logger: log, Observers: []runtime.Observer{runtime.NewAccessLog(log)}})
		nr, _ := env.FirstKey("customers", env.Key)

		resp := env.Do(Request{Method: http.MethodGet, Path: KeyPath("customers", nr), Key: env.Key,
			Headers: map[string]string{runtime.HeaderRequestID: "client-req-42"}})
		Expect(t, resp, http.StatusOK)
		resp = env.Do(Request{Method: http.MethodPatch, Path: KeyPath("customers", nr), Key: env.Key,
			Body: map[string]any{"nosuchfield": 1}, Headers: map[string]string{runtime.HeaderRequestID: "client-req-43"}, SkipRequestValidation: true})
		Expect(t, resp, http.StatusBadRequest)

		byID := map[string]map[string]any{}
		for _, line := range logs.lines(t) {
			if line["msg"] == "request" {
				byID[line["requestId"].(string)] = line
			}
		}
		got := byID["client-req-42"]
		is.True(got != nil) // the GET is logged under the client's request id
		is.Equal(got["method"], "GET")
		is.Equal(got["route"], "/v1/customers/{key}") // the pattern, never the record key
		is.Equal(got["status"], float64(200))
		is.Equal(got["problem"], "")
		is.Equal(got["clientId"], strings.Split(env.Key, "_")[1])
		is.Equal(got["company"], "demo")
		is.Equal(got["replayed"], false)
		is.True(got["bytesOut"].(float64) > 0)
		is.True(got["durationMs"].(float64) > 0)
		failed := byID["client-req-43"]
		is.True(failed != nil)
		is.Equal(failed["status"], float64(400))
		is.Equal(failed["problem"], "unknown_field")
		is.True(failed["bytesIn"].(float64) > 0)

		whole := fmt.Sprint(logs.lines(t))
		is.True(!strings.Contains(whole, env.Key))          // never a key
		is.True(!strings.Contains(whole, "nosuchfield"))    // never a body
		is.True(!strings.Contains(whole, "/customers/"+nr)) // never the raw path
	})
}

func TestMetricsScrapeCountsTheCallsMade(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		is := is.New(t)
		registry := prometheus.NewRegistry()
		env := Start(t, b, runtime.Config{Observers: []runtime.Observer{metrics.NewRequests(registry)}, RateLimit: 0.01, RateBurst: 3})
		metrics.RegisterDBPool(registry, env.Engine.DBStats)
		metrics.RegisterProcess(registry)
		nr, _ := env.FirstKey("customers", env.Key) // one list call
		for range 2 {
			Expect(t, env.Get(KeyPath("customers", nr)), http.StatusOK)
		}
		Expect(t, env.Get(KeyPath("customers", nr)), http.StatusTooManyRequests) // the fourth call in the burst of 3

		text := scrapeMetrics(t, registry)
		is.True(strings.Contains(text, `fieldapi_http_requests_total{method="GET",route="/v1/customers/{key}",status="2xx"} 2`))
		is.True(strings.Contains(text, `fieldapi_http_requests_total{method="GET",route="/v1/customers/{key}",status="4xx"} 1`))
		is.True(strings.Contains(text, `fieldapi_http_requests_total{method="GET",route="/v1/customers",status="2xx"} 1`))
		is.True(strings.Contains(text, `fieldapi_http_request_duration_seconds_count{method="GET",route="/v1/customers/{key}",status="2xx"} 2`))
		is.True(strings.Contains(text, "fieldapi_rate_limited_total 1"))
		is.True(strings.Contains(text, "fieldapi_http_requests_in_flight 0"))
		is.True(strings.Contains(text, `fieldapi_engine_faults_total{kind="busy"} 0`))
		is.True(strings.Contains(text, "fieldapi_db_open_connections"))
		is.True(strings.Contains(text, "fieldapi_db_write_groups_total"))
		is.True(strings.Contains(text, "fieldapi_db_grouped_writes_total"))
		is.True(strings.Contains(text, "go_goroutines"))
		is.True(strings.Contains(text, "process_cpu_seconds_total"))
		is.True(!strings.Contains(text, nr+`"`)) // record keys never become labels
	})
}

func TestIdempotencyMetrics(t *testing.T) {
	is := is.New(t)
	registry := prometheus.NewRegistry()
	env := Start(t, Backends(t)[0], runtime.Config{Observers: []runtime.Observer{metrics.NewRequests(registry)}})
	body := map[string]any{"name": "Metrics AB"}
	key := map[string]string{runtime.HeaderIdempotencyKey: "metrics-replay-1"}
	Expect(t, env.Do(Request{Method: http.MethodPost, Path: "/v1/customers", Key: env.Key, Body: body, Headers: key}), http.StatusCreated)
	Expect(t, env.Do(Request{Method: http.MethodPost, Path: "/v1/customers", Key: env.Key, Body: body, Headers: key}), http.StatusCreated)
	Expect(t, env.Do(Request{Method: http.MethodPost, Path: "/v1/customers", Key: env.Key, Body: map[string]any{"name": "Other"}, Headers: key}), http.StatusConflict)
	scraped := scrapeMetrics(t, registry)
	is.True(strings.Contains(scraped, "fieldapi_idempotent_replays_total 1"))
	is.True(strings.Contains(scraped, `fieldapi_idempotency_conflicts_total{code="idempotency_mismatch"} 1`))
}

// scrapeMetrics is GET /metrics over HTTP from the registry's handler.
func scrapeMetrics(t testing.TB, registry *prometheus.Registry) string {
	t.Helper()
	srv := httptest.NewServer(metrics.Handler(registry, false))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: %d %s", resp.StatusCode, body)
	}
	return string(body)
}

// etag reads a strong ETag from an answer.
func etag(t testing.TB, r Response) string {
	t.Helper()
	tag := r.Header.Get(runtime.HeaderETag)
	if !regexp.MustCompile(`^"[0-9a-f]{32}"$`).MatchString(tag) {
		t.Fatalf("ETag %q is not a strong tag of the record's version", tag)
	}
	return tag
}

func TestETagsMakeWritesConditional(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		is := is.New(t)
		env := Start(t, b, runtime.Config{})
		created := env.Post("/v1/customers", map[string]any{"name": "Etag AB", "city": "Bergen"})
		Expect(t, created, http.StatusCreated)
		nr := created.Object(t)["Nr"].(string)
		path := KeyPath("customers", nr)

		read := env.Get(path)
		Expect(t, read, http.StatusOK)
		v1 := etag(t, read)
		is.Equal(etag(t, created), v1) // the create's answer carries the ETag a GET gives

		t.Run("If-None-Match answers 304 without a body while the record is unchanged", func(t *testing.T) {
			is := is.New(t)
			resp := env.Do(Request{Method: http.MethodGet, Path: path, Key: env.Key, Headers: map[string]string{runtime.HeaderIfNoneMatch: v1}})
			is.Equal(resp.Status, http.StatusNotModified)
			is.Equal(len(resp.Body), 0)
			is.Equal(resp.Header.Get(runtime.HeaderETag), v1)
		})

		patched := env.Do(Request{Method: http.MethodPatch, Path: path, Key: env.Key,
			Body: map[string]any{"city": "Oslo"}, Headers: map[string]string{runtime.HeaderIfMatch: v1}})
		Expect(t, patched, http.StatusOK)
		v2 := etag(t, patched)
		is.True(v2 != v1)
		is.Equal(etag(t, env.Get(path)), v2) // the PATCH answer's ETag is the record's new version

		t.Run("a stale If-Match is 412 and changes nothing", func(t *testing.T) {
			is := is.New(t)
			resp := env.Do(Request{Method: http.MethodPatch, Path: path, Key: env.Key,
				Body: map[string]any{"city": "Tromsø"}, Headers: map[string]string{runtime.HeaderIfMatch: v1}})
			is.Equal(resp.Status, http.StatusPreconditionFailed)
			is.Equal(resp.Problem(t).Title, "precondition_failed")
			after := env.Get(path)
			is.Equal(after.Object(t)["City"], "Oslo")
			is.Equal(etag(t, after), v2)
			// If-None-Match of the old version now reads the record
			Expect(t, env.Do(Request{Method: http.MethodGet, Path: path, Key: env.Key, Headers: map[string]string{runtime.HeaderIfNoneMatch: v1}}), http.StatusOK)
		})
		t.Run("a list with the current version, or *, passes; weak tags never do", func(t *testing.T) {
			is := is.New(t)
			resp := env.Do(Request{Method: http.MethodPatch, Path: path, Key: env.Key,
				Body: map[string]any{"city": "Oslo"}, Headers: map[string]string{runtime.HeaderIfMatch: v1 + ", " + v2}})
			is.Equal(resp.Status, http.StatusOK)
			resp = env.Do(Request{Method: http.MethodPatch, Path: path, Key: env.Key,
				Body: map[string]any{"city": "Oslo"}, Headers: map[string]string{runtime.HeaderIfMatch: "*"}})
			is.Equal(resp.Status, http.StatusOK)
			resp = env.Do(Request{Method: http.MethodPatch, Path: path, Key: env.Key,
				Body: map[string]any{"city": "Oslo"}, Headers: map[string]string{runtime.HeaderIfMatch: "W/" + etag(t, env.Get(path))}})
			is.Equal(resp.Status, http.StatusPreconditionFailed)
			resp = env.Do(Request{Method: http.MethodPatch, Path: path, Key: env.Key,
				Body: map[string]any{"city": "Oslo"}, Headers: map[string]string{runtime.HeaderIfMatch: "not-quoted"}})
			is.Equal(resp.Status, http.StatusBadRequest)
			is.Equal(resp.Problem(t).Title, "invalid_parameter")
		})
		t.Run("a 412 is not stored: the same Idempotency-Key with the current ETag runs", func(t *testing.T) {
			is := is.New(t)
			current := etag(t, env.Get(path))
			headers := map[string]string{runtime.HeaderIfMatch: v1, runtime.HeaderIdempotencyKey: "etag-retry-1"}
			resp := env.Do(Request{Method: http.MethodPatch, Path: path, Key: env.Key, Body: map[string]any{"city": "Umeå"}, Headers: headers})
			is.Equal(resp.Status, http.StatusPreconditionFailed)
			headers[runtime.HeaderIfMatch] = current
			resp = env.Do(Request{Method: http.MethodPatch, Path: path, Key: env.Key, Body: map[string]any{"city": "Umeå"}, Headers: headers})
			is.Equal(resp.Status, http.StatusOK)
			is.Equal(resp.Header.Get(runtime.HeaderIdempotencyReplayed), "false")
		})
	})
}

func TestIfMatchOnActionsAndLinePosts(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		is := is.New(t)
		env := Start(t, b, runtime.Config{})
		created := env.Post("/v1/tasks", map[string]any{"customerNr": "1031", "taskText": "Etag task"})
		Expect(t, created, http.StatusCreated)
		nr := fmt.Sprint(created.Object(t)["nr"])
		path := KeyPath("tasks", nr)
		v1 := etag(t, env.Get(path))
		is.Equal(etag(t, created), v1)

		moved := env.Do(Request{Method: http.MethodPost, Path: path + "/status", Key: env.Key,
			Body: map[string]any{"status": "Sent"}, Headers: map[string]string{runtime.HeaderIfMatch: v1}})
		Expect(t, moved, http.StatusOK)
		v2 := etag(t, moved)
		is.True(v2 != v1)
		is.Equal(etag(t, env.Get(path)), v2)

		stale := env.Do(Request{Method: http.MethodPost, Path: path + "/status", Key: env.Key,
			Body: map[string]any{"status": "Received"}, Headers: map[string]string{runtime.HeaderIfMatch: v1}})
		is.Equal(stale.Status, http.StatusPreconditionFailed)
		is.Equal(env.Get(path).Object(t)["Status"], "Sent") // nothing changed
		is.Equal(etag(t, env.Get(path)), v2)

		line := env.Do(Request{Method: http.MethodPost, Path: path + "/times", Key: env.Key,
			Body: map[string]any{"timeType": "Normaltid", "hours": 1}, Headers: map[string]string{runtime.HeaderIfMatch: v1}})
		is.Equal(line.Status, http.StatusPreconditionFailed)
		times := env.Get("/v1/times?ownerType=task&ownerNr=" + nr)
		Expect(t, times, http.StatusOK)
		is.Equal(len(times.Object(t)["items"].([]any)), 0) // the refused line was not added
		line = env.Do(Request{Method: http.MethodPost, Path: path + "/times", Key: env.Key,
			Body: map[string]any{"timeType": "Normaltid", "hours": 1}, Headers: map[string]string{runtime.HeaderIfMatch: v2}})
		Expect(t, line, http.StatusCreated)
	})
}

func TestTwoWritersWithOneETagGiveOne412(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		is := is.New(t)
		env := Start(t, b, runtime.Config{})
		nr, _ := env.FirstKey("customers", env.Key)
		path := KeyPath("customers", nr)
		for round := range 5 {
			tag := etag(t, env.Get(path))
			statuses := make([]int, 2)
			var wg sync.WaitGroup
			for i := range statuses {
				wg.Go(func() {
					resp := env.Do(Request{Method: http.MethodPatch, Path: path, Key: env.Key,
						Body: map[string]any{"city": fmt.Sprintf("Stad %d-%d", round, i)}, Headers: map[string]string{runtime.HeaderIfMatch: tag}})
					statuses[i] = resp.Status
				})
			}
			wg.Wait()
			ok, failed := 0, 0
			for _, s := range statuses {
				switch s {
				case http.StatusOK:
					ok++
				case http.StatusPreconditionFailed:
					failed++
				}
			}
			is.Equal([]int{ok, failed}, []int{1, 1}) // one writer wins, the other is told the record changed
		}
	})
}

func TestHTTPConventions(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		env := Start(t, b, runtime.Config{CORSOrigins: []string{"https://app.example.com"}})
		nr, _ := env.FirstKey("customers", env.Key)
		path := KeyPath("customers", nr)

		t.Run("HEAD answers the GET's headers without a body", func(t *testing.T) {
			is := is.New(t)
			identity := map[string]string{runtime.HeaderAcceptEncoding: "identity"}
			// /health's latencyMs changes between calls, so its length may too.
			for _, p := range []string{path, "/v1/customers?limit=2", "/openapi.json", "/health"} {
				get := env.Do(Request{Method: http.MethodGet, Path: p, Key: env.Key, Headers: identity})
				head := env.Do(Request{Method: http.MethodHead, Path: p, Key: env.Key, Headers: identity})
				is.Equal(head.Status, get.Status)
				is.Equal(len(head.Body), 0)
				same := []string{runtime.HeaderContentType, runtime.HeaderETag, runtime.HeaderCacheControl, runtime.HeaderRateLimitPolicy}
				if p != "/health" {
					same = append(same, runtime.HeaderContentLength)
				}
				for _, h := range same {
					is.Equal(head.Header.Get(h), get.Header.Get(h)) // same header
				}
			}
		})
		t.Run("keyed answers are no-store; public reads are not", func(t *testing.T) {
			is := is.New(t)
			is.Equal(env.Get(path).Header.Get(runtime.HeaderCacheControl), "no-store")
			is.Equal(env.Do(Request{Method: http.MethodGet, Path: path}).Header.Get(runtime.HeaderCacheControl), "no-store") // a 401 too
			is.Equal(env.Do(Request{Method: http.MethodGet, Path: "/health"}).Header.Get(runtime.HeaderCacheControl), "")
		})
		t.Run("gzip for clients that accept it, above the minimum size", func(t *testing.T) {
			is := is.New(t)
			list := env.Do(Request{Method: http.MethodGet, Path: "/v1/customers?limit=50", Key: env.Key, Headers: map[string]string{runtime.HeaderAcceptEncoding: "gzip"}})
			is.Equal(list.Status, http.StatusOK)
			is.Equal(list.Header.Get(runtime.HeaderContentEncoding), "gzip")
			zr, err := gzip.NewReader(bytes.NewReader(list.Body))
			is.NoErr(err)
			plain, err := io.ReadAll(zr)
			is.NoErr(err)
			var page struct{ Items []map[string]any }
			is.NoErr(json.Unmarshal(plain, &page))
			is.Equal(len(page.Items), 50)
			small := env.Do(Request{Method: http.MethodGet, Path: "/health", Headers: map[string]string{runtime.HeaderAcceptEncoding: "gzip"}})
			is.Equal(small.Header.Get(runtime.HeaderContentEncoding), "") // under the minimum size
		})
		t.Run("CORS preflight from an allowed origin passes, from another is refused", func(t *testing.T) {
			is := is.New(t)
			preflight := func(origin string) Response {
				return env.Do(Request{Method: http.MethodOptions, Path: path, Headers: map[string]string{
					runtime.HeaderOrigin: origin, runtime.HeaderAccessControlRequestMethod: "PATCH",
					runtime.HeaderAccessControlRequestHeaders: "authorization, content-type, idempotency-key, if-match", runtime.HeaderIdempotencyKey: ""}})
			}
			ok := preflight("https://app.example.com")
			is.True(ok.Status < 300)
			is.Equal(ok.Header.Get(runtime.HeaderAccessControlAllowOrigin), "https://app.example.com")
			is.True(strings.Contains(ok.Header.Get(runtime.HeaderAccessControlAllowMethods), "PATCH"))
			is.True(strings.Contains(strings.ToLower(ok.Header.Get(runtime.HeaderAccessControlAllowHeaders)), "if-match"))
			refused := preflight("https://evil.example.net")
			is.Equal(refused.Header.Get(runtime.HeaderAccessControlAllowOrigin), "")
			is.Equal(refused.Header.Get(runtime.HeaderAccessControlAllowMethods), "")

			get := env.Do(Request{Method: http.MethodGet, Path: path, Key: env.Key, Headers: map[string]string{runtime.HeaderOrigin: "https://app.example.com"}})
			is.Equal(get.Header.Get(runtime.HeaderAccessControlAllowOrigin), "https://app.example.com")
			is.True(strings.Contains(get.Header.Get(runtime.HeaderAccessControlExposeHeaders), http.CanonicalHeaderKey(runtime.HeaderETag)))
		})
	})
}

func TestCORSIsOffByDefault(t *testing.T) {
	is := is.New(t)
	env := Start(t, Backends(t)[0], runtime.Config{})
	resp := env.Do(Request{Method: http.MethodOptions, Path: "/v1/customers", Headers: map[string]string{
		runtime.HeaderOrigin: "https://app.example.com", runtime.HeaderAccessControlRequestMethod: "GET", runtime.HeaderIdempotencyKey: ""}})
	is.Equal(resp.Status, http.StatusMethodNotAllowed)
	is.Equal(resp.Header.Get(runtime.HeaderAccessControlAllowOrigin), "")
}

var rateLimitHeader = regexp.MustCompile(`^"per-key";r=(\d+);t=(\d+)$`)

func TestRateLimitHeadersCountDown(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		is := is.New(t)
		env := Start(t, b, runtime.Config{RateLimit: 0.1, RateBurst: 5}) // refills one call per 10 s
		var remaining []int
		for range 6 {
			resp := env.Get("/v1/whoami")
			is.Equal(resp.Header.Get(runtime.HeaderRateLimitPolicy), `"per-key";q=5;w=50`)
			m := rateLimitHeader.FindStringSubmatch(resp.Header.Get(runtime.HeaderRateLimit))
			is.True(m != nil) // RateLimit: "per-key";r=N;t=S
			r, _ := strconv.Atoi(m[1])
			remaining = append(remaining, r)
			if resp.Status == http.StatusTooManyRequests {
				is.Equal(r, 0)
				is.True(resp.Header.Get(runtime.HeaderRetryAfter) != "")
			}
		}
		is.Equal(remaining, []int{4, 3, 2, 1, 0, 0})
		// a call without a key carries none
		is.Equal(env.Do(Request{Method: http.MethodGet, Path: "/v1/whoami"}).Header.Get(runtime.HeaderRateLimit), "")
	})
}
