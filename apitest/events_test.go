package apitest

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"fieldapi/catalog"
	"fieldapi/generated"
	"fieldapi/runtime"
)

// feedEvent is an event as GET /v1/events lists it.
type feedEvent struct {
	ID            string         `json:"id"`
	Position      int64          `json:"position"`
	Type          string         `json:"type"`
	OccurredAt    string         `json:"occurredAt"`
	Company       string         `json:"company"`
	Register      string         `json:"register"`
	Key           string         `json:"key"`
	Actor         map[string]any `json:"actor"`
	ChangedFields []string       `json:"changedFields"`
	Data          map[string]any `json:"data"`
}

// feed reads one page of the feed with a key.
func (e *Env) feed(t testing.TB, key, query string) ([]feedEvent, string) {
	t.Helper()
	resp := e.Do(Request{Method: http.MethodGet, Path: "/v1/events?" + query, Key: key})
	Expect(t, resp, http.StatusOK)
	var page struct {
		Items      []feedEvent `json:"items"`
		NextCursor string      `json:"nextCursor"`
	}
	resp.JSON(t, &page)
	if page.NextCursor == "" {
		t.Fatalf("nextCursor missing: %s", resp.Body)
	}
	return page.Items, page.NextCursor
}

// eventBodies are bodies the demo data accepts for the routes of records
// the catalog alone cannot fill (lines, actions, documents, positions).
func eventBody(route runtime.Route) string {
	switch {
	case strings.HasSuffix(route.Path, "/times"):
		return `{"timeType": "Resa, km/dag", "hours": 3}`
	case strings.HasSuffix(route.Path, "/materials") || strings.HasSuffix(route.Path, "/lines"):
		return `{"productNr": "4025", "quantity": 1}`
	}
	return validBody(route)
}

// expectedEvent is the event type a write route documents, from the catalog.
func expectedEvent(cat *catalog.Catalog, route runtime.Route) (reg *catalog.Register, eventType string) {
	parts := strings.Split(strings.TrimPrefix(route.Path, "/v1/"), "/")
	reg = cat.Register(parts[0])
	switch {
	case len(parts) == 1:
		return reg, reg.EventType(catalog.EventCreated)
	case len(parts) == 2:
		return reg, reg.EventType(catalog.EventUpdated)
	case parts[2] == "documents":
		return reg, reg.EventType(catalog.EventDocumentAdded)
	case parts[2] == "location":
		return reg, reg.EventType(catalog.EventLocationChanged)
	}
	for _, l := range reg.Lines {
		if l.Name == parts[2] {
			return reg, reg.EventType(l.LineEvent())
		}
	}
	for _, a := range reg.Actions {
		if a.Name == parts[2] {
			return reg, reg.EventType(a.Event)
		}
	}
	return reg, ""
}

// TestEveryWriteRouteRecordsItsEvent drives every write route of the
// generated table and reads the feed after it: exactly one event, of the
// type the catalog names, about the record written, by the caller, with
// the record as read after the change. Demo data (imported) has none.
func TestEveryWriteRouteRecordsItsEvent(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		env := Start(t, b, runtime.Config{})
		items, cursor := env.feed(t, env.Key, "")
		is.New(t).Equal(len(items), 0) // the demo import records no events
		created := map[string]string{} // register → a key created through the API
		for _, route := range generated.Routes() {
			if route.Method == http.MethodGet {
				continue
			}
			reg, want := expectedEvent(env.Catalog, route)
			t.Run(route.Method+" "+route.Path, func(t *testing.T) {
				is := is.New(t)
				if want == "" {
					t.Fatalf("no event type documented for %s %s", route.Method, route.Path)
				}
				var key string
				if strings.Contains(route.Path, ":key") {
					if created[reg.Name] == "" {
						created[reg.Name] = env.createForEvents(t, reg)
						_, cursor = env.feed(t, env.Key, "after="+cursor)
					}
					key = created[reg.Name]
					resp := env.Do(Request{Method: route.Method, Path: pathFor(route, escape(key)), Key: env.Key, Body: updateBody(reg, route)})
					if resp.Status/100 != 2 {
						t.Fatalf("%s: %d %s", route.Path, resp.Status, resp.Body)
					}
				} else {
					key = env.createForEvents(t, reg)
					if created[reg.Name] == "" {
						created[reg.Name] = key
					}
				}
				events, next := env.feed(t, env.Key, "after="+cursor)
				cursor = next
				if len(events) != 1 {
					t.Fatalf("want one event, got %d: %v", len(events), eventTypes(events))
				}
				ev := events[0]
				is.Equal(ev.Type, want)
				is.Equal(ev.Register, reg.Name)
				is.Equal(ev.Key, key)
				is.Equal(ev.Company, "demo")
				is.Equal(ev.Actor["sign"], "API")
				is.Equal(ev.Actor["clientId"], clientIDOf(env.Key))
				is.True(strings.HasPrefix(ev.ID, "evt_"))
				is.True(ev.Data != nil)
				for name := range ev.Data {
					is.True(name != "" && name[0] >= 'A' && name[0] <= 'Z') // data holds the record's own PascalCase fields, nothing internal
				}
				is.True(len(ev.ChangedFields) > 0)
				is.Equal(next, strconv.FormatInt(ev.Position, 10))
			})
		}
	})
}

