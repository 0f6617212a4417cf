package runtime

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"net/http"
	"net/url"
	"strconv"
	"time"
	"unicode/utf8"

	"fieldapi/engine"
	"fieldapi/runtime/decode"
	"fieldapi/runtime/listquery"
	"fieldapi/runtime/problem"
)

// Webhook subscriptions, /v1/webhooks, for engines with the optional
// engine.Events capability. The engine keeps them and queues their
// deliveries; package webhook sends them.

// previousSecretValidity is how long a rotated-out secret still signs
// deliveries, so receivers can switch without losing one.
const previousSecretValidity = 24 * time.Hour

// webhookRoutes are the routes of the feed and the subscriptions.
func webhookRoutes() []Route {
	return []Route{
		{Method: http.MethodGet, Path: "/v1/events", Scope: scopeEventsRead, Handler: events},
		{Method: http.MethodGet, Path: "/v1/webhooks", Scope: scopeWebhooksRead, Handler: listWebhooks},
		{Method: http.MethodPost, Path: "/v1/webhooks", Scope: scopeWebhooksWrite, Handler: createWebhook, Created: &Created{Member: "id"}},
		{Method: http.MethodGet, Path: "/v1/webhooks/:key", Scope: scopeWebhooksRead, Handler: getWebhook},
		{Method: http.MethodPatch, Path: "/v1/webhooks/:key", Scope: scopeWebhooksWrite, Handler: updateWebhook},
		{Method: http.MethodDelete, Path: "/v1/webhooks/:key", Scope: scopeWebhooksWrite, Handler: deleteWebhook},
		{Method: http.MethodPost, Path: "/v1/webhooks/:key/rotate-secret", Scope: scopeWebhooksWrite, Handler: rotateSecret},
		{Method: http.MethodPost, Path: "/v1/webhooks/:key/test", Scope: scopeWebhooksWrite, Handler: pingWebhook},
		{Method: http.MethodGet, Path: "/v1/webhooks/:key/deliveries", Scope: scopeWebhooksRead, Handler: listDeliveries},
		{Method: http.MethodPost, Path: "/v1/webhooks/:key/deliveries/:delivery/retry", Scope: scopeWebhooksWrite, Handler: retryDelivery},
	}
}

// webhookBody is the body of POST and PATCH /v1/webhooks: absent (or, on
// PATCH, null) fields are left as they are.
type webhookBody struct {
	URL         *string   `json:"url"`
	EventTypes  *[]string `json:"eventTypes"`
	Description *string   `json:"description"`
	Enabled     *bool     `json:"enabled"`
}

// decodeWebhook decodes and checks a subscription body strictly.
func decodeWebhook(c *Call, feed engine.Events) (webhookBody, error) {
	var b webhookBody
	if err := decode.Strict(c.Body, &b); err != nil {
		return b, problem.MalformedBody("expected {\"url\", \"eventTypes\", \"description\", \"enabled\"}: " + err.Error())
	}
	if b.URL != nil {
		if err := c.checkWebhookURL(*b.URL); err != nil {
			return b, err
		}
	}
	if b.EventTypes != nil {
		if len(*b.EventTypes) == 0 {
			return b, problem.InvalidField("eventTypes", "name at least one type or pattern (a type, <prefix>.* or *)").WithValid(feed.EventTypes())
		}
		if detail := unmatchedEventType(*b.EventTypes, feed.EventTypes()); detail != "" {
			return b, problem.InvalidField("eventTypes", detail).WithValid(feed.EventTypes())
		}
	}
	if b.Description != nil && utf8.RuneCountInString(*b.Description) > 500 {
		return b, problem.InvalidField("description", "at most 500 characters")
	}
	return b, nil
}

// checkWebhookURL refuses a URL deliveries could not go to: not absolute
// http(s), or refused by the operator's policy (a private address).
func (c *Call) checkWebhookURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || len(raw) > 2000 {
		return problem.InvalidField("url", "expected an absolute http or https URL without credentials, at most 2000 characters")
	}
	if check := c.server.cfg.WebhookURLCheck; check != nil {
		if err := check(u); err != nil {
			return problem.CommandFailed("url: "+err.Error(), nil)
		}
	}
	return nil
}

// subscriptions returns the engine's feed and subscriptions, or 501.
func subscriptions(c *Call) (engine.Events, engine.WebhookStore, error) {
	feed, err := capabilityOf[engine.Events](c, "events and webhooks")
	if err != nil {
		return nil, nil, err
	}
	return feed, feed.Webhooks(), nil
}

// onSubscription runs a call on the subscription the path names.
func onSubscription(c *Call, do func(store engine.WebhookStore, id string) error) error {
	_, store, err := subscriptions(c)
	if err != nil {
		return err
	}
	id, err := c.Key()
	if err != nil {
		return err
	}
	return do(store, id)
}

