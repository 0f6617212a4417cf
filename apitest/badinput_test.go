package apitest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"fieldapi/internal/dbtest"
	"fieldapi/runtime"
	"fieldapi/runtime/batch"
)

// badBodies are malformed or hostile bodies every write must refuse with a
// 4xx problem: never a 500, never a panic.
var badBodies = []string{
	``, `null`, `[]`, `"text"`, `12`, `{`, `{"a":1}{"b":2}`,
	`{"name": {"nested": {"deeper": []}}}`,
	`{"extraFields": {"a": 1}}`, `{"extraFields": "x"}`, `{"extraFields": null}`,
	`{"materials": "x"}`, `{"materials": [1, 2]}`, `{"times": [{"hours": "1"}]}`, `{"lines": [null]}`, `{"contacts": [[]]}`,
	`{"status": 7}`, `{"userSigns": "ANLI"}`, `{"userSigns": [1]}`,
	`{"latitude": "north", "longitude": 1}`, `{"latitude": 1e400, "longitude": 0}`,
	`{"name": "a.txt", "contentBase64": "***"}`, `{"text": ""}`,
	"{\"name\": \"\xff\xfe\"}", `{"planStartDate": "2026-13-45"}`, `{"quantity": 1e309}`,
	`{"customerNr": "` + strings.Repeat("9", 5000) + `"}`,
}

// TestHostileInput drives every operation of the OpenAPI document with
// the generator's malformed and hostile inputs (hostile_test.go): every
// path parameter, query parameter and body field, whole malformed bodies,
// bad credentials and Idempotency-Keys, and unknown methods. Asserted on
// each database: never a 5xx; every error is a problem+json with the
// request id; bad text and out-of-range numbers are 400; a refused write
// leaves the record (or, for a create, the register's newest record) as it
// was; an accepted write stores text and numbers exactly as sent.
//
// The databases run in parallel, each on its own copy of the demo data.
func TestHostileInput(t *testing.T) {
	for _, b := range Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			runHostile(t, withoutDurableCommits(b))
		})
	}
}

// withoutDurableCommits lets PostgreSQL acknowledge a commit before its
// WAL is flushed: this test is about answers, not crash safety, and its
// thousands of small writes would otherwise wait on the disk.
func withoutDurableCommits(b Backend) Backend {
	if b.Name != "postgres" {
		return b
	}
	dsn := b.dsn
	b.dsn = func(t testing.TB) string { return dbtest.WithParam(t, dsn(t), "synchronous_commit", "off") }
	return b
}

// runHostile sends every operation its hostile requests on one database.
func runHostile(t *testing.T, b Backend) {
	h := &hostile{env: Start(t, b, runtime.Config{}), keys: map[string]string{}, validated: map[string]int{}, seen: map[string][]byte{}}
	start := time.Now()
	methodsTried := map[string]bool{}
	h.offered = map[string]bool{}
	for _, op := range operations(t) {
		h.offered[op.Method+" "+op.Path] = true
	}
	for _, op := range operations(t) {
		t.Run(op.Method+" "+op.Path, func(t *testing.T) {
			h.t, h.op = t, op
			h.pathParams(op)
			h.queryParams(op)
			h.headers(op)
			if op.HasBody {
				h.bodies(op)
			}
			if !methodsTried[op.Path] {
				methodsTried[op.Path] = true
				h.unknownMethods(op)
			}
		})
	}
	t.Logf("%s: %d hostile requests (and %d reads to check nothing changed) in %s", b.Name, h.sent, h.reads, time.Since(start).Round(time.Millisecond))
}

// hostile sends the generator's requests and checks each answer.
type hostile struct {
	t         *testing.T
	op        operation         // the operation being driven
	validated map[string]int    // operation and status → answers the document has checked
	seen      map[string][]byte // snapshot path → the last snapshot the document checked
	env       *Env
	keys      map[string]string // register → a record key, path-escaped
	offered   map[string]bool   // "METHOD path" of every operation
	sent      int
	reads     int
}

