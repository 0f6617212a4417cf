package apitest

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/matryer/is"

	"fieldapi/runtime"
)

// TestContractCatchesMismatches proves the harness's validation is not
// vacuous: answers the document does not allow are reported, with the
// operation named, and a conforming one is not.
func TestContractCatchesMismatches(t *testing.T) {
	c := Contract(t)
	get := httptest.NewRequest(http.MethodGet, "http://127.0.0.1/v1/customers/1001", nil)
	post := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/v1/customers", strings.NewReader(`{"name": "A"}`))
	post.Header.Set(runtime.HeaderContentType, "application/json")
	post.Header.Set(runtime.HeaderIdempotencyKey, "k")
	post.Header.Set(runtime.HeaderAuthorization, "Bearer x")
	get.Header.Set(runtime.HeaderAuthorization, "Bearer x")
	narrowed := httptest.NewRequest(http.MethodGet, "http://127.0.0.1/v1/customers/1001?fields=Nr,Status", nil)
	narrowed.Header.Set(runtime.HeaderAuthorization, "Bearer x")
	jsonHeader := func(extra ...string) http.Header {
		h := http.Header{runtime.HeaderContentType: {"application/json"}, runtime.HeaderRequestID: {"r1"}}
		for i := 0; i+1 < len(extra); i += 2 {
			h.Set(extra[i], extra[i+1])
		}
		return h
	}
	customer := `{"Nr":"1","Status":"Active","Name":"A","Category":null,"AddressLine1":null,"AddressLine2":null,"PostalCode":null,"City":null,"State":null,"Country":null,"Phone":null,"Fax":null,"Email":null,"Custom1":null,"Custom2":null,"Custom3":null,"Custom4":null,"Note":null,"Modified":"2026-05-01T08:00:00Z","ExtraFields":{}}`
	for _, tc := range []struct {
		name     string
		req      *http.Request
		body     string
		status   int
		header   http.Header
		resp     string
		mismatch string // "" when the exchange conforms
	}{
		{"conforming read", get, "", 200, jsonHeader(), customer, ""},
		{"key null", get, "", 200, jsonHeader(), strings.Replace(customer, `"Nr":"1"`, `"Nr":null`, 1), "getCustomer"},
		// fields= may leave out any field but the key (the record schemas
		// require only it); an answer it did not narrow carries them all.
		{"key missing", get, "", 200, jsonHeader(), strings.Replace(customer, `"Nr":"1",`, ``, 1), "getCustomer"},
		{"field missing", get, "", 200, jsonHeader(), strings.Replace(customer, `"Name":"A",`, ``, 1), "getCustomer"},
		{"fields left out by fields=", narrowed, "", 200, jsonHeader(), `{"Nr":"1","Status":"Active"}`, ""},
		{"field of the wrong type", get, "", 200, jsonHeader(), strings.Replace(customer, `"Name":"A"`, `"Name":1`, 1), "getCustomer"},
		{"undeclared status", get, "", http.StatusTeapot, jsonHeader(), `{}`, "getCustomer"},
		{"no request id", get, "", 200, http.Header{runtime.HeaderContentType: {"application/json"}}, customer, runtime.HeaderRequestID},
		{"conforming create", post, `{"name": "A"}`, 201, jsonHeader(runtime.HeaderLocation, "/v1/customers/1"), customer, ""},
		{"201 without Location", post, `{"name": "A"}`, 201, jsonHeader(), customer, runtime.HeaderLocation},
		{"request off the document", post, `{"colour": "red"}`, 201, jsonHeader(runtime.HeaderLocation, "/v1/customers/1"), customer, "createCustomer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := c.check(tc.req, []byte(tc.body), false, tc.status, tc.header, []byte(tc.resp))
			switch {
			case tc.mismatch == "" && err != nil:
				t.Fatalf("conforming exchange reported: %v", err)
			case tc.mismatch != "" && err == nil:
				t.Fatal("mismatch not reported")
			case tc.mismatch != "" && !strings.Contains(err.Error(), tc.mismatch):
				t.Fatalf("report %q does not name %s", err, tc.mismatch)
			}
		})
	}
}

// TestDocumentMatchesServedRoutes: every route the server serves is in the
// document it serves, and the document has no operation the server does
// not serve.
func TestDocumentMatchesServedRoutes(t *testing.T) {
	is := is.New(t)
	env := Start(t, Backends(t)[0], runtime.Config{})
	doc := Contract(t).doc
	var documented []string
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			documented = append(documented, method+" "+routerPath(path))
		}
	}
	var served []string
	for _, r := range env.Server.Routes() {
		served = append(served, r.Method+" "+r.Path)
	}
	slices.Sort(documented)
	slices.Sort(served)
	is.Equal(documented, served)
}

// routerPath turns an OpenAPI path into the server's: the first parameter
// is the record key ({Nr} → :key), later ones keep their names ({id} → :id).
func routerPath(path string) string {
	parts := strings.Split(path, "/")
	first := true
	for i, p := range parts {
		if strings.HasPrefix(p, "{") {
			if first {
				parts[i] = ":key"
			} else {
				parts[i] = ":" + strings.Trim(p, "{}")
			}
			first = false
		}
	}
	return strings.Join(parts, "/")
}

// TestLocationNamesTheCreatedResource: every kind of 201 (a create, a
// create answered with a summary, a line post, an upload) carries a
// Location that reads the resource back, and a replay carries it too.
func TestLocationNamesTheCreatedResource(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		env := Start(t, b, runtime.Config{})
		follow := func(t *testing.T, resp Response) {
			t.Helper()
			Expect(t, resp, http.StatusCreated)
			loc := resp.Header.Get(runtime.HeaderLocation)
			if !strings.HasPrefix(loc, "/v1/") {
				t.Fatalf("Location %q", loc)
			}
			Expect(t, env.Get(loc), http.StatusOK)
		}
		customer := Request{Method: http.MethodPost, Path: "/v1/customers", Key: env.Key,
			Body: map[string]any{"name": "Location AB"}, Headers: map[string]string{runtime.HeaderIdempotencyKey: "location-1"}}
		first := env.Do(customer)
		follow(t, first)
		replay := env.Do(customer)
		is.New(t).Equal(replay.Header.Get(runtime.HeaderIdempotencyReplayed), "true")
		is.New(t).Equal(replay.Header.Get(runtime.HeaderLocation), first.Header.Get(runtime.HeaderLocation))

		task := env.Post("/v1/tasks", map[string]any{"customerNr": "1031", "taskText": "Location"})
		follow(t, task) // answered with a summary: {"nr", ...}
		nr := task.Object(t)["nr"].(string)
		follow(t, env.Post(KeyPath("tasks", nr, "/materials"), map[string]any{"productNr": "4025", "quantity": 1}))
		follow(t, env.Post(KeyPath("tasks", nr, "/documents"), map[string]any{"name": "a.txt", "contentBase64": "YQ=="}))
		order, _ := env.FirstKey("orders", env.Key)
		follow(t, env.Post(KeyPath("orders", order, "/lines"), map[string]any{"productNr": "4028", "quantity": 1})) // answered with {"id", ...}
	})
}