// createForEvents creates a record of a register and returns its key,
// read from the feed (a create may answer with a summary, as tasks do).
// Registers the API cannot create (lines) give a demo record instead.
func (e *Env) createForEvents(t *testing.T, reg *catalog.Register) string {
	t.Helper()
	if !reg.Has(catalog.Create) {
		key, ok := e.FirstKey(reg.Name, e.Key)
		if !ok {
			t.Skipf("%s has no demo record", reg.Name)
		}
		return key
	}
	resp := e.Post("/v1/"+reg.Name, e.createBody(t, reg))
	Expect(t, resp, http.StatusCreated)
	items, _ := e.feed(t, e.Key, "limit=500")
	return items[len(items)-1].Key
}

// createBody is a create body from the catalog: the required fields, the
// first of requireOneOf, and one plain text field. A standalone time needs
// its date and user too (a rule of the engine's calendar).
func (e *Env) createBody(t *testing.T, reg *catalog.Register) map[string]any {
	if reg.Name == "times" {
		return map[string]any{"timeType": "Resa, km/dag", "userSign": "API", "date": "2026-01-05T08:00:00", "hours": 1}
	}
	var fields []*catalog.Field
	for _, f := range reg.Fields {
		if f.Required || (len(reg.RequireOneOf) > 0 && f.Name == reg.RequireOneOf[0]) {
			fields = append(fields, f)
		}
	}
	body := e.bodyOf(t, reg, e.Key, fields)
	if f := plainTextField(reg); f != nil {
		body[f.WriteName] = "made by the event test"
	}
	return body
}

// plainTextField is the first writable text field no rule looks at.
func plainTextField(reg *catalog.Register) *catalog.Field {
	for _, f := range reg.Fields {
		if f.Writable && f.Type == catalog.Text && f.References == "" && f.Name != reg.Key && !strings.HasSuffix(f.Name, "Type") && !strings.HasSuffix(f.Name, "Nr") {
			return f
		}
	}
	return nil
}

// eventTypes lists the types of events, for a failure message.
func eventTypes(events []feedEvent) []string {
	var types []string
	for _, ev := range events {
		types = append(types, ev.Type)
	}
	return types
}

// updateBody is a body that changes something: for PATCH, the first
// writable plain text field; for the other routes, eventBody.
func updateBody(reg *catalog.Register, route runtime.Route) string {
	upsert := route.Method == http.MethodPut && strings.HasSuffix(route.Path, "/:key") // PUT of a record that exists: an update
	if route.Method != http.MethodPatch && !upsert {
		return eventBody(route)
	}
	if f := plainTextField(reg); f != nil {
		return fmt.Sprintf(`{%q: "changed by the event test's %s"}`, f.WriteName, route.Method)
	}
	return "{}"
}

