package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"fieldapi/webhook"
)

// watchedBuffer is a syncBuffer that tells waiters when it is written.
type watchedBuffer struct {
	syncBuffer
	written chan struct{}
}

func newWatchedBuffer() *watchedBuffer { return &watchedBuffer{written: make(chan struct{}, 1)} }

func (b *watchedBuffer) Write(p []byte) (int, error) {
	n, err := b.syncBuffer.Write(p)
	select {
	case b.written <- struct{}{}:
	default: // a waiter will look anyway
	}
	return n, err
}

// waitFor waits until the buffer holds want, and returns what it holds.
func (b *watchedBuffer) waitFor(t *testing.T, want string) string {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		if s := b.String(); strings.Contains(s, want) {
			return s
		}
		select {
		case <-b.written:
		case <-deadline:
			t.Fatalf("waited for %q; got:\n%s", want, b.String())
		}
	}
}

// runningListener is "fieldapi listen" running in a goroutine.
type runningListener struct {
	url            string
	stdout, stderr *watchedBuffer
	stop           func() int
}

// startListen runs listen on a free port of 127.0.0.1 with the clock now
// (nil: time.Now) and waits until it listens.
func startListen(t *testing.T, now func() time.Time, args ...string) runningListener {
	t.Helper()
	stdout, stderr := newWatchedBuffer(), newWatchedBuffer()
	listening := make(chan net.Addr, 1)
	a := &app{stdout: stdout, stderr: stderr, getenv: func(string) string { return "" }, now: now,
		onListen: func(addr net.Addr) { listening <- addr }}
	ctx, cancel := context.WithCancel(t.Context())
	exit := make(chan int, 1)
	go func() { exit <- a.run(ctx, append([]string{"listen", "--addr", "127.0.0.1:0"}, args...)) }()
	stop := func() int {
		cancel()
		select {
		case code := <-exit:
			return code
		case <-time.After(listenDrainWait + 5*time.Second):
			t.Fatal("listen did not stop")
			return -1
		}
	}
	t.Cleanup(func() { cancel() })
	select {
	case addr := <-listening:
		return runningListener{url: "http://" + addr.String() + "/", stdout: stdout, stderr: stderr, stop: stop}
	case code := <-exit:
		t.Fatalf("listen exited with %d before listening: %s", code, stderr.String())
	case <-time.After(10 * time.Second):
		t.Fatal("listen did not start listening")
	}
	return runningListener{}
}

// callAPI makes one call of the API with a key and decodes a JSON answer.
func callAPI(t *testing.T, method, url, key, idempotencyKey string, body any) (int, map[string]any) {
	t.Helper()
	var payload io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		payload = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(t.Context(), method, url, payload)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if idempotencyKey != "" {
		req.Header.Set("Idempotency-Key", idempotencyKey)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var answer map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&answer)
	return resp.StatusCode, answer
}

// TestListenPrintsWhatServeDelivers is the README's walkthrough: serve
// with --webhook-allow-private, a subscription to the listener's address,
// its secret given to listen; the worker's real, signed deliveries (a
// ping, then a customer.created) are accepted and printed.
func TestListenPrintsWhatServeDelivers(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	dsn := demoDSN(t)
	key := createKey(t, dsn, "--scopes", "*").Key
	srv := startServe(t, dsn, "--webhook-allow-private", "--webhook-poll", "20ms")
	defer srv.stop()
	api := "http://" + srv.addr.String()

	// The secret comes with the subscription, and listen needs it to start:
	// subscribe first, then point the subscription at the listener.
	status, hook := callAPI(t, "POST", api+"/v1/webhooks", key, "hook-1",
		map[string]any{"url": "http://127.0.0.1:9/", "eventTypes": []string{"customer.*"}})
	is.Equal(status, http.StatusCreated)
	hookID, secret := hook["id"].(string), hook["secret"].(string)
	is.True(strings.HasPrefix(secret, "whsec_"))
	listener := startListen(t, nil, "--secret", secret)
	status, _ = callAPI(t, "PATCH", api+"/v1/webhooks/"+hookID, key, "hook-1-url", map[string]any{"url": listener.url})
	is.Equal(status, http.StatusOK)

	status, _ = callAPI(t, "POST", api+"/v1/webhooks/"+hookID+"/test", key, "hook-1-ping", nil)
	is.True(status < 300)
	out := listener.stdout.waitFor(t, "webhook.ping")
	is.True(strings.Contains(out, "webhook="+hookID)) // the summary line names the subscription
	is.True(strings.Contains(out, `  "type": "webhook.ping"`))

	status, _ = callAPI(t, "POST", api+"/v1/customers", key, "customer-1", map[string]any{"name": "Listen AB"})
	is.Equal(status, http.StatusCreated)
	out = listener.stdout.waitFor(t, "customer.created")
	is.True(strings.Contains(out, "customers/1061 company=demo")) // register, key, company
	is.True(strings.Contains(out, `"Name": "Listen AB"`))         // the payload, indented
	is.Equal(listener.stderr.String(), strings.Join([]string{
		"listening for webhook deliveries on " + listener.url + " (Ctrl-C stops)",
		"subscribe that URL (POST /v1/webhooks); fieldapi serve delivers to this machine only with --webhook-allow-private",
		""}, "\n")) // nothing refused
	is.Equal(listener.stop(), 0)
}

