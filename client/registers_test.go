package client_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/matryer/is"

	"fieldapi/apitest"
	"fieldapi/catalog"
	"fieldapi/client"
	"fieldapi/codegen/model"
	"fieldapi/runtime"
)

// builtinModel is the generator's model of the real catalog: the names the
// client was generated with.
func builtinModel(t testing.TB) *model.Model {
	t.Helper()
	cat, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	m, err := model.New(cat)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// start runs the real server on the backend and a client with its key.
func start(t *testing.T, b apitest.Backend, cfg runtime.Config, opts ...client.Option) (*apitest.Env, *client.Client) {
	env := apitest.Start(t, b, cfg)
	return env, client.New(env.URL, append([]client.Option{client.WithKey(env.Key)}, opts...)...)
}

// service is c.<Plural>, the register's service, found by its generated name.
func service(t testing.TB, c *client.Client, r *model.Register) reflect.Value {
	t.Helper()
	svc := reflect.ValueOf(c).Elem().FieldByName(r.Plural)
	if !svc.IsValid() {
		t.Fatalf("the client has no service %s for register %s", r.Plural, r.Name)
	}
	return svc
}

// invoke calls a method of a service and returns its results and, when
// the method returns one, its error separately.
func invoke(t testing.TB, svc reflect.Value, method string, args ...any) ([]reflect.Value, error) {
	t.Helper()
	m := svc.MethodByName(method)
	if !m.IsValid() {
		t.Fatalf("%s has no method %s", svc.Type(), method)
	}
	in := make([]reflect.Value, len(args))
	for i, a := range args {
		if v, ok := a.(reflect.Value); ok {
			in[i] = v
		} else {
			in[i] = reflect.ValueOf(a)
		}
	}
	out := m.Call(in)
	if last := m.Type().Out(m.Type().NumOut() - 1); last != reflect.TypeFor[error]() {
		return out, nil // All: no error result
	}
	err, _ := out[len(out)-1].Interface().(error)
	return out[:len(out)-1], err
}

// listParams is the register's ListParams with a limit and every switch
// that hides records on, so a walk sees every record.
func listParams(t testing.TB, svc reflect.Value, r *model.Register, limit int) (reflect.Value, string) {
	t.Helper()
	p := reflect.New(svc.MethodByName("List").Type().In(1)).Elem()
	p.FieldByName("Limit").SetInt(int64(limit))
	query := fmt.Sprintf("?limit=%d", limit)
	for _, f := range r.Filters {
		if f.Match == catalog.Hides {
			p.FieldByName(strings.ToUpper(f.Param[:1]) + f.Param[1:]).SetBool(true)
			query += "&" + f.Param + "=true"
		}
	}
	return p, query
}

// sameRecord fails unless the client's record holds what the server sent
// for every catalog field, Modified and ExtraFields (null read as the zero value).
func sameRecord(t testing.TB, r *model.Register, got reflect.Value, want map[string]any) {
	t.Helper()
	names := []string{"Modified"}
	for _, f := range r.Fields {
		names = append(names, f.Name)
	}
	if r.ExtraFields {
		names = append(names, "ExtraFields")
	}
	for _, name := range names {
		field := got.FieldByName(name)
		if want[name] == nil {
			if !field.IsZero() && field.Len() != 0 {
				t.Errorf("%s.%s = %v, the server sent null", r.Name, name, field)
			}
			continue
		}
		data, err := json.Marshal(field.Interface())
		if err != nil {
			t.Fatal(err)
		}
		var round any
		json.Unmarshal(data, &round)
		if !reflect.DeepEqual(round, want[name]) {
			t.Errorf("%s.%s = %s, the server sent %v", r.Name, name, data, want[name])
		}
	}
}

// TestEveryRegister drives every register of the catalog through its
// generated service against the real server: a page of List decodes what
// the server sent, Get reads the same record, All walks every record by
// cursor, and Create and Update, where offered, write what they say. A
// register added by YAML alone is covered without a line of Go.
func TestEveryRegister(t *testing.T) {
	m := builtinModel(t)
	apitest.Each(t, func(t *testing.T, b apitest.Backend) {
		env, c := start(t, b, runtime.Config{})
		ctx := context.Background()
		for _, r := range m.Registers {
			t.Run(r.Name, func(t *testing.T) {
				is := is.New(t)
				svc := service(t, c, r)

				// List: one page, as the server sends it
				params, query := listParams(t, svc, r, 3)
				out, err := invoke(t, svc, "List", ctx, params)
				is.NoErr(err)
				page := out[0]
				raw := env.Get("/v1/" + r.Name + query)
				apitest.Expect(t, raw, http.StatusOK)
				var rawPage struct {
					Items      []map[string]any
					NextCursor *string
					Total      *int
				}
				raw.JSON(t, &rawPage)
				items := page.FieldByName("Items")
				is.Equal(items.Len(), len(rawPage.Items))
				for i := range items.Len() {
					sameRecord(t, r, items.Index(i), rawPage.Items[i])
				}
				is.Equal(page.FieldByName("NextCursor").String() != "", rawPage.NextCursor != nil)

				// Get: the first record again
				if items.Len() > 0 {
					key := items.Index(0).FieldByName(r.Key).String()
					got, err := invoke(t, svc, "Get", ctx, key)
					is.NoErr(err)
					is.Equal(got[0].Interface(), items.Index(0).Interface())
				}

				// All: every record once, across pages of 3
				walk, _ := invoke(t, svc, "All", ctx, params)
				seen := map[string]bool{}
				each(walk[0], func(rec reflect.Value, err error) bool {
					is.NoErr(err)
					key := rec.FieldByName(r.Key).String()
					is.True(!seen[key]) // each record once
					seen[key] = true
					return true
				})
				if total := page.FieldByName("Total"); !total.IsNil() {
					is.Equal(len(seen), int(total.Elem().Int())) // the walk saw the whole total
				}

				key := ""
				if r.Has(catalog.Create) {
					key = createThroughClient(t, env, svc, r)
				} else if items.Len() > 0 {
					key = items.Index(0).FieldByName(r.Key).String()
				}
				if r.Has(catalog.Update) && key != "" {
					updateThroughClient(t, svc, r, key)
				}
			})
		}
	})
}

// each ranges over an iter.Seq2[T, error] held in a reflect.Value.
func each(seq reflect.Value, fn func(rec reflect.Value, err error) bool) {
	yieldType := seq.Type().In(0)
	yield := reflect.MakeFunc(yieldType, func(args []reflect.Value) []reflect.Value {
		err, _ := args[1].Interface().(error)
		return []reflect.Value{reflect.ValueOf(fn(args[0], err))}
	})
	seq.Call([]reflect.Value{yield})
}

// sampleValue is a value of a field's type for a create; a reference takes
// the key of a record of the referenced register.
func sampleValue(t *testing.T, env *apitest.Env, f *catalog.Field) any {
	switch {
	case f.References != "":
		ref, ok := env.FirstKey(f.References, env.Key)
		if !ok {
			t.Skipf("%s needs a record of %s, which has none", f.Name, f.References)
		}
		if f.Type == catalog.List {
			return []string{ref}
		}
		return ref
	case f.Type == catalog.Number:
		return 1
	case f.Type == catalog.Bool:
		return true
	case f.Type == catalog.Date:
		return "2026-01-05"
	case f.Type == catalog.List:
		return []string{"client"}
	case f.Type == catalog.Object:
		return map[string]string{"client": "test"}
	}
	return "client test " + f.Name
}

// createThroughClient creates a record with the fields the catalog says a
// create needs (required, the first of requireOneOf, and those whose
// description calls them required in some case), reads it back with Get
// and returns its key.
func createThroughClient(t *testing.T, env *apitest.Env, svc reflect.Value, r *model.Register) string {
	t.Helper()
	is := is.New(t)
	values := map[string]any{}
	for _, f := range r.Fields {
		oneOf := len(r.RequireOneOf) > 0 && r.RequireOneOf[0] == f.Name
		if f.Required || oneOf || ((f.Writable || f.CreateOnly) && strings.Contains(strings.ToLower(f.Description), "required")) {
			values[f.WriteName] = sampleValue(t, env, f.Field)
		}
	}
	// The typed body is filled from JSON, the way Field reads it back.
	body := reflect.New(svc.MethodByName("Create").Type().In(1))
	data, _ := json.Marshal(values)
	is.NoErr(json.Unmarshal(data, body.Interface()))
	sent, _ := json.Marshal(body.Interface())
	var sentValues map[string]any
	json.Unmarshal(sent, &sentValues)
	json.Unmarshal(data, &values)
	is.Equal(sentValues, values) // the body sends exactly the fields set

	out, err := invoke(t, svc, "Create", context.Background(), body.Elem())
	is.NoErr(err)
	key := out[0].FieldByName(r.Key).String()
	is.True(key != "") // the answer names the new record
	got, err := invoke(t, svc, "Get", context.Background(), key)
	is.NoErr(err)
	for _, f := range r.Fields {
		if s, ok := values[f.WriteName].(string); ok && f.Type == catalog.Text {
			is.Equal(got[0].FieldByName(f.GoName).String(), s) // stored as sent
		}
	}
	return key
}

// updateThroughClient sets, leaves (null and unset) and clears a text field.
func updateThroughClient(t *testing.T, svc reflect.Value, r *model.Register, key string) {
	t.Helper()
	is := is.New(t)
	var target *model.Field
	for _, f := range r.BodyFields() {
		if !f.CreateOnly && !f.Required && f.Type == catalog.Text && f.References == "" && f.Name != r.Key && !slices.Contains(r.RequireOneOf, f.Name) {
			target = f
			break
		}
	}
	if target == nil {
		t.Logf("%s has no optional text field to update", r.Name)
		return
	}
	bodyType := svc.MethodByName("Update").Type().In(2)
	update := func(jsonBody string) reflect.Value {
		t.Helper()
		body := reflect.New(bodyType)
		is.NoErr(json.Unmarshal([]byte(jsonBody), body.Interface()))
		out, err := invoke(t, svc, "Update", context.Background(), key, body.Elem())
		is.NoErr(err)
		return out[0].FieldByName(target.GoName)
	}
	name := target.WriteName
	is.Equal(update(`{"`+name+`": "set by the client"}`).String(), "set by the client") // set
	is.Equal(update(`{"`+name+`": null}`).String(), "set by the client")                // null leaves it
	is.Equal(update(`{}`).String(), "set by the client")                                // unset leaves it
	is.Equal(update(`{"`+name+`": ""}`).String(), "")                                   // "" clears it
}
