package client

import (
	"context"
	"net/http"
	"sync"
	"time"
)

// authenticator supplies the Authorization header of each call.
type authenticator interface {
	// authorization is the header value for the next attempt.
	authorization(ctx context.Context, c *Client) (string, error)
	// forget drops a credential the server refused with 401, and reports
	// whether a new one may be fetched (tokens; a key cannot be renewed).
	forget(used string) bool
}

// noAuth sends no credentials.
type noAuth struct{}

func (noAuth) authorization(context.Context, *Client) (string, error) { return "", nil }
func (noAuth) forget(string) bool                                     { return false }

// staticKey sends a key on every call.
type staticKey string

func (k staticKey) authorization(context.Context, *Client) (string, error) {
	return "Bearer " + string(k), nil
}
func (staticKey) forget(string) bool { return false }

// tokenSource exchanges a key for access tokens (POST /v1/token) and reuses
// each until shortly before it expires. One fetch serves every goroutine.
type tokenSource struct {
	clientID, secret string

	mu      sync.Mutex
	token   string
	renewAt time.Time
}

// tokenAnswer is the body of a token grant.
type tokenAnswer struct {
	AccessToken string `json:"access_token"`
	TokenType   string `json:"token_type"`
	ExpiresIn   int    `json:"expires_in"`
}

func (s *tokenSource) authorization(ctx context.Context, c *Client) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.token != "" && c.now().Before(s.renewAt) {
		return "Bearer " + s.token, nil
	}
	body := map[string]string{"clientId": s.clientID, "clientSecret": s.secret, "grantType": "client_credentials"}
	answer, err := call[tokenAnswer](ctx, c, request{method: http.MethodPost, path: "/v1/token", body: body, public: true})
	if err != nil {
		return "", err
	}
	lifetime := time.Duration(answer.ExpiresIn) * time.Second
	// Renew a little early, so a token does not expire on its way.
	s.token, s.renewAt = answer.AccessToken, c.now().Add(lifetime-min(lifetime/10, 30*time.Second))
	return "Bearer " + s.token, nil
}

func (s *tokenSource) forget(used string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if used == "Bearer "+s.token {
		s.token = ""
	}
	return true
}