// signedDelivery is a delivery as the worker sends it, signed with
// webhook.Sign (the worker's signer) at the time at.
func signedDelivery(t *testing.T, url, secret, msgID string, at time.Time, body string) *http.Request {
	t.Helper()
	sig, err := webhook.Sign(secret, msgID, at, []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("webhook-id", msgID)
	req.Header.Set("webhook-timestamp", strconv.FormatInt(at.Unix(), 10))
	req.Header.Set("webhook-signature", sig)
	return req
}

func send(t *testing.T, req *http.Request) (int, string) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

const (
	testSecret  = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	otherSecret = "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD"
	testEvent   = `{"id":"evt_1","position":7,"type":"task.created","company":"demo","register":"tasks","key":"10065","actor":{"clientId":"demo-cli","sign":"API"},"data":{"Nr":"10065"}}`
)

func TestListenRefusesWhatIsNotSignedWithItsSecret(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	listener := startListen(t, func() time.Time { return now }, "--secret", testSecret)

	valid := signedDelivery(t, listener.url, testSecret, "evt_1", now, testEvent)
	tampered := signedDelivery(t, listener.url, testSecret, "evt_1", now, testEvent)
	tampered.Body = io.NopCloser(strings.NewReader(strings.Replace(testEvent, "10065", "10066", 1)))
	tampered.ContentLength = -1
	unsigned, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, listener.url, strings.NewReader(testEvent))
	for _, tc := range []struct {
		name   string
		req    *http.Request
		status int
		why    string // in the answer and on stderr
	}{
		{"valid", valid, http.StatusNoContent, ""},
		{"tampered body", tampered, http.StatusUnauthorized, "the signature does not match --secret"},
		{"another secret", signedDelivery(t, listener.url, otherSecret, "evt_2", now, testEvent), http.StatusUnauthorized, "signed with another secret"},
		{"no signature", unsigned, http.StatusUnauthorized, "no webhook-id, webhook-timestamp, webhook-signature header"},
		{"old timestamp", signedDelivery(t, listener.url, testSecret, "evt_3", now.Add(-6*time.Minute), testEvent), http.StatusUnauthorized, "webhook-timestamp is 6m0s old"},
		{"future timestamp", signedDelivery(t, listener.url, testSecret, "evt_4", now.Add(10*time.Minute), testEvent), http.StatusUnauthorized, "10m0s ahead"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			status, answer := send(t, tc.req)
			is.Equal(status, tc.status)
			if tc.why != "" {
				is.True(strings.Contains(answer, tc.why))                                                      // the sender is told why
				is.True(strings.Contains(listener.stderr.waitFor(t, tc.why), "refused POST / from 127.0.0.1")) // and so is the one watching
			}
		})
	}

	is := is.New(t)
	is.Equal(listener.stdout.String(), // only the valid delivery is printed
		"12:00:00 task.created evt_1 tasks/10065 company=demo position=7 by=demo-cli/API\n"+
			"{\n  \"id\": \"evt_1\",\n  \"position\": 7,\n  \"type\": \"task.created\",\n  \"company\": \"demo\",\n  \"register\": \"tasks\",\n"+
			"  \"key\": \"10065\",\n  \"actor\": {\n    \"clientId\": \"demo-cli\",\n    \"sign\": \"API\"\n  },\n  \"data\": {\n    \"Nr\": \"10065\"\n  }\n}\n")
	get, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, listener.url, nil)
	status, _ := send(t, get)
	is.Equal(status, http.StatusMethodNotAllowed)
}

func TestListenJSONPrintsOneLinePerEventAndMarksRepeats(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	jsonListener := startListen(t, func() time.Time { return now }, "--secret", testSecret, "--json")
	pretty := startListen(t, func() time.Time { return now }, "--secret", testSecret)
	indented := strings.Replace(testEvent, `"id":`, "\n  \"id\":", 1) // sent as it is, printed on one line

	for range 2 { // at least once: the same message may come again
		status, _ := send(t, signedDelivery(t, jsonListener.url, testSecret, "evt_1", now, indented))
		is.Equal(status, http.StatusNoContent)
		status, _ = send(t, signedDelivery(t, pretty.url, testSecret, "evt_1", now, testEvent))
		is.Equal(status, http.StatusNoContent)
	}
	is.Equal(jsonListener.stdout.String(), testEvent+"\n"+testEvent+"\n")
	is.Equal(strings.Count(pretty.stdout.String(), "(again: a delivery is sent at least once; drop repeats by webhook-id)"), 1)
}

func TestListenNeedsASigningSecret(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	r := runCLI(t, nil, "listen", "--addr", "127.0.0.1:0")
	is.Equal(r.code, exitError)
	is.True(strings.Contains(r.stderr, "--secret is required"))
	is.True(strings.Contains(r.stderr, "POST /v1/webhooks")) // says where the secret comes from

	r = runCLI(t, nil, "listen", "--addr", "127.0.0.1:0", "--secret", "wh_5227cf0acb2cd7d6")
	is.Equal(r.code, exitError)
	is.Equal(r.stderr, "fieldapi listen: --secret is not a signing secret: want whsec_ and base64, as POST /v1/webhooks answers it\n")

	r = runCLI(t, map[string]string{"FIELDAPI_SECRET": "whsec_not base64!"}, "listen", "--addr", "127.0.0.1:0")
	is.Equal(r.code, exitError)
	is.True(strings.Contains(r.stderr, "not a signing secret"))
}
