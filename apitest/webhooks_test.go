package apitest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/matryer/is"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"fieldapi/runtime"
	"fieldapi/webhook"
)

// received is one request a test receiver got.
type received struct {
	Header http.Header
	Body   []byte
}

// receiver is a real HTTP server on 127.0.0.1 that records what it gets
// and answers with status(n) for its n-th request (from 1).
type receiver struct {
	*httptest.Server
	mu   sync.Mutex
	got  []received
	hits atomic.Int64
}

func newReceiver(t *testing.T, status func(n int64) int) *receiver {
	r := &receiver{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		n := r.hits.Add(1)
		r.mu.Lock()
		r.got = append(r.got, received{Header: req.Header.Clone(), Body: body})
		r.mu.Unlock()
		w.WriteHeader(status(n))
	}))
	t.Cleanup(r.Close)
	return r
}

// wait returns what the receiver got once it holds n requests.
func (r *receiver) wait(t *testing.T, n int) []received {
	t.Helper()
	var got []received
	eventually(t, fmt.Sprintf("the receiver holding %d requests", n), func() bool {
		r.mu.Lock()
		got = append([]received{}, r.got...)
		r.mu.Unlock()
		return len(got) >= n
	})
	return got
}

// eventually polls check until it holds, failing the test after a
// generous bound: deliveries are asynchronous, a loaded CI machine is
// slow, and a check that holds returns at its first success.
func eventually(t *testing.T, what string, check func() bool) {
	t.Helper()
	const within = 10 * time.Second
	for deadline := time.Now().Add(within); !check(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no %s within %s", what, within)
		}
	}
}

func always(status int) func(int64) int { return func(int64) int { return status } }

