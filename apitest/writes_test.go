package apitest

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/matryer/is"

	"fieldapi/runtime"
)

func TestCreateAndPatchSemantics(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		is := is.New(t)
		env := Start(t, b, runtime.Config{})

		created := env.Post("/v1/customers", map[string]any{"name": "Fjord Rør AS", "city": "Bergen", "phone": "+47 55 00 00 00", "note": "gate code 1234"})
		Expect(t, created, http.StatusCreated)
		c := created.Object(t)
		nr, _ := c["Nr"].(string)
		is.True(nr != "")                   // the number series assigned a number
		is.Equal(c["Name"], "Fjord Rør AS") // read shape is PascalCase
		is.Equal(c["Status"], "Active")     // engine default
		is.True(c["Modified"] != nil)
		is.Equal(created.Header.Get(runtime.HeaderIdempotencyReplayed), "false")

		// omitted and null leave a field, "" clears it
		patched := env.Patch(KeyPath("customers", nr), map[string]any{"city": "Oslo", "phone": nil, "note": ""})
		Expect(t, patched, http.StatusOK)
		p := patched.Object(t)
		is.Equal(p["City"], "Oslo")
		is.Equal(p["Phone"], "+47 55 00 00 00")
		is.Equal(p["Note"], "")
		is.Equal(p["Name"], "Fjord Rør AS")

		got := env.Get(KeyPath("customers", nr))
		Expect(t, got, http.StatusOK)
		is.Equal(got.Object(t)["City"], "Oslo")
	})
}

func TestStrictDecoding(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		env := Start(t, b, runtime.Config{})
		cases := []struct {
			name   string
			method string
			path   string
			body   string
			code   string
			detail string
		}{
			{"unknown field", "POST", "/v1/customers", `{"name":"A","colour":"red"}`, "unknown_field", `"colour"`},
			{"read-only field", "POST", "/v1/customers", `{"name":"A","status":"Active"}`, "read_only_field", `"status"`},
			{"PascalCase name", "POST", "/v1/customers", `{"Name":"A"}`, "unknown_field", `"Name"`},
			{"wrong type", "POST", "/v1/products", `{"name":"A","basePrice":"12"}`, "invalid_field", "expected a number"},
			{"text as number", "POST", "/v1/customers", `{"name":12}`, "invalid_field", "expected a string"},
			{"bad date", "POST", "/v1/projects", `{"name":"P","planStartDate":"01/05/2026"}`, "invalid_field", "ISO 8601"},
			{"extra field not string", "POST", "/v1/customers", `{"name":"A","extraFields":{"Service.Level":3}}`, "invalid_field", "strings"},
			{"malformed JSON", "POST", "/v1/customers", `{"name":`, "malformed_body", ""},
			{"not an object", "POST", "/v1/customers", `["name"]`, "malformed_body", ""},
			{"two objects", "POST", "/v1/customers", `{"name":"A"}{"name":"B"}`, "malformed_body", ""},
			{"duplicate member", "POST", "/v1/customers", `{"name":"A","name":"B"}`, "invalid_field", "twice"},
			{"line field unknown", "POST", "/v1/customers", `{"name":"A","contacts":[{"name":"X","shoeSize":"44"}]}`, "unknown_field", `"contacts[0].shoeSize"`},
			{"line parent is set by owner", "POST", "/v1/customers", `{"name":"A","contacts":[{"name":"X","customerNr":"1"}]}`, "read_only_field", `"contacts[0].customerNr"`},
			{"required missing", "POST", "/v1/contacts", `{"name":"X"}`, "missing_field", `"customerNr"`},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				is := is.New(t)
				resp := env.Do(Request{Method: tc.method, Path: tc.path, Key: env.Key, Body: tc.body, SkipRequestValidation: true})
				is.Equal(resp.Status, http.StatusBadRequest)
				p := resp.Problem(t)
				is.Equal(p.Title, tc.code)
				is.True(strings.Contains(p.Detail, tc.detail)) // detail names the field
				if tc.code == "unknown_field" || tc.code == "read_only_field" {
					is.True(len(p.ValidValues) > 0) // lists the writable names
				}
			})
		}
	})
}