// register is the register an operation's path names, or "".
func (op operation) register() string {
	parts := strings.Split(op.Path, "/")
	// The token and the batch write no record of their own path (a
	// batch's hostile envelopes are TestBatchHostile's, with the counts).
	if len(parts) < 3 || parts[1] != "v1" || op.Path == "/v1/token" || op.Path == batch.Path || len(op.PathParams) == 0 && op.Method != http.MethodPost {
		return ""
	}
	return parts[2]
}

// goodPath fills the operation's path with a record that exists (and
// document id 1).
func (h *hostile) goodPath(op operation) string {
	values := map[string]string{}
	for i, p := range op.PathParams {
		values[p] = "1"
		if i == 0 {
			values[p] = h.key(op.register())
		}
	}
	return fillPath(op.Path, values)
}

func (h *hostile) key(register string) string {
	if register == "webhooks" {
		return h.subscription()
	}
	if k, ok := h.keys[register]; ok {
		return k
	}
	k, ok := h.env.FirstKey(register, h.env.Key)
	if !ok {
		k = "1"
	}
	h.keys[register] = escape(k)
	return h.keys[register]
}

// subscription is a webhook subscription for /v1/webhooks/{key} to
// address (no catalog register holds them), made again when DELETE
// removed it.
func (h *hostile) subscription() string {
	if id := h.keys["webhooks"]; id != "" {
		if h.env.Do(Request{Method: http.MethodGet, Path: "/v1/webhooks/" + id, Key: h.env.Key, SkipResponseValidation: true}).Status == http.StatusOK {
			return id
		}
	}
	hook := h.env.Post("/v1/webhooks", map[string]any{"url": "https://example.com/hook", "eventTypes": []string{"*"}})
	Expect(h.t, hook, http.StatusCreated)
	h.keys["webhooks"] = hook.Object(h.t)["id"].(string)
	return h.keys["webhooks"]
}

// send sends one request and checks what every answer must be: no 5xx,
// and an error is a problem+json carrying the request id.
func (h *hostile) send(req Request) Response {
	h.t.Helper()
	if req.Key == "" && !strings.HasPrefix(req.Path, "/v1/token") {
		req.Key = h.env.Key
	}
	body, _ := req.Body.(string)
	req.SkipRequestValidation, req.SkipResponseValidation = true, true
	resp := h.env.Do(req)
	h.sent++
	h.checkContract(req, body, resp)
	what := label(req.Method, req.Path, body)
	switch {
	case resp.Status >= 500:
		h.t.Errorf("%s: %d %s", what, resp.Status, truncate(string(resp.Body), 300))
	case resp.Status >= 400 && req.Method == http.MethodHead: // the headers of a problem, no body
		if resp.Header.Get(runtime.HeaderContentType) != "application/problem+json" || resp.Header.Get(runtime.HeaderRequestID) == "" {
			h.t.Errorf("%s: %d is not a problem with the request id: %s", what, resp.Status, resp.Header)
		}
	case resp.Status >= 400:
		var p runtime.Problem
		err := json.Unmarshal(resp.Body, &p)
		if ct := resp.Header.Get(runtime.HeaderContentType); ct != "application/problem+json" || err != nil ||
			p.Status != resp.Status || p.RequestID == "" || p.RequestID != resp.Header.Get(runtime.HeaderRequestID) {
			h.t.Errorf("%s: %d is not a problem with the request id: %s %s", what, resp.Status, resp.Header, truncate(string(resp.Body), 300))
		}
	}
	return resp
}

// checkContract validates an answer against the OpenAPI document: a few
// of each status on each operation (the rest are problems of the same
// shape, checked by send, and records of the same schema; validating all
// of them would take minutes). The requests are malformed on purpose, so
// only the answers are validated.
func (h *hostile) checkContract(req Request, body string, resp Response) {
	h.t.Helper()
	sample := h.op.Method + " " + h.op.Path + " " + strconv.Itoa(resp.Status)
	if h.validated[sample] >= samplesPerAnswer(resp.Status) {
		return
	}
	h.validated[sample]++
	hr, err := http.NewRequest(req.Method, h.env.URL+req.Path, strings.NewReader(body))
	if err != nil {
		return // a target http.NewRequest cannot even build was sent as given
	}
	if err := Contract(h.t).check(hr, []byte(body), true, resp.Status, resp.Header, resp.Body); err != nil {
		h.t.Errorf("OpenAPI contract: %s: %v", label(req.Method, req.Path, body), err)
	}
}

