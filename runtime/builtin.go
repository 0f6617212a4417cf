package runtime

import (
	"context"
	"net/http"
	"strings"
	"time"

	"fieldapi/engine"
	"fieldapi/runtime/auth"
	"fieldapi/runtime/batch"
	"fieldapi/runtime/decode"
	"fieldapi/runtime/problem"
)

// builtinRoutes are the routes that belong to no register.
func builtinRoutes(api API) []Route {
	return append([]Route{
		{Method: http.MethodGet, Path: "/openapi.json", Public: true, Handler: func(c *Call) error {
			c.send(http.StatusOK, "application/json", api.OpenAPI)
			return nil
		}},
		{Method: http.MethodGet, Path: "/docs", Public: true, Handler: func(c *Call) error {
			// The page is self-contained; the policy keeps it so in the
			// browser: nothing is loaded from anywhere, not even this host.
			c.W.Header().Set(HeaderContentSecurityPolicy, "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'")
			c.send(http.StatusOK, "text/html; charset=utf-8", api.Docs)
			return nil
		}},
		{Method: http.MethodGet, Path: "/health", Public: true, Handler: health},
		{Method: http.MethodGet, Path: "/v1/whoami", Handler: whoami},
		{Method: http.MethodPost, Path: "/v1/token", Public: true, Handler: token},
		{Method: http.MethodGet, Path: "/v1/field-names", Handler: fieldNames},
		// Any valid key: each operation is checked against the key's scopes.
		{Method: http.MethodPost, Path: batch.Path, Handler: serveBatch},
	}, webhookRoutes()...)
}

// BuiltinRoutes are the routes every server has besides the API's own, for
// documentation: the handlers are left out.
func BuiltinRoutes() []Route {
	routes := builtinRoutes(API{})
	for i := range routes {
		routes[i].Handler = nil
	}
	return routes
}

// healthReport is the body of GET /health.
type healthReport struct {
	Status    string  `json:"status"` // ok or unavailable
	Engine    string  `json:"engine"` // reachable or unreachable
	LatencyMs float64 `json:"latencyMs"`
}

// health serves GET /health: 200 while the engine answers, 503 otherwise.
func health(c *Call) error {
	ctx, cancel := context.WithTimeout(c.Context(), 2*time.Second)
	defer cancel()
	start := time.Now()
	err := c.Engine.Ping(ctx)
	report := healthReport{Status: "ok", Engine: "reachable", LatencyMs: float64(time.Since(start).Microseconds()) / 1000}
	if err != nil {
		report.Status, report.Engine = "unavailable", "unreachable"
		c.W.Header().Set(HeaderRetryAfter, "1")
		return c.JSON(http.StatusServiceUnavailable, report)
	}
	return c.JSON(http.StatusOK, report)
}

// whoamiResponse is the body of GET /v1/whoami (spec 2.5).
type whoamiResponse struct {
	Integration string   `json:"integration"`
	Tenant      string   `json:"tenant"`
	Scopes      []string `json:"scopes"`
}

// whoami serves GET /v1/whoami.
func whoami(c *Call) error {
	return c.JSON(http.StatusOK, whoamiResponse{
		Integration: c.Session.ClientID,
		Tenant:      c.Session.Company,
		Scopes:      c.server.expandScopes(c.Scopes),
	})
}

// expandScopes spells out "*" as every scope of the route table.
func (s *Server) expandScopes(scopes []string) []string {
	for _, sc := range scopes {
		if sc == "*" {
			return s.scopes
		}
	}
	return scopes
}

// tokenRequest is the body of POST /v1/token (client credentials).
type tokenRequest struct {
	ClientID     string `json:"clientId"`
	ClientSecret string `json:"clientSecret"`
	GrantType    string `json:"grantType"`
}

// tokenResponse is the body of a token grant (spec 2.5).
type tokenResponse struct {
	AccessToken string `json:"access_token"`
	TokenType   string `json:"token_type"`
	ExpiresIn   int    `json:"expires_in"`
	Scope       string `json:"scope"`
}

// token serves POST /v1/token: a key's client id and secret for an access token.
func token(c *Call) error {
	var req tokenRequest
	if err := decode.Strict(c.Body, &req); err != nil {
		return problem.MalformedBody("expected {\"clientId\": \"...\", \"clientSecret\": \"...\"}")
	}
	switch {
	case req.ClientID == "":
		return problem.MissingField("clientId")
	case req.ClientSecret == "":
		return problem.MissingField("clientSecret")
	case req.GrantType != "" && req.GrantType != "client_credentials":
		return problem.InvalidField("grantType", "only client_credentials is offered")
	}
	key, access, expires, err := c.server.auth.IssueToken(c.Context(), req.ClientID, req.ClientSecret, auth.RemoteIP(c.R))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, tokenResponse{
		AccessToken: access,
		TokenType:   "Bearer",
		ExpiresIn:   int(expires.Sub(c.server.cfg.Now()).Round(time.Second).Seconds()),
		Scope:       strings.Join(c.server.expandScopes(key.Scopes), " "),
	})
}

// fieldNames serves GET /v1/field-names: the company's labels for standard fields.
func fieldNames(c *Call) error {
	names, err := c.Engine.FieldNames(c.Context(), c.Session)
	if err != nil {
		return err
	}
	if names == nil {
		names = []engine.FieldName{}
	}
	return c.JSON(http.StatusOK, struct {
		Items []engine.FieldName `json:"items"`
	}{names})
}
