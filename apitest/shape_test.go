package apitest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/matryer/is"

	"fieldapi/runtime"
)

// members are the member names of a JSON object, in the order sent.
func members(t testing.TB, body []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(body))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not an object: %s", body)
	}
	var names []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return names
}

// items are the raw items of a list answer.
func items(t testing.TB, r Response) []json.RawMessage {
	t.Helper()
	var p struct{ Items []json.RawMessage }
	r.JSON(t, &p)
	return p.Items
}

// TestFieldsNarrowsTheAnswer: fields= answers with the fields named (as
// read or in camelCase), the key first among them always, in the order of
// the read shape; the values are those of the whole record; a read without
// fields= is the whole record, byte for byte.
func TestFieldsNarrowsTheAnswer(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		is := is.New(t)
		env := Start(t, b, runtime.Config{})
		whole := env.Get("/v1/tasks?limit=5")
		Expect(t, whole, http.StatusOK)
		full := items(t, whole)
		is.True(len(full) == 5)

		narrow := env.SkipRequestValidation().Get("/v1/tasks?limit=5&fields=" + url.QueryEscape("status,CustomerNr,Materials,ExtraFields"))
		Expect(t, narrow, http.StatusOK)
		got := items(t, narrow)
		is.Equal(len(got), len(full))
		for i := range got {
			is.Equal(members(t, got[i]), []string{"Nr", "Status", "CustomerNr", "Materials", "ExtraFields"})
			var whole, part map[string]any
			is.NoErr(json.Unmarshal(full[i], &whole))
			is.NoErr(json.Unmarshal(got[i], &part))
			for name, v := range part {
				is.Equal(v, whole[name]) // as the whole record reads it
			}
		}
		// The envelope is every list's; the page walks on with the same fields.
		var p page
		narrow.JSON(t, &p)
		is.True(p.NextCursor != nil)
		is.True(p.Total != nil)
		next := env.Get("/v1/tasks?limit=5&fields=Status&cursor=" + url.QueryEscape(*p.NextCursor))
		Expect(t, next, http.StatusOK)
		for _, item := range items(t, next) {
			is.Equal(members(t, item), []string{"Nr", "Status"})
		}

		nr := p.Items[0]["Nr"].(string)
		one := env.Get(KeyPath("tasks", nr) + "?fields=PlanStartDate,Nr")
		Expect(t, one, http.StatusOK)
		is.Equal(members(t, one.Body), []string{"Nr", "PlanStartDate"})
		etag := one.Header.Get("ETag")
		is.True(strings.HasPrefix(etag, `W/"`)) // a shaped answer's tag is weak: no write takes it
		again := env.Do(Request{Method: http.MethodGet, Path: KeyPath("tasks", nr) + "?fields=PlanStartDate,Nr", Key: env.Key, Headers: map[string]string{"If-None-Match": etag}})
		is.Equal(again.Status, http.StatusNotModified)

		plain := env.Get(KeyPath("tasks", nr))
		Expect(t, plain, http.StatusOK)
		is.True(!strings.HasPrefix(plain.Header.Get("ETag"), "W/"))
		is.True(bytes.Equal(plain.Body, full[slices.IndexFunc(full, func(raw json.RawMessage) bool { return bytes.Contains(raw, []byte(`"Nr":"`+nr+`"`)) })]))
	})
}