func TestIdempotency(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		env := Start(t, b, runtime.Config{})
		body := map[string]any{"name": "Idem AS", "city": "Tromsø"}
		send := func(key string, body any) Response {
			return env.Do(Request{Method: "POST", Path: "/v1/customers", Key: env.Key, Body: body, Headers: map[string]string{runtime.HeaderIdempotencyKey: key}})
		}

		t.Run("replay returns the first response", func(t *testing.T) {
			is := is.New(t)
			first := send("idem-1", body)
			Expect(t, first, http.StatusCreated)
			again := send("idem-1", map[string]any{"city": "Tromsø", "name": "Idem AS"}) // same content, other order
			Expect(t, again, http.StatusCreated)
			is.Equal(string(again.Body), string(first.Body))
			is.Equal(again.Header.Get(runtime.HeaderIdempotencyReplayed), "true")
			is.Equal(again.Header.Get(runtime.HeaderIdempotencyKey), "idem-1")
			is.Equal(env.count(t, "/v1/customers?name=Idem+AS"), 1)
		})
		t.Run("a replayed task create writes nothing", func(t *testing.T) {
			// A register's write runs before its key is looked up; a key
			// answered before makes its commit fail, undoing it all.
			is := is.New(t)
			task := map[string]any{"customerNr": "1031", "taskText": "Replay",
				"materials": []any{map[string]any{"productNr": "4025", "quantity": 2}}}
			post := func() Response {
				return env.Do(Request{Method: "POST", Path: "/v1/tasks", Key: env.Key, Body: task, Headers: map[string]string{runtime.HeaderIdempotencyKey: "idem-task"}})
			}
			first := post()
			Expect(t, first, http.StatusCreated)
			before := env.snapshot(t)
			for range 3 {
				again := post()
				Expect(t, again, http.StatusCreated)
				is.Equal(string(again.Body), string(first.Body))
				is.Equal(again.Header.Get(runtime.HeaderIdempotencyReplayed), "true")
			}
			is.Equal(env.snapshot(t), before) // no task, line or event more
		})
		t.Run("a used key with a malformed body is 409", func(t *testing.T) {
			// The body fails before the engine runs; the key's stored
			// answer is for other content.
			is := is.New(t)
			resp := env.Do(Request{Method: "POST", Path: "/v1/customers", Key: env.Key, Body: `{"name":`, Headers: map[string]string{runtime.HeaderIdempotencyKey: "idem-1"}, SkipRequestValidation: true})
			is.Equal(resp.Status, http.StatusConflict)
			is.Equal(resp.Problem(t).Title, "idempotency_mismatch")
		})
		t.Run("a replayed PATCH whose If-Match is stale replays", func(t *testing.T) {
			// Run again, the PATCH fails its precondition (the first one
			// changed the ETag); the key's stored answer is the answer.
			is := is.New(t)
			created := env.Post("/v1/customers", map[string]any{"name": "Patch Idem AS"})
			Expect(t, created, http.StatusCreated)
			nr, _ := created.Object(t)["Nr"].(string)
			tag := created.Header.Get(runtime.HeaderETag)
			patch := func() Response {
				return env.Do(Request{Method: "PATCH", Path: "/v1/customers/" + nr, Key: env.Key, Body: map[string]any{"city": "Bodø"},
					Headers: map[string]string{runtime.HeaderIdempotencyKey: "idem-patch", runtime.HeaderIfMatch: tag}})
			}
			done := patch()
			Expect(t, done, http.StatusOK)
			again := patch()
			Expect(t, again, http.StatusOK)
			is.Equal(again.Header.Get(runtime.HeaderIdempotencyReplayed), "true")
			is.Equal(string(again.Body), string(done.Body))
		})
		t.Run("other content is 409", func(t *testing.T) {
			is := is.New(t)
			resp := send("idem-1", map[string]any{"name": "Other AS"})
			is.Equal(resp.Status, http.StatusConflict)
			is.Equal(resp.Problem(t).Title, "idempotency_mismatch")
			is.Equal(resp.Header.Get(runtime.HeaderIdempotencyKey), "idem-1")
		})
		t.Run("missing key is 400", func(t *testing.T) {
			is := is.New(t)
			resp := env.Do(Request{Method: "POST", Path: "/v1/customers", Key: env.Key, Body: body, Headers: map[string]string{runtime.HeaderIdempotencyKey: ""}, SkipRequestValidation: true})
			is.Equal(resp.Status, http.StatusBadRequest)
			is.Equal(resp.Problem(t).Title, "idempotency_key_required")
		})
		t.Run("engine refusal is replayed, shape errors are not stored", func(t *testing.T) {
			is := is.New(t)
			refused := send("idem-422", map[string]any{"name": "X", "contacts": []any{map[string]any{"name": ""}}, "extraFields": map[string]string{"No.Such.Field": "1"}})
			is.Equal(refused.Status, http.StatusUnprocessableEntity)
			again := send("idem-422", map[string]any{"name": "X", "contacts": []any{map[string]any{"name": ""}}, "extraFields": map[string]string{"No.Such.Field": "1"}})
			is.Equal(again.Status, http.StatusUnprocessableEntity)
			is.Equal(again.Header.Get(runtime.HeaderIdempotencyReplayed), "true")
			// The replayed problem is the first one, answered with this
			// call's request id in body and header alike (Problem checks they agree).
			first, replayed := refused.Problem(t), again.Problem(t)
			is.True(replayed.RequestID != first.RequestID)
			first.RequestID, replayed.RequestID = "", ""
			is.Equal(replayed, first)
			own := env.Do(Request{Method: "POST", Path: "/v1/customers", Key: env.Key, Body: map[string]any{"name": "X", "contacts": []any{map[string]any{"name": ""}}, "extraFields": map[string]string{"No.Such.Field": "1"}},
				Headers: map[string]string{runtime.HeaderIdempotencyKey: "idem-422", runtime.HeaderRequestID: "replay-trace-1"}})
			is.Equal(own.Header.Get(runtime.HeaderIdempotencyReplayed), "true")
			is.Equal(own.Problem(t).RequestID, "replay-trace-1") // a client's own id is used on a replay too

			bad := env.Do(Request{Method: "POST", Path: "/v1/customers", Key: env.Key, Body: `{"name":`, Headers: map[string]string{runtime.HeaderIdempotencyKey: "idem-400"}, SkipRequestValidation: true})
			is.Equal(bad.Status, http.StatusBadRequest)
			fixed := send("idem-400", map[string]any{"name": "Fixed AS"}) // the 400 was not stored: the retry runs
			is.Equal(fixed.Status, http.StatusCreated)
			is.Equal(fixed.Header.Get(runtime.HeaderIdempotencyReplayed), "false")
		})
		t.Run("20 concurrent identical calls create one record", func(t *testing.T) {
			is := is.New(t)
			var wg sync.WaitGroup
			results := make([]Response, 20)
			for i := range results {
				wg.Add(1)
				go func() {
					defer wg.Done()
					results[i] = send("idem-concurrent", map[string]any{"name": "Concurrent AS"})
				}()
			}
			wg.Wait()
			var nr any
			for _, r := range results {
				is.Equal(r.Status, http.StatusCreated)
				if nr == nil {
					nr = r.Object(t)["Nr"]
				}
				is.Equal(r.Object(t)["Nr"], nr) // every caller sees the one record
			}
			is.Equal(env.count(t, "/v1/customers?name=Concurrent+AS"), 1)
		})
	})
}