// startWorker runs a delivery worker on the env's queue until the test ends.
func startWorker(t *testing.T, env *Env, opt webhook.Options) *webhook.Counters {
	counters := &webhook.Counters{}
	if opt.Poll == 0 {
		opt.Poll = 20 * time.Millisecond
	}
	opt.Metrics = counters
	opt.Logger = quietLogger()
	w := webhook.NewWorker(env.Engine.Queue(), opt)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { w.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return counters
}

// subscribe creates a subscription and returns its id and secret.
func (e *Env) subscribe(t *testing.T, url string, types ...string) (id, secret string) {
	t.Helper()
	resp := e.Post("/v1/webhooks", map[string]any{"url": url, "eventTypes": types, "description": "test"})
	Expect(t, resp, http.StatusCreated)
	w := resp.Object(t)
	return w["id"].(string), w["secret"].(string)
}

// TestWebhooksDeliverSignedEvents: a subscription gets the events it
// matches, signed so that the Standard Webhooks library verifies them; a
// tampered body or an old timestamp fails; a rotated secret keeps the old
// one valid; deliveries list their attempts; pings and retries are sent.
func TestWebhooksDeliverSignedEvents(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		is := is.New(t)
		env := Start(t, b, runtime.Config{})
		recv := newReceiver(t, always(http.StatusNoContent))
		id, secret := env.subscribe(t, recv.URL+"/hooks", "task.*", "order.line_added")
		is.True(strings.HasPrefix(secret, "whsec_"))
		got := env.Get("/v1/webhooks/" + id)
		Expect(t, got, http.StatusOK)
		_, shown := got.Object(t)["secret"]
		is.True(!shown) // the secret is shown once
		startWorker(t, env, webhook.Options{Policy: webhook.AddressPolicy{AllowPrivate: true}})

		Expect(t, env.Post("/v1/customers", map[string]any{"name": "Not subscribed"}), http.StatusCreated)
		task := env.Post("/v1/tasks", map[string]any{"customerNr": "1031", "taskText": "Webhook"})
		Expect(t, task, http.StatusCreated)
		nr := task.Object(t)["nr"].(string)
		Expect(t, env.Post(KeyPath("tasks", nr, "/status"), map[string]any{"status": "Sent"}), http.StatusOK)

		msgs := recv.wait(t, 2)
		verifier, err := standardwebhooks.NewWebhook(secret)
		is.NoErr(err)
		var types []string
		for _, m := range msgs {
			is.NoErr(verifier.Verify(m.Body, m.Header)) // the published library accepts the signature
			var ev feedEvent
			is.NoErr(json.Unmarshal(m.Body, &ev))
			is.Equal(m.Header.Get(runtime.HeaderWebhookID), ev.ID)
			types = append(types, ev.Type)

			tampered := append([]byte{}, m.Body...)
			tampered[len(tampered)-2] ^= 1
			is.True(verifier.Verify(tampered, m.Header) != nil) // a changed body fails
		}
		slices.Sort(types) // delivery order is not promised; the feed's position is in each message
		is.Equal(types, []string{"task.created", "task.status_changed"})

		// A correctly signed message with a timestamp 10 minutes old fails.
		old := time.Now().Add(-10 * time.Minute)
		sig, err := webhook.Sign(secret, "msg_old", old, msgs[0].Body)
		is.NoErr(err)
		h := http.Header{}
		h.Set(runtime.HeaderWebhookID, "msg_old")
		h.Set(runtime.HeaderWebhookTimestamp, strconv.FormatInt(old.Unix(), 10))
		h.Set(runtime.HeaderWebhookSignature, sig)
		is.True(verifier.Verify(msgs[0].Body, h) != nil)
		is.NoErr(verifier.VerifyIgnoringTimestamp(msgs[0].Body, h)) // only the age is wrong

		// Rotation: the next message verifies with the new and the old secret.
		rotated := env.Post("/v1/webhooks/"+id+"/rotate-secret", nil)
		Expect(t, rotated, http.StatusOK)
		newSecret := rotated.Object(t)["secret"].(string)
		is.True(newSecret != secret)
		is.True(rotated.Object(t)["previousSecretExpires"] != nil)
		ping := env.Post("/v1/webhooks/"+id+"/test", nil)
		Expect(t, ping, http.StatusAccepted)
		msgs = recv.wait(t, 3)
		is.True(strings.Contains(string(msgs[2].Body), `"webhook.ping"`))
		for _, s := range []string{secret, newSecret} {
			v, err := standardwebhooks.NewWebhook(s)
			is.NoErr(err)
			is.NoErr(v.Verify(msgs[2].Body, msgs[2].Header))
		}

		// The deliveries with their attempts (once the worker has recorded
		// the last answer); one sent again by hand.
		var list struct {
			Items []struct {
				ID        int64
				MessageID string
				State     string
				Attempts  []struct {
					StatusCode int
					LatencyMs  float64
					Error      string
				}
			}
		}
		eventually(t, "deliveries without a pending one", func() bool {
			resp := env.Get("/v1/webhooks/" + id + "/deliveries")
			Expect(t, resp, http.StatusOK)
			resp.JSON(t, &list)
			return !strings.Contains(string(resp.Body), `"pending"`)
		})
		is.Equal(len(list.Items), 3)
		for _, d := range list.Items {
			is.Equal(d.State, "succeeded")
			is.Equal(len(d.Attempts), 1)
			is.Equal(d.Attempts[0].StatusCode, http.StatusNoContent)
			is.Equal(d.Attempts[0].Error, "")
		}
		retry := env.Post("/v1/webhooks/"+id+"/deliveries/"+strconv.FormatInt(list.Items[2].ID, 10)+"/retry", nil)
		Expect(t, retry, http.StatusAccepted)
		again := recv.wait(t, 4)
		is.Equal(again[3].Header.Get(runtime.HeaderWebhookID), list.Items[2].MessageID) // a duplicate shows by its id

		// Another company sees neither the subscription nor its deliveries.
		is.Equal(env.Do(Request{Method: http.MethodGet, Path: "/v1/webhooks/" + id, Key: env.OtherKey}).Status, http.StatusNotFound)
		Expect(t, env.Do(Request{Method: http.MethodPost, Path: "/v1/tasks", Key: env.OtherKey, Body: map[string]any{"customerNr": firstKeyOf(t, env, "customers", env.OtherKey), "taskText": "demo2"}}), http.StatusCreated)
		// demo2's task went nowhere: once a later task of this company is
		// delivered, the subscription holds one delivery more, that one.
		Expect(t, env.Post("/v1/tasks", map[string]any{"customerNr": "1031", "taskText": "After demo2's"}), http.StatusCreated)
		last := recv.wait(t, 5)
		is.True(strings.Contains(string(last[4].Body), `"After demo2's"`))
		deliveries := env.Get("/v1/webhooks/" + id + "/deliveries")
		Expect(t, deliveries, http.StatusOK)
		var after struct{ Items []struct{ EventType string } }
		deliveries.JSON(t, &after)
		is.Equal(len(after.Items), len(list.Items)+1)
		is.Equal(after.Items[0].EventType, "task.created")
		is.Equal(recv.hits.Load(), int64(5))

		del := env.Do(Request{Method: http.MethodDelete, Path: "/v1/webhooks/" + id, Key: env.Key})
		is.Equal(del.Status, http.StatusNoContent)
		is.Equal(env.Get("/v1/webhooks/"+id).Status, http.StatusNotFound)
	})
}

