package apitest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"fieldapi/runtime"
)

// FuzzRequest drives whole HTTP requests through the router, the pipeline
// (auth, text checks, idempotency, decoding) and the real engine on SQLite:
// any method, target, credential, Idempotency-Key and body. Whatever comes
// in, the answer is never a 5xx, and an error is a problem+json carrying
// the request id. Requests net/http itself refuses before any handler runs
// (an unparsable target, control characters in a header) are skipped.
func FuzzRequest(f *testing.F) {
	env := Start(f, Backends(f)[0], runtime.Config{})
	for _, seed := range []struct{ method, target, auth, idem, body string }{
		{"GET", "/v1/customers?limit=2&name=a", "", "", ""},
		{"GET", "/v1/customers/%FF%FE", "", "", ""},
		{"GET", "/v1/tasks/10%0064/location?locate=true", "", "", ""},
		{"GET", "/v1/orderlines?orderNr=30013&includeZeroQuantity=x", "bearer ", "", ""},
		{"POST", "/v1/customers", "", "k1", `{"name": "Fuzz AB", "contacts": [{"name": "Kari"}]}`},
		{"PATCH", "/v1/orderlines/1", "", "k2", `{"price": 1e308, "quantity": 10}`},
		{"POST", "/v1/orders", "", "k3", `{"customerNr": "1001", "lines": [{"productNr": "4001", "quantity": 2, "price": 1.7e308}]}`},
		{"POST", "/v1/tasks/10001/status", "", "k4", `{"status": "Sent"}`},
		{"PUT", "/v1/customers/1001/location", "", "k5", `{"latitude": 91, "longitude": 1e400}`},
		{"POST", "/v1/token", "none", "", "{\"clientId\": \"\xff\", \"clientSecret\": \"x\"}"},
		{"PATCH", "/v1/customers/1001", "", "\xff", "{\"name\": \"a\\u0000b\", \"city\": \"\xc0\xaf\"}"},
		{"DELETE", "/v1/customers/1001", "", "", ""},
	} {
		f.Add(seed.method, seed.target, seed.auth, seed.idem, seed.body)
	}
	f.Fuzz(func(t *testing.T, method, target, auth, idem, body string) {
		if !validMethod(method) || !validHeaderValue(auth) || !validHeaderValue(idem) {
			t.Skip("net/http refuses this request itself")
		}
		u, err := url.ParseRequestURI(target)
		if err != nil || !strings.HasPrefix(target, "/") {
			t.Skip("net/http refuses this target itself")
		}
		req := &http.Request{
			Method: method, URL: u, RequestURI: target, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
			Header: http.Header{runtime.HeaderContentType: {"application/json"}}, Host: "fuzz",
			Body: io.NopCloser(strings.NewReader(body)), ContentLength: int64(len(body)), RemoteAddr: "192.0.2.1:1234",
		}
		switch auth {
		case "": // most inputs: a valid key, so they reach the handlers and the engine
			req.Header.Set(runtime.HeaderAuthorization, "Bearer "+env.Key)
		case "none":
		case "bearer ":
			req.Header.Set(runtime.HeaderAuthorization, "bearer "+env.Key)
		default:
			req.Header.Set(runtime.HeaderAuthorization, auth)
		}
		if idem != "" {
			req.Header.Set(runtime.HeaderIdempotencyKey, idem)
		}
		rec := httptest.NewRecorder()
		env.Server.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("%s %q: %d %s", method, target, rec.Code, rec.Body)
		}
		if rec.Code >= 400 {
			var p runtime.Problem
			err := json.Unmarshal(rec.Body.Bytes(), &p)
			// A replayed problem too carries this call's request id.
			if rec.Header().Get(runtime.HeaderContentType) != "application/problem+json" || err != nil ||
				p.Status != rec.Code || p.RequestID == "" || p.RequestID != rec.Header().Get(runtime.HeaderRequestID) {
				t.Fatalf("%s %q: %d is not a problem with the request id: %s", method, target, rec.Code, rec.Body)
			}
		}
	})
}

// validMethod is a method net/http would pass on: an RFC 9110 token.
func validMethod(m string) bool {
	if m == "" {
		return false
	}
	for _, r := range m {
		if r > 0x7e || r <= ' ' || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, r) {
			return false
		}
	}
	return true
}

// validHeaderValue is a header value net/http would pass on: no control
// characters but tab.
func validHeaderValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if b := v[i]; b < ' ' && b != '\t' || b == 0x7f {
			return false
		}
	}
	return true
}