// writeSubscription runs a write on the subscription the path names and
// sends what the store rendered through the receipt.
func writeSubscription(c *Call, status int, write func(store engine.WebhookStore, id string, r engine.Receipt) (engine.Response, error)) error {
	return onSubscription(c, func(store engine.WebhookStore, id string) error {
		resp, err := write(store, id, c.Receipt(status, asIs))
		if err != nil {
			return err
		}
		return c.Send(resp)
	})
}

// asIs renders a webhook write's record unchanged: the store hands it over
// as its JSON object.
func asIs(rec engine.Record) any { return rec }

func createWebhook(c *Call) error {
	feed, store, err := subscriptions(c)
	if err != nil {
		return err
	}
	b, err := decodeWebhook(c, feed)
	if err != nil {
		return err
	}
	switch {
	case b.URL == nil:
		return problem.MissingField("url")
	case b.EventTypes == nil:
		return problem.MissingField("eventTypes")
	}
	w := engine.Webhook{ID: newWebhookID(), URL: *b.URL, EventTypes: *b.EventTypes, Enabled: true, Secret: newWebhookSecret()}
	if b.Description != nil {
		w.Description = *b.Description
	}
	if b.Enabled != nil {
		w.Enabled = *b.Enabled
	}
	resp, err := store.CreateWebhook(c.Context(), c.Session, w, c.Receipt(http.StatusCreated, asIs))
	if err != nil {
		return err
	}
	return c.Send(resp)
}

func listWebhooks(c *Call) error {
	_, store, err := subscriptions(c)
	if err != nil {
		return err
	}
	hooks, err := store.ListWebhooks(c.Context(), c.Session)
	if err != nil {
		return err
	}
	if hooks == nil {
		hooks = []engine.Webhook{}
	}
	return c.JSON(http.StatusOK, struct {
		Items []engine.Webhook `json:"items"`
	}{hooks})
}

func getWebhook(c *Call) error {
	return onSubscription(c, func(store engine.WebhookStore, id string) error {
		w, err := store.GetWebhook(c.Context(), c.Session, id)
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, w)
	})
}

func updateWebhook(c *Call) error {
	feed, _, err := subscriptions(c)
	if err != nil {
		return err
	}
	b, err := decodeWebhook(c, feed)
	if err != nil {
		return err
	}
	change := engine.WebhookChange{URL: b.URL, Description: b.Description, Enabled: b.Enabled}
	if b.EventTypes != nil {
		change.EventTypes = *b.EventTypes
	}
	return writeSubscription(c, http.StatusOK, func(store engine.WebhookStore, id string, r engine.Receipt) (engine.Response, error) {
		return store.UpdateWebhook(c.Context(), c.Session, id, change, r)
	})
}

func deleteWebhook(c *Call) error {
	return onSubscription(c, func(store engine.WebhookStore, id string) error {
		if err := store.DeleteWebhook(c.Context(), c.Session, id); err != nil {
			return err
		}
		c.W.WriteHeader(http.StatusNoContent)
		c.written = true
		return nil
	})
}

func rotateSecret(c *Call) error {
	return writeSubscription(c, http.StatusOK, func(store engine.WebhookStore, id string, r engine.Receipt) (engine.Response, error) {
		return store.RotateSecret(c.Context(), c.Session, id, newWebhookSecret(), previousSecretValidity, r)
	})
}

func pingWebhook(c *Call) error {
	return writeSubscription(c, http.StatusAccepted, func(store engine.WebhookStore, id string, r engine.Receipt) (engine.Response, error) {
		return store.Ping(c.Context(), c.Session, id, r)
	})
}

func listDeliveries(c *Call) error {
	query, err := c.Query()
	if err != nil {
		return err
	}
	if err := listquery.OnlyParams(query, []string{"limit"}); err != nil {
		return err
	}
	limit, err := listquery.PageLimit(query)
	if err != nil {
		return err
	}
	return onSubscription(c, func(store engine.WebhookStore, id string) error {
		ds, err := store.Deliveries(c.Context(), c.Session, id, limit)
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, struct {
			Items []engine.Delivery `json:"items"`
		}{ds})
	})
}

func retryDelivery(c *Call) error {
	raw, err := c.Param("delivery")
	if err != nil {
		return err
	}
	delivery, err := strconv.ParseInt(raw, 10, 64)
	if err != nil {
		return problem.NotFound("no delivery " + strconv.Quote(raw))
	}
	return writeSubscription(c, http.StatusAccepted, func(store engine.WebhookStore, id string, r engine.Receipt) (engine.Response, error) {
		return store.Redeliver(c.Context(), c.Session, id, delivery, r)
	})
}

// newWebhookID names a new subscription: wh_ and 16 random hex digits.
func newWebhookID() string {
	var b [8]byte
	rand.Read(b[:])
	return "wh_" + hex.EncodeToString(b[:])
}

// newWebhookSecret is a Standard Webhooks signing secret: whsec_ and 32
// random bytes in base64.
func newWebhookSecret() string {
	var b [32]byte
	rand.Read(b[:])
	return "whsec_" + base64.StdEncoding.EncodeToString(b[:])
}
