// Package feed serves the change feed (GET /v1/events) and the webhook
// subscriptions that push it (/v1/webhooks), for engines with the optional
// engine.Events capability. Package runtime routes to these handlers and
// hands each the call it serves.
package feed

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"fieldapi/engine"
	"fieldapi/runtime/listquery"
	"fieldapi/runtime/problem"
	"fieldapi/runtime/textcheck"
)

// Call is what a handler answers through: runtime.Call.
type Call interface {
	Context() context.Context
	Key() (string, error)
	Param(name string) (string, error)
	Query() (url.Values, error)
	JSON(status int, v any) error
	Receipt(status int, view func(engine.Record) any) engine.Receipt
	Send(resp engine.Response) error
	WriteHeader(status int)
}

// Request is what a handler reads of the call besides Call.
type Request struct {
	Engine  engine.Engine
	Session engine.Session
	Body    []byte // a write's body
	// URLCheck refuses a subscription URL by the operator's policy;
	// nil allows every http(s) URL (runtime.Config.WebhookURLCheck).
	URLCheck func(u *url.URL) error
}

// Handler serves one route.
type Handler func(c Call, req Request) error

// events is the engine's feed, or 501 naming what the call wanted.
func (r Request) events(what string) (engine.Events, error) {
	feed, ok := r.Engine.(engine.Events)
	if !ok {
		return nil, problem.NotImplemented(what)
	}
	return feed, nil
}

// eventParams are the query parameters of GET /v1/events.
var eventParams = []string{"after", "types", "register", "limit"}

// eventPage is the body of GET /v1/events.
type eventPage struct {
	Items      []json.RawMessage `json:"items"`
	NextCursor string            `json:"nextCursor"` // always set: poll again with it
}

// Events serves GET /v1/events: the company's events after a cursor,
// oldest first. nextCursor is never null, so a poller keeps it and asks
// again; it never moves past an event that has not committed yet.
func Events(c Call, req Request) error {
	feed, err := req.events("events")
	if err != nil {
		return err
	}
	values, err := c.Query()
	if err != nil {
		return err
	}
	if err := listquery.OnlyParams(values, eventParams); err != nil {
		return err
	}
	q := engine.EventQuery{Register: values.Get("register")}
	if err := textcheck.Param("register", q.Register); err != nil {
		return err
	}
	if v := values.Get("after"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return problem.InvalidParameter("after", "expected the nextCursor of an earlier page")
		}
		q.After = n
	}
	if q.Limit, err = listquery.PageLimit(values); err != nil {
		return err
	}
	if v := values.Get("types"); v != "" {
		q.Types = strings.Split(v, ",")
		if detail := unmatchedEventType(q.Types, feed.EventTypes()); detail != "" {
			return problem.InvalidParameter("types", detail).WithValid(feed.EventTypes())
		}
	}
	page, err := feed.Events(c.Context(), req.Session, q)
	if err != nil {
		return err
	}
	out := eventPage{Items: make([]json.RawMessage, len(page.Events)), NextCursor: strconv.FormatInt(page.Next, 10)}
	for i, ev := range page.Events {
		out.Items[i] = ev.Payload
	}
	return c.JSON(http.StatusOK, out)
}

// unmatchedEventType names the first pattern that matches no event type,
// or returns "" when each matches one: a misspelt type would otherwise
// silently never match. The feed's filter and a subscription share it.
func unmatchedEventType(patterns, known []string) (detail string) {
	for _, p := range patterns {
		if !slices.ContainsFunc(known, func(t string) bool { return engine.MatchEventType(p, t) }) {
			return "no event type matches " + strconv.Quote(p) + " (a type, <prefix>.* or *)"
		}
	}
	return ""
}