// count returns the total of a list.
func (e *Env) count(t testing.TB, path string) int {
	t.Helper()
	resp := e.Get(path)
	Expect(t, resp, http.StatusOK)
	var env struct {
		Items []any
		Total *int
	}
	resp.JSON(t, &env)
	if env.Total == nil {
		return len(env.Items)
	}
	return *env.Total
}

func TestCustomerWithContactsIsAllOrNothing(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		is := is.New(t)
		env := Start(t, b, runtime.Config{})
		before := env.count(t, "/v1/customers")
		contactsBefore := env.count(t, "/v1/contacts")

		resp := env.Post("/v1/customers", map[string]any{
			"name": "Halvorsen Elektro",
			"contacts": []any{
				map[string]any{"name": "Kari Halvorsen", "email": "kari@example.no"},
				map[string]any{"name": "Ola Halvorsen", "email": "ola@example.no"},
				map[string]any{"name": "", "email": "nobody@example.no"}, // the engine requires a name
			},
		})
		is.Equal(resp.Status, http.StatusUnprocessableEntity)
		p := resp.Problem(t)
		is.Equal(p.Title, "command_failed")
		is.True(strings.HasPrefix(p.Detail, "contacts[2]: ")) // names the failing line
		is.Equal(env.count(t, "/v1/customers"), before)       // nothing remains
		is.Equal(env.count(t, "/v1/contacts"), contactsBefore)

		ok := env.Post("/v1/customers", map[string]any{
			"name":     "Halvorsen Elektro",
			"contacts": []any{map[string]any{"name": "Kari Halvorsen", "mostImportant": true}},
		})
		Expect(t, ok, http.StatusCreated)
		nr := ok.Object(t)["Nr"].(string)
		is.Equal(env.count(t, "/v1/contacts?customerNr="+nr), 1)
	})
}