// TestExpandReadsRelatedRecords: expand= answers each record with the
// records it names, each as its own GET reads it (fields= narrows them by
// Expansion.Field), null where the reference names none, and a line list
// the read shape leaves out.
func TestExpandReadsRelatedRecords(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		is := is.New(t)
		env := Start(t, b, runtime.Config{})
		list := env.Get("/v1/tasks?limit=20&expand=Customer,Project")
		Expect(t, list, http.StatusOK)
		nulls := 0
		for _, raw := range items(t, list) {
			var task map[string]any
			is.NoErr(json.Unmarshal(raw, &task))
			var parts map[string]json.RawMessage
			is.NoErr(json.Unmarshal(raw, &parts))
			own := env.Get(KeyPath("customers", task["CustomerNr"].(string)))
			Expect(t, own, http.StatusOK)
			is.Equal(string(parts["Customer"]), string(own.Body)) // as GET /v1/customers/{Nr} reads it
			if task["ProjectNr"] == nil {
				is.Equal(string(parts["Project"]), "null")
				nulls++
			} else {
				own := env.Get(KeyPath("projects", task["ProjectNr"].(string)))
				is.Equal(string(parts["Project"]), string(own.Body))
			}
			names := members(t, raw)
			is.Equal(names[len(names)-2:], []string{"Customer", "Project"})
		}

		narrow := env.SkipRequestValidation().Get("/v1/tasks?limit=3&expand=customer&fields=" + url.QueryEscape("Status,Customer.name,Customer.City"))
		Expect(t, narrow, http.StatusOK)
		for _, raw := range items(t, narrow) {
			is.Equal(members(t, raw), []string{"Nr", "Status", "Customer"})
			var parts map[string]json.RawMessage
			is.NoErr(json.Unmarshal(raw, &parts))
			is.Equal(members(t, parts["Customer"]), []string{"Nr", "Name", "City"})
		}

		customers := env.Get("/v1/customers?limit=10&expand=Contacts")
		Expect(t, customers, http.StatusOK)
		for _, raw := range items(t, customers) {
			var c struct {
				Nr       string
				Contacts []map[string]any
			}
			is.NoErr(json.Unmarshal(raw, &c))
			own := env.page(t, "/v1/contacts?limit=500&customerNr="+url.QueryEscape(c.Nr))
			is.Equal(len(c.Contacts), len(own.Items))
			for _, contact := range c.Contacts {
				is.Equal(contact["CustomerNr"], c.Nr)
			}
		}

		one := env.Get("/v1/customers/" + url.PathEscape(firstKey(t, env, "customers")) + "?expand=Contacts&fields=Name,Contacts.Name")
		Expect(t, one, http.StatusOK)
		is.Equal(members(t, one.Body), []string{"Nr", "Name", "Contacts"})
	})
}

func firstKey(t testing.TB, env *Env, register string) string {
	t.Helper()
	p := env.page(t, "/v1/"+register+"?limit=1")
	if len(p.Items) == 0 {
		t.Fatalf("no %s", register)
	}
	return p.Items[0][env.Catalog.Register(register).Key].(string)
}

// TestExpandNeedsTheReadScope: a key without the expanded register's read
// scope cannot expand it (403 insufficient_scope naming the scope); the
// same key reads the record itself.
func TestExpandNeedsTheReadScope(t *testing.T) {
	b := Backends(t)[0]
	is := is.New(t)
	env := Start(t, b, runtime.Config{})
	key := env.NewKey("demo", "API", "tasks:read")
	resp := env.Do(Request{Method: http.MethodGet, Path: "/v1/tasks?limit=2&expand=Customer", Key: key})
	Expect(t, resp, http.StatusForbidden)
	is.True(strings.Contains(resp.Problem(t).Detail, "customers:read"))
	resp = env.Do(Request{Method: http.MethodGet, Path: "/v1/tasks?limit=2&fields=Status", Key: key})
	Expect(t, resp, http.StatusOK)
}

