package apitest

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"

	"fieldapi/catalog"
	"fieldapi/engine"
	"fieldapi/runtime"
)

func escape(key string) string { return url.PathEscape(key) }

// KeyOnlyIn finds a record key visible with owner but not with other,
// walking the owner's list. A register without such a record in the demo
// data (one just declared in the catalog) gets one created through the
// API; a read-only register without one skips the test, saying why.
func (e *Env) KeyOnlyIn(t testing.TB, register, owner, other string) string {
	t.Helper()
	reg := e.Catalog.Register(register)
	path := "/v1/" + register + "?limit=500"
	for _, f := range reg.Filters {
		if f.Match == "hides" {
			path += "&" + f.Param + "=true"
		}
	}
	resp := e.Do(Request{Method: http.MethodGet, Path: path, Key: owner})
	Expect(t, resp, http.StatusOK)
	var env struct{ Items []map[string]any }
	resp.JSON(t, &env)
	for _, item := range env.Items {
		key := fmt.Sprint(item[reg.Key])
		if e.Do(Request{Method: http.MethodGet, Path: KeyPath(register, key), Key: other}).Status == http.StatusNotFound {
			return key
		}
	}
	if !reg.Has(catalog.Create) {
		t.Skipf("%s has no record that only one company has, and cannot be created through the API: add demo data to test it", register)
	}
	return e.createMinimal(t, reg, owner)
}

// createMinimal creates a record of a register with only its required
// fields, typed from the catalog; a required reference takes a key of the
// referenced register.
func (e *Env) createMinimal(t testing.TB, reg *catalog.Register, key string) string {
	t.Helper()
	var required []*catalog.Field
	for _, f := range reg.Fields {
		if f.Required {
			required = append(required, f)
		}
	}
	resp := e.Do(Request{Method: http.MethodPost, Path: "/v1/" + reg.Name, Key: key, Body: e.bodyOf(t, reg, key, required)})
	Expect(t, resp, http.StatusCreated)
	return fmt.Sprint(resp.Object(t)[reg.Key])
}

// bodyOf is a create body giving each of the fields a value of its type;
// a reference takes a key of the referenced register visible to key.
func (e *Env) bodyOf(t testing.TB, reg *catalog.Register, key string, fields []*catalog.Field) map[string]any {
	t.Helper()
	body := map[string]any{}
	for _, f := range fields {
		switch {
		case f.References != "":
			ref, ok := e.firstKeyWith(t, f.References, key)
			if !ok {
				t.Skipf("%s.%s needs a record of %s, which has none", reg.Name, f.Name, f.References)
			}
			body[f.WriteName] = ref
		case f.Type == catalog.Number:
			body[f.WriteName] = 1
		case f.Type == catalog.Bool:
			body[f.WriteName] = true
		case f.Type == catalog.Date:
			body[f.WriteName] = "2026-01-01"
		case f.Type == catalog.List:
			body[f.WriteName] = []string{"x"}
		default:
			body[f.WriteName] = "x"
		}
	}
	return body
}

// firstKeyWith is FirstKey with a key of the caller's choosing.
func (e *Env) firstKeyWith(t testing.TB, register, key string) (string, bool) {
	t.Helper()
	resp := e.Do(Request{Method: http.MethodGet, Path: "/v1/" + register + "?limit=1", Key: key})
	Expect(t, resp, http.StatusOK)
	var env struct{ Items []map[string]any }
	resp.JSON(t, &env)
	if len(env.Items) == 0 {
		return "", false
	}
	return fmt.Sprint(env.Items[0][e.Catalog.Register(register).Key]), true
}

// NewKeyFrom creates a key usable only from the given CIDR ranges.
func (e *Env) NewKeyFrom(company, sign string, allowed []string, scopes ...string) string {
	e.T.Helper()
	clientID := company + "-" + randomHex(4)
	key, hash, err := runtime.NewKey(clientID)
	if err != nil {
		e.T.Fatal(err)
	}
	err = e.Engine.Keys().CreateKey(context.Background(), engine.Key{
		ClientID: clientID, Company: company, Sign: sign, Scopes: scopes, AllowedIPs: allowed, SecretHash: hash, Created: time.Now(),
	})
	if err != nil {
		e.T.Fatal(err)
	}
	return key
}

// limitedSignKey is a key with every scope for a demo user whose engine
// permissions only allow reading customers.
func (e *Env) limitedSignKey(t testing.TB) string {
	t.Helper()
	resp := e.Get("/v1/users?limit=500")
	Expect(t, resp, http.StatusOK)
	var users struct{ Items []map[string]any }
	resp.JSON(t, &users)
	for _, u := range users.Items {
		if sign := fmt.Sprint(u["Sign"]); sign != "API" {
			key := e.NewKey("demo", sign, "*")
			if e.Do(Request{Method: http.MethodGet, Path: "/v1/customers", Key: key}).Status == http.StatusOK &&
				e.Do(Request{Method: http.MethodGet, Path: "/v1/products", Key: key}).Status == http.StatusForbidden {
				return key
			}
		}
	}
	t.Fatal("demo data has no user limited to reading customers")
	return ""
}
