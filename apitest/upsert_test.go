package apitest

import (
	"net/http"
	"strings"
	"testing"

	"github.com/matryer/is"

	"fieldapi/runtime"
)

// put is a PUT with the demo key, a fresh Idempotency-Key and headers.
func (e *Env) put(path string, body any, headers ...string) Response {
	e.T.Helper()
	h := map[string]string{}
	for i := 0; i+1 < len(headers); i += 2 {
		h[headers[i]] = headers[i+1]
	}
	return e.Do(Request{Method: http.MethodPut, Path: path, Key: e.Key, Body: body, Headers: h})
}

// TestUpsertByNumber: PUT /v1/<register>/{key} creates the record with that
// key (201, Location, POST's answer, a created event), then updates it
// (200, PATCH's answer, an updated event), and a PUT that changes nothing
// answers 200 without an event; If-None-Match: * and If-Match (* or the
// ETag) make it create only and update only.
func TestUpsertByNumber(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		is := is.New(t)
		env := Start(t, b, runtime.Config{})
		_, cursor := env.feed(t, env.Key, "")
		events := func() []string {
			t.Helper()
			items, next := env.feed(t, env.Key, "after="+cursor)
			cursor = next
			return eventTypes(items)
		}
		path := KeyPath("customers", "EXT-1")

		created := env.put(path, map[string]any{"name": "Synk AB", "city": "Umeå"})
		Expect(t, created, http.StatusCreated)
		is.Equal(created.Header.Get(runtime.HeaderLocation), path)
		is.True(created.Header.Get(runtime.HeaderETag) != "")
		is.Equal(created.Header.Get(runtime.HeaderIdempotencyReplayed), "false")
		rec := created.Object(t)
		is.Equal(rec["Nr"], "EXT-1")
		is.Equal(rec["Status"], "Active") // the create's defaults apply
		is.Equal(events(), []string{"customer.created"})

		same := env.put(path, map[string]any{"nr": "EXT-1", "name": "Synk AB", "city": "Umeå"})
		Expect(t, same, http.StatusOK)
		is.Equal(same.Object(t)["Modified"], rec["Modified"]) // nothing written
		is.Equal(same.Header.Get(runtime.HeaderETag), created.Header.Get(runtime.HeaderETag))
		is.Equal(len(events()), 0) // a PUT that changes nothing emits nothing

		changed := env.put(path, map[string]any{"city": "Luleå"})
		Expect(t, changed, http.StatusOK)
		is.Equal(changed.Object(t)["City"], "Luleå")
		is.Equal(changed.Object(t)["Name"], "Synk AB") // PATCH semantics: what is not sent stays
		is.Equal(events(), []string{"customer.updated"})

		// Conditions.
		etag := changed.Header.Get(runtime.HeaderETag)
		is.Equal(env.put(path, map[string]any{"city": "Kiruna"}, runtime.HeaderIfNoneMatch, "*").Problem(t).Title, "precondition_failed")
		is.Equal(env.put(KeyPath("customers", "EXT-2"), map[string]any{"name": "X"}, runtime.HeaderIfMatch, "*").Problem(t).Title, "precondition_failed")
		is.Equal(env.put(KeyPath("customers", "EXT-2"), map[string]any{"name": "X"}, runtime.HeaderIfMatch, etag).Problem(t).Title, "precondition_failed")
		Expect(t, env.Get(KeyPath("customers", "EXT-2")), http.StatusNotFound) // nothing was created
		Expect(t, env.put(path, map[string]any{"city": "Kiruna"}, runtime.HeaderIfMatch, etag), http.StatusOK)
		is.Equal(env.put(path, map[string]any{"city": "Gällivare"}, runtime.HeaderIfMatch, etag).Problem(t).Title, "precondition_failed") // stale
		Expect(t, env.put(path, map[string]any{"city": "Gällivare"}, runtime.HeaderIfMatch, "*"), http.StatusOK)
		Expect(t, env.put(KeyPath("customers", "EXT-3"), map[string]any{"name": "Ny"}, runtime.HeaderIfNoneMatch, "*"), http.StatusCreated)
		is.Equal(events(), []string{"customer.updated", "customer.updated", "customer.created"})

		// Lines follow POST when the PUT creates, PATCH when it updates.
		withContact := map[string]any{"name": "Med kontakt AB", "contacts": []any{map[string]any{"name": "Kim"}}}
		Expect(t, env.put(KeyPath("customers", "EXT-4"), withContact), http.StatusCreated)
		is.Equal(env.put(KeyPath("customers", "EXT-4"), withContact).Problem(t).Title, "command_failed")

		// A POST of a taken number is the engine's refusal (spec 7: 422).
		taken := env.Post("/v1/customers", map[string]any{"nr": "EXT-1", "name": "Dubblett"})
		is.Equal(taken.Status, http.StatusUnprocessableEntity)
		is.Equal(taken.Problem(t).Title, "command_failed")
		is.True(strings.Contains(taken.Problem(t).Detail, "EXT-1"))

		// A replay of a PUT answers what it answered, created or not.
		again := Request{Method: http.MethodPut, Path: KeyPath("customers", "EXT-5"), Key: env.Key, Body: map[string]any{"name": "Replay"},
			Headers: map[string]string{runtime.HeaderIdempotencyKey: "put-ext-5"}}
		first := env.Do(again)
		Expect(t, first, http.StatusCreated)
		replay := env.Do(again)
		Expect(t, replay, http.StatusCreated)
		is.Equal(replay.Header.Get(runtime.HeaderIdempotencyReplayed), "true")
		is.Equal(string(replay.Body), string(first.Body))
	})
}