func firstKeyOf(t *testing.T, env *Env, register, key string) string {
	k, ok := env.firstKeyWith(t, register, key)
	if !ok {
		t.Fatalf("no %s", register)
	}
	return k
}

// TestWebhookRetriesAndGivesUp: a failing receiver is retried with
// backoff until it answers; one that fails past the give-up time has its
// subscription disabled with the reason; redirects are not followed.
func TestWebhookRetriesAndGivesUp(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		is := is.New(t)
		env := Start(t, b, runtime.Config{})
		flaky := newReceiver(t, func(n int64) int {
			if n <= 2 {
				return http.StatusInternalServerError
			}
			return http.StatusOK
		})
		flakyID, _ := env.subscribe(t, flaky.URL, "customer.created")
		redirect := newReceiver(t, always(http.StatusFound))
		redirectID, _ := env.subscribe(t, redirect.URL, "customer.created")
		startWorker(t, env, webhook.Options{Policy: webhook.AddressPolicy{AllowPrivate: true}, RetryBase: 20 * time.Millisecond, GiveUpAfter: time.Hour})

		Expect(t, env.Post("/v1/customers", map[string]any{"name": "Retry"}), http.StatusCreated)
		msgs := flaky.wait(t, 3)
		is.Equal(msgs[0].Header.Get(runtime.HeaderWebhookID), msgs[2].Header.Get(runtime.HeaderWebhookID)) // the same message each time
		var list struct {
			Items []struct {
				State    string
				Attempts []struct {
					StatusCode int
					Error      string
				}
			}
		}
		eventually(t, "succeeded delivery", func() bool {
			env.Get("/v1/webhooks/"+flakyID+"/deliveries").JSON(t, &list)
			return list.Items[0].State == "succeeded"
		})
		is.Equal(list.Items[0].State, "succeeded")
		is.Equal(len(list.Items[0].Attempts), 3)
		is.Equal(list.Items[0].Attempts[0].StatusCode, 500)
		is.True(strings.Contains(list.Items[0].Attempts[0].Error, "HTTP 500"))

		// The redirecting receiver: a 302 is a failed attempt, never followed.
		redirect.wait(t, 1)
		eventually(t, "recorded 302 attempt", func() bool {
			return strings.Contains(string(env.Get("/v1/webhooks/"+redirectID+"/deliveries").Body), `"statusCode":302`)
		})
	})
}

// TestWebhookGivesUpAndDisables: past the give-up time the delivery fails
// for good and the subscription is disabled, saying why.
func TestWebhookGivesUpAndDisables(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		is := is.New(t)
		env := Start(t, b, runtime.Config{})
		down := newReceiver(t, always(http.StatusServiceUnavailable))
		id, _ := env.subscribe(t, down.URL, "*")
		startWorker(t, env, webhook.Options{Policy: webhook.AddressPolicy{AllowPrivate: true}, GiveUpAfter: time.Millisecond})
		Expect(t, env.Post("/v1/customers", map[string]any{"name": "Give up"}), http.StatusCreated)
		down.wait(t, 1)
		var w map[string]any
		eventually(t, "disabled subscription", func() bool {
			w = env.Get("/v1/webhooks/" + id).Object(t)
			return w["enabled"] == false
		})
		is.True(strings.Contains(w["disabledReason"].(string), "HTTP 503"))
		// Enabling it again clears the reason.
		again := env.Patch("/v1/webhooks/"+id, map[string]any{"enabled": true})
		Expect(t, again, http.StatusOK)
		is.Equal(again.Object(t)["disabledReason"], "")
	})
}

