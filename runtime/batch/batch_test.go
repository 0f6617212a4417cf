package batch

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestDecodeNamesTheMember(t *testing.T) {
	cases := []struct {
		body  string
		kind  FieldKind
		field string
	}{
		{`nope`, Malformed, ""},
		{`{"operations":[],"operations":[]}`, Malformed, "operations"},
		{`{"atomic":1,"operations":[]}`, Invalid, "atomic"},
		{`{}`, Missing, "operations"},
		{`{"operations":[{"id":"a","method":"POST","path":"/v1/x","body":"{}"}]}`, Invalid, "operations[0].body"},
		{`{"operations":[{"id":"a","method":"post","path":"/v1/x"}]}`, Invalid, "operations[0].method"},
		{`{"operations":[{"id":"a","method":"POST","path":"/v1/x?y=1"}]}`, Invalid, "operations[0].path"},
		{`{"operations":[{"id":"a","method":"POST","path":"/v1/batch/"}]}`, Invalid, "operations[0].path"},
		{`{"operations":[{"id":"a","method":"POST","path":"/v1/x","extra":1}]}`, Unknown, "operations[0].extra"},
	}
	for _, tc := range cases {
		_, err := Decode([]byte(tc.body))
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Kind != tc.kind || fe.Field != tc.field {
			t.Errorf("%s: %v; want kind %d on %q", tc.body, err, tc.kind, tc.field)
		}
	}
	req, err := Decode([]byte(`{"atomic":true,"operations":[{"id":"c1","method":"PATCH","path":"/v1/x/1","ifMatch":"\"v\"","body":{"a":1}}]}`))
	if err != nil || !req.Atomic || len(req.Operations) != 1 || req.Operations[0].IfMatch != `"v"` || string(req.Operations[0].Body) != `{"a":1}` {
		t.Errorf("Decode = %+v, %v", req, err)
	}
}

func TestResolve(t *testing.T) {
	ops := []Operation{
		{ID: "c1", Path: "/v1/customers"},
		{ID: "bad", Path: "/v1/customers"},
		{ID: "t1", Path: "/v1/tasks/@{c1.Nr}/x", Body: json.RawMessage(`{"a":"for @{c1.Name}","n":1.50,"list":["@{c1.lines.1.id}"],"flag":"@{c1.ok}"}`)},
	}
	o := NewOutcomes(ops)
	o.Add("c1", Outcome{Status: 201, Body: json.RawMessage(`{"Nr":"a/b","Name":"Fjord AS","lines":[{"id":1},{"id":22}],"ok":true}`)})
	o.Add("bad", Outcome{Status: 422})
	path, body, err := o.Resolve(ops[2])
	if err != nil {
		t.Fatal(err)
	}
	if path != "/v1/tasks/a%2Fb/x" {
		t.Errorf("path %s", path)
	}
	if string(body) != `{"a":"for Fjord AS","flag":"true","list":["22"],"n":1.50}` {
		t.Errorf("body %s", body)
	}
	for _, tc := range []struct{ ref, want string }{
		{"@{t1.Nr}", "refers to itself"},
		{"@{zz.Nr}", "no operation"},
		{"@{bad.Nr}", "failed"},
		{"@{c1.Missing}", "no member"},
		{"@{c1.lines.5.id}", "no item"},
		{"@{c1.lines}", "not a text"},
	} {
		_, _, err := o.Resolve(Operation{ID: "t1", Path: "/v1/x", Body: json.RawMessage(`{"field":"` + tc.ref + `"}`)})
		var re *RefError
		if !errors.As(err, &re) || re.Field != "field" || !strings.Contains(re.Detail, tc.want) {
			t.Errorf("%s: %v; want a RefError on field saying %q", tc.ref, err, tc.want)
		}
	}
	later := NewOutcomes(ops)
	if _, _, err := later.Resolve(ops[2]); err == nil || !strings.Contains(err.Error(), "comes later") {
		t.Errorf("a reference to an operation not run yet: %v", err)
	}
}
