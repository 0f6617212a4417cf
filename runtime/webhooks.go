package runtime

import (
	"net/http"

	"fieldapi/runtime/feed"
)

// webhookRoutes are the routes of the feed and the subscriptions.
func webhookRoutes() []Route {
	return []Route{
		{Method: http.MethodGet, Path: "/v1/events", Scope: scopeEventsRead, Handler: feedRoute(feed.Events)},
		{Method: http.MethodGet, Path: "/v1/webhooks", Scope: scopeWebhooksRead, Handler: feedRoute(feed.ListWebhooks)},
		{Method: http.MethodPost, Path: "/v1/webhooks", Scope: scopeWebhooksWrite, Handler: feedRoute(feed.CreateWebhook), Created: &Created{Member: "id"}},
		{Method: http.MethodGet, Path: "/v1/webhooks/:key", Scope: scopeWebhooksRead, Handler: feedRoute(feed.GetWebhook)},
		{Method: http.MethodPatch, Path: "/v1/webhooks/:key", Scope: scopeWebhooksWrite, Handler: feedRoute(feed.UpdateWebhook)},
		{Method: http.MethodDelete, Path: "/v1/webhooks/:key", Scope: scopeWebhooksWrite, Handler: feedRoute(feed.DeleteWebhook)},
		{Method: http.MethodPost, Path: "/v1/webhooks/:key/rotate-secret", Scope: scopeWebhooksWrite, Handler: feedRoute(feed.RotateSecret)},
		{Method: http.MethodPost, Path: "/v1/webhooks/:key/test", Scope: scopeWebhooksWrite, Handler: feedRoute(feed.PingWebhook)},
		{Method: http.MethodGet, Path: "/v1/webhooks/:key/deliveries", Scope: scopeWebhooksRead, Handler: feedRoute(feed.ListDeliveries)},
		{Method: http.MethodPost, Path: "/v1/webhooks/:key/deliveries/:delivery/retry", Scope: scopeWebhooksWrite, Handler: feedRoute(feed.RetryDelivery)},
	}
}

// feedRoute serves a route of package feed with the call.
func feedRoute(h feed.Handler) Handler {
	return func(c *Call) error {
		return h(c, feed.Request{Engine: c.Engine, Session: c.Session, Body: c.Body, URLCheck: c.server.cfg.WebhookURLCheck})
	}
}
