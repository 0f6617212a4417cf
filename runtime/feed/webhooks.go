package feed

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

// webhookBody is the body of POST and PATCH /v1/webhooks: absent (or, on
// PATCH, null) fields are left as they are.
type webhookBody struct {
	URL         *string   `json:"url"`
	EventTypes  *[]string `json:"eventTypes"`
	Description *string   `json:"description"`
	Enabled     *bool     `json:"enabled"`
}

// decodeWebhook decodes and checks a subscription body strictly.
func decodeWebhook(req Request, feed engine.Events) (webhookBody, error) {
	var b webhookBody
	if err := decode.Strict(req.Body, &b); err != nil {
		return b, problem.MalformedBody("expected {\"url\", \"eventTypes\", \"description\", \"enabled\"}: " + err.Error())
	}
	if b.URL != nil {
		if err := req.checkWebhookURL(*b.URL); err != nil {
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
func (r Request) checkWebhookURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || len(raw) > 2000 {
		return problem.InvalidField("url", "expected an absolute http or https URL without credentials, at most 2000 characters")
	}
	if check := r.URLCheck; check != nil {
		if err := check(u); err != nil {
			return problem.CommandFailed("url: "+err.Error(), nil)
		}
	}
	return nil
}

// subscriptions returns the engine's feed and subscriptions, or 501.
func subscriptions(req Request) (engine.Events, engine.WebhookStore, error) {
	feed, err := req.events("events and webhooks")
	if err != nil {
		return nil, nil, err
	}
	return feed, feed.Webhooks(), nil
}

// onSubscription runs a call on the subscription the path names.
func onSubscription(c Call, req Request, do func(store engine.WebhookStore, id string) error) error {
	_, store, err := subscriptions(req)
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
func writeSubscription(c Call, req Request, status int, write func(store engine.WebhookStore, id string, r engine.Receipt) (engine.Response, error)) error {
	return onSubscription(c, req, func(store engine.WebhookStore, id string) error {
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

func CreateWebhook(c Call, req Request) error {
	feed, store, err := subscriptions(req)
	if err != nil {
		return err
	}
	b, err := decodeWebhook(req, feed)
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
	resp, err := store.CreateWebhook(c.Context(), req.Session, w, c.Receipt(http.StatusCreated, asIs))
	if err != nil {
		return err
	}
	return c.Send(resp)
}

func ListWebhooks(c Call, req Request) error {
	_, store, err := subscriptions(req)
	if err != nil {
		return err
	}
	hooks, err := store.ListWebhooks(c.Context(), req.Session)
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

func GetWebhook(c Call, req Request) error {
	return onSubscription(c, req, func(store engine.WebhookStore, id string) error {
		w, err := store.GetWebhook(c.Context(), req.Session, id)
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, w)
	})
}

func UpdateWebhook(c Call, req Request) error {
	feed, _, err := subscriptions(req)
	if err != nil {
		return err
	}
	b, err := decodeWebhook(req, feed)
	if err != nil {
		return err
	}
	change := engine.WebhookChange{URL: b.URL, Description: b.Description, Enabled: b.Enabled}
	if b.EventTypes != nil {
		change.EventTypes = *b.EventTypes
	}
	return writeSubscription(c, req, http.StatusOK, func(store engine.WebhookStore, id string, r engine.Receipt) (engine.Response, error) {
		return store.UpdateWebhook(c.Context(), req.Session, id, change, r)
	})
}

func DeleteWebhook(c Call, req Request) error {
	return onSubscription(c, req, func(store engine.WebhookStore, id string) error {
		if err := store.DeleteWebhook(c.Context(), req.Session, id); err != nil {
			return err
		}
		c.WriteHeader(http.StatusNoContent)
		return nil
	})
}

func RotateSecret(c Call, req Request) error {
	return writeSubscription(c, req, http.StatusOK, func(store engine.WebhookStore, id string, r engine.Receipt) (engine.Response, error) {
		return store.RotateSecret(c.Context(), req.Session, id, newWebhookSecret(), previousSecretValidity, r)
	})
}

func PingWebhook(c Call, req Request) error {
	return writeSubscription(c, req, http.StatusAccepted, func(store engine.WebhookStore, id string, r engine.Receipt) (engine.Response, error) {
		return store.Ping(c.Context(), req.Session, id, r)
	})
}

func ListDeliveries(c Call, req Request) error {
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
	return onSubscription(c, req, func(store engine.WebhookStore, id string) error {
		ds, err := store.Deliveries(c.Context(), req.Session, id, limit)
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, struct {
			Items []engine.Delivery `json:"items"`
		}{ds})
	})
}

func RetryDelivery(c Call, req Request) error {
	raw, err := c.Param("delivery")
	if err != nil {
		return err
	}
	delivery, err := strconv.ParseInt(raw, 10, 64)
	if err != nil {
		return problem.NotFound("no delivery " + strconv.Quote(raw))
	}
	return writeSubscription(c, req, http.StatusAccepted, func(store engine.WebhookStore, id string, r engine.Receipt) (engine.Response, error) {
		return store.Redeliver(c.Context(), req.Session, id, delivery, r)
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
