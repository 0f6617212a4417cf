package runtime

// The change feed, GET /v1/events, and the webhook subscriptions,
// /v1/webhooks, for engines with the optional engine.Events capability:
// package feed serves them; here are their routes and scopes.

// Scopes of the built-in event and webhook routes.
const (
	scopeEventsRead    = "events:read"
	scopeWebhooksRead  = "webhooks:read"
	scopeWebhooksWrite = "webhooks:write"
)

// BuiltinScopes are the scopes of built-in routes, which a key may hold
// beside the registers' own.
func BuiltinScopes() []string {
	return []string{scopeEventsRead, scopeWebhooksRead, scopeWebhooksWrite}
}
