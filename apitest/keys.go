package apitest

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"

	"fieldapi/engine"
	"fieldapi/runtime"
)

func escape(key string) string { return url.PathEscape(key) }

// KeyOnlyIn finds a record key visible with owner but not with other,
// walking the owner's list; the test fails when the demo data has none.
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
	t.Fatalf("demo data: %s has no record that only one company has", register)
	return ""
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