// samplesPerAnswer is how many answers of a status checkContract
// validates per operation: records vary with what was accepted, problems
// do not.
func samplesPerAnswer(status int) int {
	if status < 300 {
		return 3
	}
	return 1
}

// refused sends a request that must be refused with one of the statuses.
func (h *hostile) refused(req Request, statuses ...int) Response {
	h.t.Helper()
	resp := h.send(req)
	if resp.Status >= 500 {
		return resp // reported by send
	}
	for _, s := range statuses {
		if resp.Status == s {
			return resp
		}
	}
	body, _ := req.Body.(string)
	h.t.Errorf("%s: %d, want %v: %s", label(req.Method, req.Path, body), resp.Status, statuses, truncate(string(resp.Body), 300))
	return resp
}

// pathParams puts each hostile key into each path parameter.
func (h *hostile) pathParams(op operation) {
	good := map[string]string{}
	for i, p := range op.PathParams {
		good[p] = "1"
		if i == 0 {
			good[p] = h.key(op.register())
		}
	}
	body := validBody(runtime.Route{Path: op.Path})
	for _, p := range op.PathParams {
		for _, m := range keyMutations {
			values := map[string]string{}
			for k, v := range good {
				values[k] = v
			}
			values[p] = m.Text
			req := Request{Method: op.Method, Path: fillPath(op.Path, values)}
			if op.HasBody {
				req.Body = body
			}
			if m.Refuse {
				h.refused(req, http.StatusBadRequest, http.StatusNotFound)
			} else {
				h.send(req)
			}
		}
	}
}

// queryParams puts each hostile value into each query parameter, and
// sends parameters with bad names and given twice.
func (h *hostile) queryParams(op operation) {
	if op.Method != http.MethodGet {
		return
	}
	path := h.goodPath(op)
	for _, q := range op.Query {
		for _, m := range queryMutations {
			req := Request{Method: op.Method, Path: path + "?" + q + "=" + m.Text}
			if m.Refuse {
				h.refused(req, http.StatusBadRequest)
			} else {
				h.send(req)
			}
		}
		h.send(Request{Method: op.Method, Path: path + "?" + q + "=1&" + q + "=2"})
	}
	if len(op.Query) == 0 {
		return // a route that reads no parameter ignores them
	}
	for _, name := range []string{"%FF", "a%00b", "%C0%AF", "%zz", "a%2"} {
		h.refused(Request{Method: op.Method, Path: path + "?" + name + "=1"}, http.StatusBadRequest)
	}
}

// headers sends bad credentials and bad Idempotency-Keys, and the Bearer
// scheme in other cases (RFC 9110: case-insensitive).
func (h *hostile) headers(op operation) {
	path := h.goodPath(op)
	body := validBody(runtime.Route{Path: op.Path})
	req := func(headers map[string]string) Request {
		r := Request{Method: op.Method, Path: path, Headers: headers}
		if op.HasBody {
			r.Body = body
		}
		return r
	}
	if !strings.HasPrefix(op.Path, "/v1/") || op.Path == "/v1/token" {
		return
	}
	for _, bad := range []string{"Bearer mk_\xff\xfe_secret", "Bearer mt_" + strings.Repeat("a", 70) + "_s", "Basic bWs6"} {
		h.refused(req(map[string]string{runtime.HeaderAuthorization: bad}), http.StatusUnauthorized)
	}
	for _, scheme := range []string{"bearer"} {
		resp := h.send(req(map[string]string{runtime.HeaderAuthorization: scheme + " " + h.env.Key}))
		if resp.Status == http.StatusUnauthorized {
			h.t.Errorf("%s %s with Authorization: %s <key>: 401: %s", op.Method, path, scheme, resp.Body)
		}
	}
	if op.HasBody {
		for _, key := range []string{"caf\xe9", strings.Repeat("k", 256)} {
			h.refused(req(map[string]string{runtime.HeaderIdempotencyKey: key}), http.StatusBadRequest)
		}
	}
}