// TestUpsertTasks: a task PUT creates with the task's create answer and
// its rules (a customer is required), and a PUT repeating the create-only
// fields with their stored values is no change.
func TestUpsertTasks(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		is := is.New(t)
		env := Start(t, b, runtime.Config{})
		path := KeyPath("tasks", "SYNC-77")
		is.Equal(env.put(path, map[string]any{"taskText": "Ingen kund"}).Problem(t).Title, "command_failed") // required on create
		body := map[string]any{"customerNr": "1001", "taskText": "Byt filter", "status": "Planned"}
		created := env.put(path, body)
		Expect(t, created, http.StatusCreated)
		is.Equal(created.Object(t)["nr"], "SYNC-77") // the task's create answer
		is.Equal(created.Header.Get(runtime.HeaderLocation), path)
		same := env.put(path, body)
		Expect(t, same, http.StatusOK)
		is.Equal(same.Object(t)["Nr"], "SYNC-77") // the whole task, as PATCH answers
		body["customerNr"] = "1002"
		is.Equal(env.put(path, body).Problem(t).Title, "command_failed") // a create-only field cannot change
	})
}

// TestUpsertBadInput: a key that is empty, too long or not valid text is a
// 400 naming it; a body whose key contradicts the path's is a 400; PUT on
// a register whose key the engine assigns is a 405 with Allow.
func TestUpsertBadInput(t *testing.T) {
	is := is.New(t)
	env := Start(t, Backends(t)[0], runtime.Config{})
	for _, tc := range []struct{ name, path, param string }{
		{"empty", "/v1/customers/", "key"},
		{"too long", KeyPath("customers", strings.Repeat("x", runtime.MaxKeyLength+1)), "nr"},
		{"control character", "/v1/customers/A%0AB", "nr"},
		{"leading space", "/v1/customers/%20A", "nr"},
		{"not UTF-8", "/v1/customers/%FF", "key"},
	} {
		// The empty key's path is no operation of the document: its
		// answer is checked here, not against it.
		resp := env.Do(Request{Method: http.MethodPut, Path: tc.path, Key: env.Key, Body: `{"name": "X"}`, SkipRequestValidation: true, SkipResponseValidation: tc.param == "key"})
		p := resp.Problem(t)
		if p.Status != http.StatusBadRequest || p.Title != "invalid_parameter" || !strings.Contains(p.Detail, `"`+tc.param+`"`) {
			t.Errorf("%s: %d %s %q; want 400 invalid_parameter naming %s", tc.name, p.Status, p.Title, p.Detail, tc.param)
		}
	}
	Expect(t, env.put(KeyPath("customers", strings.Repeat("x", runtime.MaxKeyLength)), map[string]any{"name": "X"}), http.StatusCreated)

	contradicts := env.put(KeyPath("customers", "EXT-9"), map[string]any{"nr": "EXT-8", "name": "X"})
	p := contradicts.Problem(t)
	is.Equal(p.Title, "invalid_field")
	is.True(strings.Contains(p.Detail, `"nr"`))
	Expect(t, env.Get(KeyPath("customers", "EXT-9")), http.StatusNotFound)

	both := env.put(KeyPath("customers", "EXT-9"), map[string]any{"name": "X"}, runtime.HeaderIfMatch, "*", runtime.HeaderIfNoneMatch, "*")
	is.Equal(both.Problem(t).Title, "invalid_parameter")

	notAllowed := env.put("/v1/contacts/1", map[string]any{"name": "X"})
	is.Equal(notAllowed.Status, http.StatusMethodNotAllowed)
	is.True(strings.Contains(notAllowed.Header.Get(runtime.HeaderAllow), "PATCH"))
	is.True(!strings.Contains(notAllowed.Header.Get(runtime.HeaderAllow), "PUT"))
	is.Equal(env.put("/v1/users/API", map[string]any{"name": "X"}).Status, http.StatusMethodNotAllowed) // a read-only register
}