// TestShapeBadInput: every malformed fields= or expand= is 400
// invalid_parameter naming the parameter and what is wrong with it; an
// unknown name lists the valid ones (a line list's lines' fields among
// them), as does a name inside a field that is neither a line list nor an
// expansion.
func TestShapeBadInput(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		env := Start(t, b, runtime.Config{}).SkipRequestValidation()
		nr := firstKey(t, env, "tasks")
		cases := []struct {
			query, param, detail string
			valid                []string
		}{
			{"fields=Nr,Bogus", "fields", `"Bogus" is not a field`, []string{"Nr", "Status", "Materials", "Modified", "ExtraFields"}},
			{"fields=", "fields", "without empty items", nil},
			{"fields=Nr,,Status", "fields", "without empty items", nil},
			{"fields=Status,status", "fields", "Status is named twice", nil},
			{"fields=Customer.Name", "fields", "add it to expand", nil},
			{"fields=Customer.Bogus&expand=Customer", "fields", `"Customer.Bogus" is not a field`, []string{"Nr", "Customer.Name"}},
			{"fields=Customer.Contacts.Name&expand=Customer", "fields", "one level deep", nil},
			{"fields=Materials.Bogus", "fields", `"Materials.Bogus" is not a field`, []string{"Nr", "Materials", "Materials.Id", "Materials.ProductNr", "Times.Hours"}},
			{"fields=materials.productNr,Materials.ProductNr", "fields", "Materials.ProductNr is named twice", nil},
			{"fields=Materials,Materials.ProductNr", "fields", "named both alone (its lines whole) and by its lines' fields", nil},
			{"fields=Materials.ProductNr,Materials", "fields", "named both alone (its lines whole) and by its lines' fields", nil},
			{"fields=Materials.Product.Name", "fields", "one level deep", nil},
			{"fields=Status.Name", "fields", "Status is neither a line list nor an expansion", []string{"Status", "Materials.ProductNr"}},
			{"fields=CustomerNr.Name&expand=Customer", "fields", "CustomerNr is neither a line list nor an expansion", []string{"Customer.Name", "Materials.Quantity"}},
			{"fields=Bogus.Name", "fields", `"Bogus.Name" is not a field`, []string{"Materials.Quantity"}},
			{"fields=Nr&fields=Status", "fields", "given more than once", nil},
			{"fields=" + url.QueryEscape("Nr'; DROP TABLE tasks;--"), "fields", "is not a field", nil},
			{"fields=%C3%28", "fields", "valid UTF-8", nil},
			{"expand=Bogus", "expand", `"Bogus" is not an expansion`, []string{"Customer", "Project"}},
			{"expand=Customer,Customer", "expand", "named twice", nil},
			{"expand=Customer.Contacts", "expand", "one level deep", nil},
			{"expand=", "expand", "without empty items", nil},
			{"expand=Materials", "expand", "is not an expansion", nil},
			{"expand=" + url.QueryEscape("Customer\x00"), "expand", "NUL", nil},
		}
		for _, path := range []string{"/v1/tasks?", KeyPath("tasks", nr) + "?"} {
			for _, tc := range cases {
				resp := env.Get(path + tc.query)
				Expect(t, resp, http.StatusBadRequest)
				p := resp.Problem(t)
				if !strings.Contains(p.Detail, `parameter "`+tc.param+`"`) || !strings.Contains(p.Detail, tc.detail) {
					t.Errorf("%s%s: detail %q; want it to name %s and say %q", path, tc.query, p.Detail, tc.param, tc.detail)
				}
				for _, v := range tc.valid {
					if !slices.Contains(p.ValidValues, v) {
						t.Errorf("%s%s: validValues %v lack %s", path, tc.query, p.ValidValues, v)
					}
				}
			}
		}
		// A register without expansions takes none.
		resp := env.Get("/v1/timetypes?expand=Customer")
		Expect(t, resp, http.StatusBadRequest)
		if p := resp.Problem(t); !strings.Contains(p.Detail, "not an expansion") {
			t.Errorf("expand on timetypes: %+v", p)
		}
	})
}

// TestEveryFieldNamedIsTheWholeRecord: for every register, a list whose
// fields= names every field of the read shape answers byte for byte as
// the list without fields= does: each field read from its columns alone
// (lookups, computed and engine-kept ones included) is the field as read.
func TestEveryFieldNamedIsTheWholeRecord(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		env := Start(t, b, runtime.Config{})
		for _, reg := range env.Catalog.Registers {
			var names []string
			for _, f := range reg.Fields {
				names = append(names, f.Name)
			}
			for _, l := range reg.Lines {
				if l.Read {
					names = append(names, l.ReadName)
				}
			}
			names = append(names, "Modified")
			if reg.ExtraFields {
				names = append(names, "ExtraFields")
			}
			whole := env.Get("/v1/" + reg.Name + "?limit=20")
			Expect(t, whole, http.StatusOK)
			named := env.Get("/v1/" + reg.Name + "?limit=20&fields=" + url.QueryEscape(strings.Join(names, ",")))
			Expect(t, named, http.StatusOK)
			if !bytes.Equal(whole.Body, named.Body) {
				t.Errorf("%s: every field named answers\n%s\nwant\n%s", reg.Name, named.Body, whole.Body)
			}
		}
	})
}