// unknownMethods sends methods the path does not offer.
func (h *hostile) unknownMethods(op operation) {
	for _, method := range []string{"PROPFIND", http.MethodDelete} {
		if h.offered[method+" "+op.Path] {
			continue // DELETE /v1/webhooks/{key} is offered
		}
		h.refused(Request{Method: method, Path: h.goodPath(op)}, http.StatusMethodNotAllowed, http.StatusNotFound)
	}
}

// bodies sends every body mutation of every field, then the malformed
// whole bodies, checking that a refused write changed nothing and an
// accepted one stored what was sent.
func (h *hostile) bodies(op operation) {
	path := h.goodPath(op)
	before := h.snapshot(op)
	for _, f := range op.Fields {
		mutations := bodyMutations(f.Kind)
		for _, m := range mutations {
			if !m.Refuse {
				continue
			}
			h.refused(Request{Method: op.Method, Path: path, Body: bodyWith(f, m.Text)}, http.StatusBadRequest)
		}
		before = h.unchanged(op, before, "the refused values of "+f.Name)
		for _, m := range mutations {
			if m.Refuse {
				continue
			}
			body := bodyWith(f, m.Text)
			req := Request{Method: op.Method, Path: path, Body: body}
			resp := h.send(req)
			if resp.Status < 300 {
				h.storedAsSent(op, f, m.Text, resp)
				before = h.snapshot(op)
				if m.Text == `""` {
					h.clearedAsDocumented(op, req, resp)
				}
			} else {
				before = h.unchanged(op, before, truncate(body, 80))
			}
		}
	}
	for _, body := range wholeBodies(op) {
		resp := h.send(Request{Method: op.Method, Path: path, Body: body})
		if resp.Status < 300 {
			before = h.snapshot(op)
		} else {
			before = h.unchanged(op, before, truncate(body, 80))
		}
	}
}

// snapshotPath is the GET of what a write changes: the record the path
// names, or for a create the register's newest record. "" when the
// operation writes no register record (the token endpoint).
func (h *hostile) snapshotPath(op operation) string {
	register := op.register()
	if register == "" {
		return ""
	}
	if len(op.PathParams) > 0 {
		return "/v1/" + register + "/" + h.key(register)
	}
	return "/v1/" + register + "?limit=1"
}

// snapshot is what a refused write must leave as it is (snapshotPath); nil
// when the operation writes no register record.
func (h *hostile) snapshot(op operation) []byte {
	path := h.snapshotPath(op)
	if path == "" {
		return nil
	}
	h.reads++
	resp := h.env.Do(Request{Method: http.MethodGet, Path: path, Key: h.env.Key, SkipResponseValidation: true})
	if resp.Status != http.StatusOK {
		h.t.Fatalf("snapshot GET %s: %d %s", path, resp.Status, resp.Body)
	}
	// The record as stored must still read as the document says: checked
	// when it changed (an accepted hostile write), a few times per record.
	if !bytes.Equal(h.seen[path], resp.Body) && h.validated[path] < 3 {
		h.seen[path] = resp.Body
		h.validated[path]++
		hr, _ := http.NewRequest(http.MethodGet, h.env.URL+path, nil)
		if err := Contract(h.t).check(hr, nil, false, resp.Status, resp.Header, resp.Body); err != nil {
			h.t.Errorf("OpenAPI contract: GET %s after a write: %v", path, err)
		}
	}
	return resp.Body
}