// TestRefusedWritesRecordNoEvent: a create refused on one of its lines
// rolls back whole, its event too; a PATCH that changes nothing records
// none; another company never sees the events.
func TestRefusedWritesRecordNoEvent(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		is := is.New(t)
		env := Start(t, b, runtime.Config{})
		ok := env.Post("/v1/orders", map[string]any{"customerNr": "1002"})
		Expect(t, ok, http.StatusCreated)
		events, cursor := env.feed(t, env.Key, "")
		is.Equal(len(events), 1)
		is.Equal(events[0].Type, "order.created")

		refused := env.Post("/v1/orders", map[string]any{"customerNr": "1002", "lines": []any{
			map[string]any{"productNr": "4001", "quantity": 1}, map[string]any{"productNr": "NOPE", "quantity": 1}}})
		Expect(t, refused, http.StatusUnprocessableEntity)
		nothing := env.Patch(KeyPath("orders", ok.Object(t)["Nr"].(string)), map[string]any{})
		Expect(t, nothing, http.StatusOK)
		events, next := env.feed(t, env.Key, "after="+cursor)
		is.Equal(len(events), 0)
		is.Equal(next, cursor)

		// The next committed write takes the next position: none was used.
		Expect(t, env.Post("/v1/orders", map[string]any{"customerNr": "1002"}), http.StatusCreated)
		events, _ = env.feed(t, env.Key, "after="+cursor)
		is.Equal(len(events), 1)
		is.Equal(strconv.FormatInt(events[0].Position-1, 10), cursor) // gap-free

		other, _ := env.feed(t, env.OtherKey, "")
		is.Equal(len(other), 0) // demo2 sees none of demo's events

		// A signature that may read customers but not products sees the
		// customer events only, whatever its key's scopes.
		_, mark := env.feed(t, env.Key, "after="+cursor)
		Expect(t, env.Post("/v1/products", env.createBody(t, env.Catalog.Register("products"))), http.StatusCreated)
		Expect(t, env.Post("/v1/customers", map[string]any{"name": "Seen"}), http.StatusCreated)
		limited, _ := env.feed(t, env.limitedSignKey(t), "after="+mark)
		is.Equal(eventTypes(limited), []string{"customer.created"})
	})
}

// TestFeedParameters: filters, a walk page by page, bad parameters, and a
// cursor older than the retention.
func TestFeedParameters(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		is := is.New(t)
		env := Start(t, b, runtime.Config{})
		for i := range 3 {
			Expect(t, env.Post("/v1/customers", map[string]any{"name": fmt.Sprint("Feed ", i)}), http.StatusCreated)
			Expect(t, env.Post("/v1/tasks", map[string]any{"customerNr": "1031", "taskText": fmt.Sprint("Feed ", i)}), http.StatusCreated)
		}
		all, _ := env.feed(t, env.Key, "limit=500")
		is.Equal(len(all), 6)
		var walked []feedEvent
		cursor := "0"
		for range 10 {
			page, next := env.feed(t, env.Key, "limit=1&after="+cursor)
			walked = append(walked, page...)
			if next == cursor {
				break
			}
			cursor = next
		}
		is.Equal(walked, all) // a walk sees the same events in the same order

		tasks, next := env.feed(t, env.Key, "types=task.*")
		is.Equal(len(tasks), 3)
		is.Equal(next, strconv.FormatInt(all[5].Position, 10)) // a filtered page still moves to the committed end
		customers, _ := env.feed(t, env.Key, "register=customers&types=customer.created,task.note_added")
		is.Equal(len(customers), 3)

		for _, q := range []string{"types=task.nope", "after=x", "limit=0", "colour=red", "after=1&after=2"} {
			resp := env.SkipRequestValidation().Get("/v1/events?" + q)
			is.Equal(resp.Status, http.StatusBadRequest)
			is.Equal(resp.Problem(t).Title, "invalid_parameter")
		}
		noScope := env.NewKey("demo", "API", "customers:read")
		is.Equal(env.Do(Request{Method: http.MethodGet, Path: "/v1/events", Key: noScope}).Status, http.StatusForbidden)

		// Prune everything: a cursor from before the prune is gone (410),
		// starting again without one works.
		n, err := env.Engine.Queue().PruneEvents(context.Background(), nowPlusHour())
		is.NoErr(err)
		is.Equal(n, 6)
		gone := env.Get("/v1/events?after=" + strconv.FormatInt(all[1].Position, 10))
		is.Equal(gone.Status, http.StatusGone)
		is.Equal(gone.Problem(t).Title, "cursor_expired")
		fresh, _ := env.feed(t, env.Key, "")
		is.Equal(len(fresh), 0)
		_, last := env.feed(t, env.Key, "after="+strconv.FormatInt(all[5].Position, 10))
		is.Equal(last, strconv.FormatInt(all[5].Position, 10)) // a cursor at the end is still good
	})
}

func nowPlusHour() time.Time { return time.Now().Add(time.Hour) }
