package kit

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"fieldapi/engine"
)

// What a write leaves beside the record: its events on the feed
// (engine.Events) and its entries in the change log (engine.ChangeLog).

// FeedEvent is an event as the feed carries it (platform.Event's JSON).
type FeedEvent struct {
	Position int64  `json:"position"`
	Type     string `json:"type"`
	Register string `json:"register"`
	Key      string `json:"key"`
	Actor    struct {
		ClientID string `json:"clientId"`
		Sign     string `json:"sign"`
	} `json:"actor"`
	ChangedFields []string       `json:"changedFields"`
	Data          map[string]any `json:"data"`
}

// Feed returns the engine's event feed, or nil (logged) when it has none:
// the writes a test makes are then not checked on the feed.
func (s *Suite) Feed(t *testing.T) engine.Events {
	t.Helper()
	ev, ok := s.Engine.(engine.Events)
	if !ok {
		t.Log("the engine offers no engine.Events: the writes are not checked on the feed")
		return nil
	}
	return ev
}

// FeedEnd is the cursor after the company's last event.
func (s *Suite) FeedEnd(t *testing.T, feed engine.Events, sess engine.Session) int64 {
	t.Helper()
	var after int64
	for {
		page, err := feed.Events(context.Background(), sess, engine.EventQuery{After: after, Limit: 500})
		if err != nil {
			t.Fatalf("Events: %v", err)
		}
		if len(page.Events) == 0 {
			return page.Next
		}
		after = page.Next
	}
}

// EventsAfter reads every event of the company's feed after the cursor.
func (s *Suite) EventsAfter(t *testing.T, feed engine.Events, sess engine.Session, after int64) []FeedEvent {
	t.Helper()
	var out []FeedEvent
	for {
		page, err := feed.Events(context.Background(), sess, engine.EventQuery{After: after, Limit: 500})
		if err != nil {
			t.Fatalf("Events: %v", err)
		}
		for _, ev := range page.Events {
			var fe FeedEvent
			if err := json.Unmarshal(ev.Payload, &fe); err != nil {
				t.Fatalf("event %d: payload is not JSON: %v", ev.Position, err)
			}
			fe.Position, fe.Type = ev.Position, ev.Type
			out = append(out, fe)
		}
		if len(page.Events) == 0 {
			return out
		}
		after = page.Next
	}
}

// EventType is the type of a register's event (catalog.EventCreated, ...).
func (s *Suite) EventType(register, what string) string {
	return s.Catalog.Register(register).EventType(what)
}

// LogEntry is a change-log entry a test expects: its action, and its
// detail unless that is "".
type LogEntry struct{ Action, Detail string }

// ExpectLog checks a record's change log (engine.ChangeLog) holds exactly
// the entries wanted, in any order, each signed with the session's
// signature and client and marked as made via the API. An engine without
// a readable change log is not checked (logged).
func (s *Suite) ExpectLog(t *testing.T, sess engine.Session, register, key string, want ...LogEntry) {
	t.Helper()
	cl, ok := s.Engine.(engine.ChangeLog)
	if !ok {
		t.Logf("the engine offers no engine.ChangeLog: the log of %s %s is not checked", register, key)
		return
	}
	got, err := cl.Changes(context.Background(), sess, register, key, engine.ChangeQuery{Limit: 1000})
	if err != nil {
		t.Errorf("Changes of %s %s: %v", register, key, err)
		return
	}
	used := make([]bool, len(got))
	matched := 0
	for _, w := range want {
		for i, g := range got {
			if !used[i] && g.Action == w.Action && (w.Detail == "" || g.Detail == w.Detail) {
				used[i] = true
				matched++
				break
			}
		}
	}
	signed := true
	for _, g := range got {
		signed = signed && g.Sign == sess.Sign && g.ClientID == sess.ClientID && g.ViaAPI
	}
	if matched != len(want) || len(got) != len(want) || !signed {
		t.Errorf("the change log of %s %s holds %+v; want exactly %+v, each signed %s, client %s, via the API",
			register, key, got, want, sess.Sign, sess.ClientID)
	}
}

// ExpectEvents checks the feed after the cursor holds exactly the events
// wanted, in order: type, register, key and changed fields, each signed
// by the session's client and signature.
func (s *Suite) ExpectEvents(t *testing.T, feed engine.Events, sess engine.Session, after int64, want ...FeedEvent) {
	t.Helper()
	if feed == nil {
		return
	}
	got := s.EventsAfter(t, feed, sess, after)
	brief := func(evs []FeedEvent) string {
		var b strings.Builder
		for _, e := range evs {
			fmt.Fprintf(&b, "\n\t%s %s %s %v", e.Type, e.Register, e.Key, e.ChangedFields)
			if e.Actor.ClientID != "" || e.Actor.Sign != "" {
				fmt.Fprintf(&b, " by %s/%s", e.Actor.ClientID, e.Actor.Sign)
			}
		}
		return b.String()
	}
	ok := len(got) == len(want)
	for i := 0; ok && i < len(got); i++ {
		g, w := got[i], want[i]
		ok = g.Type == w.Type && g.Register == w.Register && g.Key == w.Key &&
			(w.ChangedFields == nil || slices.Equal(g.ChangedFields, w.ChangedFields)) &&
			g.Actor.ClientID == sess.ClientID && g.Actor.Sign == sess.Sign
	}
	if !ok {
		t.Errorf("the feed after the writes holds:%s\nwant:%s\n(each by %s/%s)", brief(got), brief(want), sess.ClientID, sess.Sign)
	}
}

// Event is a FeedEvent wanted: changed nil matches any changed fields.
func (s *Suite) Event(register, what, key string, changed ...string) FeedEvent {
	return FeedEvent{Type: s.EventType(register, what), Register: register, Key: key, ChangedFields: changed}
}