// clearedAsDocumented checks an accepted "" (a clear) against the
// document every time, not a sample: a clear is where what is stored can
// part from the read schema (null on a field that always has a value, ""
// outside an enum). Both the answer and the record read afterwards.
func (h *hostile) clearedAsDocumented(op operation, req Request, resp Response) {
	h.t.Helper()
	body := req.Body.(string)
	hr, _ := http.NewRequest(req.Method, h.env.URL+req.Path, strings.NewReader(body))
	if err := Contract(h.t).check(hr, []byte(body), true, resp.Status, resp.Header, resp.Body); err != nil {
		h.t.Errorf("OpenAPI contract: %s answered a clear: %v", label(req.Method, req.Path, body), err)
	}
	path := h.snapshotPath(op)
	if path == "" {
		return
	}
	h.reads++
	read := h.env.Do(Request{Method: http.MethodGet, Path: path, Key: h.env.Key, SkipResponseValidation: true})
	hr, _ = http.NewRequest(http.MethodGet, h.env.URL+path, nil)
	if err := Contract(h.t).check(hr, nil, false, read.Status, read.Header, read.Body); err != nil {
		h.t.Errorf("OpenAPI contract: GET %s after %s: %v", path, label(req.Method, req.Path, body), err)
	}
}

// unchanged fails when the snapshot moved after refused writes, and
// returns the current one.
func (h *hostile) unchanged(op operation, before []byte, after string) []byte {
	h.t.Helper()
	now := h.snapshot(op)
	if !bytes.Equal(now, before) {
		h.t.Errorf("%s %s: the record changed after %s was refused:\nbefore %s\nafter  %s", op.Method, op.Path, after, truncate(string(before), 400), truncate(string(now), 400))
	}
	return now
}

// storedAsSent checks that an accepted top-level text or number reads back
// as sent: nothing silently altered.
func (h *hostile) storedAsSent(op operation, f bodyField, text string, resp Response) {
	sent, ok := sentValue(text)
	if !ok || f.Line != "" || (f.Kind != "string" && f.Kind != "number") {
		return
	}
	var rec map[string]any
	if json.Unmarshal(resp.Body, &rec) != nil {
		return
	}
	got, present := rec[pascal(f.Name)]
	if !present || sent == "" { // a reply without the field; "" clears (a cleared key is numbered)
		return
	}
	if got != sent {
		h.t.Errorf("%s %s: %s sent as %s, answered %v", op.Method, op.Path, f.Name, truncate(text, 80), truncate(toText(got), 80))
	}
}

func toText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestComputedOverflowIsRefused: amounts whose computed TotalPrice
// overflows float64 are refused (422 naming the field) on every route that
// computes one, and nothing is written.
func TestComputedOverflowIsRefused(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		env := Start(t, b, runtime.Config{})
		refusedNamingTotal := func(t *testing.T, resp Response) {
			t.Helper()
			Expect(t, resp, http.StatusUnprocessableEntity)
			if p := resp.Problem(t); !strings.Contains(p.Detail, "TotalPrice") {
				t.Fatalf("the problem does not name TotalPrice: %s", resp.Body)
			}
		}
		newest := func() string { k, _ := env.FirstKey("orders", env.Key); return k }
		before := newest()
		refusedNamingTotal(t, env.Post("/v1/orders", `{"customerNr": "1001", "lines": [{"productNr": "4001", "quantity": 10, "price": 1e308}]}`))
		if after := newest(); after != before {
			t.Fatalf("a refused order was created: newest %s, was %s", after, before)
		}

		created := env.Post("/v1/orders", `{"customerNr": "1001", "lines": [{"productNr": "4001", "quantity": 2, "price": 100}]}`)
		Expect(t, created, http.StatusCreated)
		var order struct {
			Nr    string
			Lines []struct{ Id string }
		}
		created.JSON(t, &order)
		if len(order.Lines) != 1 {
			t.Fatalf("order lines: %s", created.Body)
		}
		refusedNamingTotal(t, env.Post(KeyPath("orders", order.Nr, "/lines"), `{"productNr": "4001", "quantity": 10, "price": 1.7e308}`))

		line := KeyPath("orderlines", order.Lines[0].Id)
		stored := env.Get(line)
		Expect(t, stored, http.StatusOK)
		for _, body := range []string{`{"price": 1e308}`, `{"price": -1.7e308, "discountPrice": 1.7e308}`, `{"quantity": 1.7976931348623157e308}`} {
			refusedNamingTotal(t, env.Patch(line, body))
		}
		if now := env.Get(line); !bytes.Equal(now.Body, stored.Body) {
			t.Fatalf("a refused PATCH changed the line:\nbefore %s\nafter  %s", stored.Body, now.Body)
		}
	})
}
