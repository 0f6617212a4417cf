package runtime

import "testing"

// TestCreatedLocation: the Location of a 201 is the base (or the request
// path) and the answer's key, escaped as one path segment.
func TestCreatedLocation(t *testing.T) {
	for _, tc := range []struct {
		created Created
		path    string
		body    string
		want    string
	}{
		{Created{Member: "Nr"}, "/v1/customers", `{"Nr": "1061", "Name": "A"}`, "/v1/customers/1061"},
		{Created{Member: "nr"}, "/v1/tasks", `{"nr": "10065", "id": "65"}`, "/v1/tasks/10065"},
		{Created{Member: "Nr"}, "/v1/products", `{"Nr": "A/B 1"}`, "/v1/products/A%2FB%201"},
		{Created{Member: "id"}, "/v1/tasks/10065/documents", `{"id": 5, "nr": "10065"}`, "/v1/tasks/10065/documents/5"},
		{Created{Base: "/v1/orderlines", Member: "id"}, "/v1/orders/30013/lines", `{"id": "76"}`, "/v1/orderlines/76"},
		{Created{Member: "Nr"}, "/v1/customers", `{"Nr": null}`, ""},
		{Created{Member: "Nr"}, "/v1/customers", `not json`, ""},
	} {
		if got := tc.created.location(tc.path, []byte(tc.body)); got != tc.want {
			t.Errorf("%+v on %s with %s: %q, want %q", tc.created, tc.path, tc.body, got, tc.want)
		}
	}
}
