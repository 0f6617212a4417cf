package apitest

import (
	"net/http"
	"strings"
	"testing"

	"github.com/matryer/is"

	"fieldapi/runtime"
)

func clientIDOf(key string) string {
	rest := strings.TrimPrefix(key, runtime.KeyPrefix)
	return rest[:strings.LastIndexByte(rest, '_')]
}

func TestTokens(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		env := Start(t, b, runtime.Config{RequireTokens: true})
		t.Run("key as Bearer is token_required", func(t *testing.T) {
			is := is.New(t)
			resp := env.Get("/v1/customers")
			is.Equal(resp.Status, http.StatusUnauthorized)
			is.Equal(resp.Problem(t).Title, "token_required")
		})
		t.Run("token works and whoami tells who", func(t *testing.T) {
			is := is.New(t)
			resp := env.Do(Request{Method: "POST", Path: "/v1/token", Body: map[string]string{"clientId": clientIDOf(env.Key), "clientSecret": env.Key}})
			Expect(t, resp, http.StatusOK)
			var tok struct {
				AccessToken string `json:"access_token"`
				TokenType   string `json:"token_type"`
				ExpiresIn   int    `json:"expires_in"`
				Scope       string `json:"scope"`
			}
			resp.JSON(t, &tok)
			is.True(strings.HasPrefix(tok.AccessToken, runtime.TokenPrefix))
			is.Equal(tok.TokenType, "Bearer")
			is.Equal(tok.ExpiresIn, 3600)
			is.True(strings.Contains(tok.Scope, "customers:read"))

			who := env.Do(Request{Method: "GET", Path: "/v1/whoami", Key: tok.AccessToken})
			Expect(t, who, http.StatusOK)
			w := who.Object(t)
			is.Equal(w["integration"], clientIDOf(env.Key))
			is.Equal(w["tenant"], "demo")
			Expect(t, env.Do(Request{Method: "GET", Path: "/v1/customers", Key: tok.AccessToken}), http.StatusOK)
		})
		t.Run("wrong secret is 401", func(t *testing.T) {
			is := is.New(t)
			resp := env.Do(Request{Method: "POST", Path: "/v1/token", Body: map[string]string{"clientId": clientIDOf(env.Key), "clientSecret": "mk_wrong_0000"}})
			is.Equal(resp.Status, http.StatusUnauthorized)
			is.Equal(resp.Problem(t).Title, "unauthorized")
		})
		t.Run("forged token is 401", func(t *testing.T) {
			is := is.New(t)
			resp := env.Do(Request{Method: "GET", Path: "/v1/whoami", Key: "mt_0011223344556677_deadbeef"})
			is.Equal(resp.Status, http.StatusUnauthorized)
		})
	})
}

func TestScopesAndAddresses(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		env := Start(t, b, runtime.Config{})
		t.Run("read scope does not write", func(t *testing.T) {
			is := is.New(t)
			reader := env.NewKey("demo", "API", "customers:read")
			Expect(t, env.Do(Request{Method: "GET", Path: "/v1/customers", Key: reader}), http.StatusOK)
			resp := env.Do(Request{Method: "POST", Path: "/v1/customers", Key: reader, Body: map[string]any{"name": "X"}})
			is.Equal(resp.Status, http.StatusForbidden)
			is.Equal(resp.Problem(t).Title, "insufficient_scope")
		})
		t.Run("a wide scope never grants more than the signature may", func(t *testing.T) {
			is := is.New(t)
			limited := env.limitedSignKey(t)
			resp := env.Do(Request{Method: "POST", Path: "/v1/customers", Key: limited, Body: map[string]any{"name": "X"}})
			is.Equal(resp.Status, http.StatusForbidden)
			is.Equal(resp.Problem(t).Title, "permission_denied")
		})
		t.Run("a key bound to other addresses is refused", func(t *testing.T) {
			is := is.New(t)
			key := env.NewKeyFrom("demo", "API", []string{"10.20.30.0/24"}, "*")
			resp := env.Do(Request{Method: "GET", Path: "/v1/customers", Key: key})
			is.Equal(resp.Status, http.StatusForbidden)
			is.Equal(resp.Problem(t).Title, "ip_not_allowed")
			local := env.NewKeyFrom("demo", "API", []string{"127.0.0.0/8", "::1/128"}, "*")
			Expect(t, env.Do(Request{Method: "GET", Path: "/v1/customers", Key: local}), http.StatusOK)
		})
		t.Run("read-only registers answer writes with 405", func(t *testing.T) {
			is := is.New(t)
			for _, reg := range []string{"users", "timetypes", "pricelists"} {
				resp := env.Post("/v1/"+reg, map[string]any{})
				is.Equal(resp.Status, http.StatusMethodNotAllowed)
				is.Equal(resp.Problem(t).Title, "method_not_allowed")
				is.Equal(resp.Header.Get(runtime.HeaderAllow), "GET, HEAD")
			}
		})
	})
}

// TestTokenEndpointIsRateLimited: wrong secrets cannot be tried at speed.
func TestTokenEndpointIsRateLimited(t *testing.T) {
	is := is.New(t)
	env := Start(t, Backends(t)[0], runtime.Config{RateLimit: 1, RateBurst: 3})
	var last Response
	for range 5 {
		last = env.Do(Request{Method: "POST", Path: "/v1/token", Body: map[string]string{"clientId": clientIDOf(env.Key), "clientSecret": "guess"}})
	}
	is.Equal(last.Status, http.StatusTooManyRequests)
	is.Equal(last.Problem(t).Title, "rate_limited")
}
