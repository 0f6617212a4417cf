package runtime

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"fieldapi/engine"
	"fieldapi/runtime/listquery"
	"fieldapi/runtime/problem"
	"fieldapi/runtime/textcheck"
)

// The change feed, GET /v1/events, for engines with the optional
// engine.Events capability.

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

// eventParams are the query parameters of GET /v1/events.
var eventParams = []string{"after", "types", "register", "limit"}

// eventPage is the body of GET /v1/events.
type eventPage struct {
	Items      []json.RawMessage `json:"items"`
	NextCursor string            `json:"nextCursor"` // always set: poll again with it
}

// events serves GET /v1/events: the company's events after a cursor,
// oldest first. nextCursor is never null, so a poller keeps it and asks
// again; it never moves past an event that has not committed yet.
func events(c *Call) error {
	feed, err := capabilityOf[engine.Events](c, "events")
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
	page, err := feed.Events(c.Context(), c.Session, q)
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