// TestClearMatchesTheDocument: "" clears a field (spec 4.1 rule 4) the way
// the OpenAPI document says: an enum to null (the read schema admits null,
// not ""), while a field that always has a value (a create default such as
// OrderDate, QuoteDate, an order line's Price) refuses it with 400
// invalid_field naming the field and changes nothing. Env.Do checks every
// answer against the document.
func TestClearMatchesTheDocument(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		env := Start(t, b, runtime.Config{})
		for _, tc := range []struct{ register, field string }{
			{"orders", "orderDate"}, {"quotes", "quoteDate"}, {"orderlines", "price"}, {"orderlines", "quantity"},
		} {
			t.Run(tc.register+"."+tc.field, func(t *testing.T) {
				is := is.New(t)
				key, ok := env.FirstKey(tc.register, env.Key)
				is.True(ok)
				before := env.Get(KeyPath(tc.register, key))
				Expect(t, before, http.StatusOK)
				resp := env.Do(Request{Method: http.MethodPatch, Path: KeyPath(tc.register, key), Key: env.Key,
					Body: map[string]any{tc.field: ""}, SkipRequestValidation: true}) // the document refuses it too
				is.Equal(resp.Status, http.StatusBadRequest)
				p := resp.Problem(t)
				is.Equal(p.Title, "invalid_field")
				is.True(strings.Contains(p.Detail, `"`+tc.field+`"`))
				is.True(strings.Contains(p.Detail, "cannot be cleared"))
				is.Equal(string(env.Get(KeyPath(tc.register, key)).Body), string(before.Body))
			})
		}
		t.Run("an enum clears to null", func(t *testing.T) {
			is := is.New(t)
			created := env.Post("/v1/tasks", map[string]any{"customerNr": "1031", "taskText": "Clear the plan type", "planStartDate": "2026-05-04", "planDateType": "Week"})
			Expect(t, created, http.StatusCreated)
			path := KeyPath("tasks", fmt.Sprint(created.Object(t)["nr"]))
			is.Equal(env.Get(path).Object(t)["PlanDateType"], "Week")

			// With plan dates the engine infers the type again, as when omitted.
			inferred := env.Patch(path, map[string]any{"planDateType": ""})
			Expect(t, inferred, http.StatusOK)
			is.Equal(inferred.Object(t)["PlanDateType"], "Day")

			// Without them nothing is inferred: the type is null, not "".
			cleared := env.Patch(path, map[string]any{"planStartDate": "", "planDateType": ""})
			Expect(t, cleared, http.StatusOK)
			is.Equal(cleared.Object(t)["PlanStartDate"], nil)
			is.Equal(cleared.Object(t)["PlanDateType"], nil)
			is.Equal(env.Get(path).Object(t)["PlanDateType"], nil)
		})
		t.Run("a status, which is never null, refuses it", func(t *testing.T) {
			is := is.New(t)
			resp := env.Do(Request{Method: http.MethodPost, Path: "/v1/tasks", Key: env.Key,
				Body: map[string]any{"customerNr": "1031", "taskText": "No status", "status": ""}, SkipRequestValidation: true})
			is.Equal(resp.Status, http.StatusBadRequest)
			is.True(strings.Contains(resp.Problem(t).Detail, `"status"`))
		})
	})
}
