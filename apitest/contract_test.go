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
	post.Header.Set("Content-Type", "application/json")
	post.Header.Set("Idempotency-Key", "k")
	post.Header.Set("Authorization", "Bearer x")
	get.Header.Set("Authorization", "Bearer x")
	jsonHeader := func(extra ...string) http.Header {
		h := http.Header{"Content-Type": {"application/json"}, "X-Request-Id": {"r1"}}
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
		{"field missing", get, "", 200, jsonHeader(), strings.Replace(customer, `"Name":"A",`, ``, 1), "getCustomer"},
		{"undeclared status", get, "", http.StatusTeapot, jsonHeader(), `{}`, "getCustomer"},
		{"no request id", get, "", 200, http.Header{"Content-Type": {"application/json"}}, customer, "X-Request-Id"},
		{"conforming create", post, `{"name": "A"}`, 201, jsonHeader("Location", "/v1/customers/1"), customer, ""},
		{"201 without Location", post, `{"name": "A"}`, 201, jsonHeader(), customer, "Location"},
		{"request off the document", post, `{"colour": "red"}`, 201, jsonHeader("Location", "/v1/customers/1"), customer, "createCustomer"},
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

// routerPath turns an OpenAPI path into the server's: {Nr} → :key, {id} → :id.
func routerPath(path string) string {
	parts := strings.Split(path, "/")
	for i, p := range parts {
		if strings.HasPrefix(p, "{") {
			if p == "{id}" {
				parts[i] = ":id"
			} else {
				parts[i] = ":key"
			}
		}
	}
	return strings.Join(parts, "/")
}