// TestWebhookPrivateAddressesRefused: without --webhook-allow-private a
// loopback URL is refused when subscribed, and a delivery never dials a
// private address even when the subscription was made while allowed.
func TestWebhookPrivateAddressesRefused(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		is := is.New(t)
		strict := webhook.AddressPolicy{}
		env := Start(t, b, runtime.Config{WebhookURLCheck: strict.CheckURL})
		recv := newReceiver(t, always(http.StatusOK))
		for _, url := range []string{recv.URL, "http://localhost:9/x", "http://169.254.169.254/latest/meta-data", "http://10.1.2.3/", "http://[::1]/"} {
			resp := env.Post("/v1/webhooks", map[string]any{"url": url, "eventTypes": []string{"*"}})
			is.Equal(resp.Status, http.StatusUnprocessableEntity)
			is.True(strings.Contains(resp.Problem(t).Detail, "--webhook-allow-private"))
		}
		for _, body := range []string{`{"url": "ftp://example.com/", "eventTypes": ["*"]}`, `{"url": "https://example.com/", "eventTypes": ["tasks.*"]}`, `{"url": "https://example.com/", "eventTypes": []}`, `{"url": "https://example.com/", "colour": "red"}`} {
			resp := env.SkipRequestValidation().Post("/v1/webhooks", body)
			is.Equal(resp.Status, http.StatusBadRequest)
		}

		// Subscribed under a lenient policy, delivered under the strict one:
		// the dialer refuses 127.0.0.1 and the receiver is never reached.
		lenient := Start(t, b, runtime.Config{})
		id, _ := lenient.subscribe(t, recv.URL, "*")
		startWorker(t, lenient, webhook.Options{Policy: strict, GiveUpAfter: time.Hour})
		Expect(t, lenient.Post("/v1/customers", map[string]any{"name": "Private"}), http.StatusCreated)
		var body string
		eventually(t, "refused delivery attempt", func() bool {
			body = string(lenient.Get("/v1/webhooks/" + id + "/deliveries").Body)
			return strings.Contains(body, "loopback")
		})
		is.True(strings.Contains(body, "127.0.0.1 is a loopback address"))
		is.Equal(recv.hits.Load(), int64(0))
	})
}

// TestWebhookSeesWhatItsSignatureMayRead: a subscription made with a key
// whose signature may read customers only gets customer events, though
// it subscribed to every type.
func TestWebhookSeesWhatItsSignatureMayRead(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		is := is.New(t)
		env := Start(t, b, runtime.Config{})
		recv := newReceiver(t, always(http.StatusOK))
		limited := env.limitedSignKey(t)
		created := env.Do(Request{Method: http.MethodPost, Path: "/v1/webhooks", Key: limited, Body: map[string]any{"url": recv.URL, "eventTypes": []string{"*"}}})
		Expect(t, created, http.StatusCreated)
		id := created.Object(t)["id"].(string)
		startWorker(t, env, webhook.Options{Policy: webhook.AddressPolicy{AllowPrivate: true}})
		Expect(t, env.Post("/v1/products", env.createBody(t, env.Catalog.Register("products"))), http.StatusCreated)
		Expect(t, env.Post("/v1/customers", map[string]any{"name": "Visible"}), http.StatusCreated)
		got := recv.wait(t, 1)
		is.True(strings.Contains(string(got[0].Body), `"customer.created"`))
		// Events are dispatched in commit order, so once the customer's
		// delivery exists the product's event was passed over: the
		// subscription holds the one delivery, with no wait for one that
		// must not come.
		var list struct{ Items []struct{ EventType string } }
		deliveries := env.Do(Request{Method: http.MethodGet, Path: "/v1/webhooks/" + id + "/deliveries", Key: limited})
		Expect(t, deliveries, http.StatusOK)
		deliveries.JSON(t, &list)
		is.Equal(len(list.Items), 1)
		is.Equal(list.Items[0].EventType, "customer.created")
		is.Equal(recv.hits.Load(), int64(1))
	})
}

// TestWebhookDescriptionCountsCharacters: the 500 the document allows a
// description is characters, not bytes, so a Swedish text of 500 letters
// fits and one more does not.
func TestWebhookDescriptionCountsCharacters(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		env := Start(t, b, runtime.Config{})
		body := func(description string) map[string]any {
			return map[string]any{"url": "https://example.com/hook", "eventTypes": []string{"*"}, "description": description}
		}
		Expect(t, env.Post("/v1/webhooks", body(strings.Repeat("å", 500))), http.StatusCreated)
		Expect(t, env.SkipRequestValidation().Post("/v1/webhooks", body(strings.Repeat("å", 501))), http.StatusBadRequest)
	})
}
