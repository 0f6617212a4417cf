package apitest

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/matryer/is"

	"fieldapi/runtime"
)

// The change log over HTTP (spec 1): GET /v1/<register>/{key}/changes and
// GET /v1/tasks/{nr}/notes, on every backend, each call validated against
// the served document.

// change is one entry of a record's change log, as the API reads it.
type change struct {
	At       string
	Action   string
	Detail   string
	Sign     string
	ClientID string `json:"ClientId"`
	ViaAPI   bool   `json:"ViaApi"`
}

// readChanges reads a change-log list (path is …/changes or an action's
// path, with its query), checking the envelope's count.
func readChanges(t testing.TB, env *Env, path string) []change {
	t.Helper()
	resp := env.Get(path)
	Expect(t, resp, http.StatusOK)
	var list struct {
		Items []change
		Count *int
	}
	resp.JSON(t, &list)
	if list.Items == nil || list.Count == nil || *list.Count != len(list.Items) {
		t.Fatalf("%s: count %v for %d items: %s", path, list.Count, len(list.Items), resp.Body)
	}
	return list.Items
}

// changesOf reads a record's change log; action keeps one action's
// entries ("" every one).
func changesOf(t testing.TB, env *Env, register, key, action string) []change {
	t.Helper()
	path := KeyPath(register, key, "/changes?limit=500")
	if action != "" {
		path += "&action=" + url.QueryEscape(action)
	}
	return readChanges(t, env, path)
}

// actions lists the entries' actions, in order.
func actions(entries []change) []string {
	var out []string
	for _, c := range entries {
		out = append(out, c.Action)
	}
	return out
}

// TestChangeLog: a note posted as the README posts it reads back from the
// task's notes; a PATCH, a status move and lines show in the record's
// change log with their action, signed with the key's signature and client
// id, via the API; a line's writes show on its owner too; limit and action
// select; an unknown record is 404 and a parameter that is none 400.
func TestChangeLog(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		env := Start(t, b, runtime.Config{})
		clientID := clientIDOf(env.Key)
		signed := func(t *testing.T, entries []change) {
			t.Helper()
			for _, c := range entries {
				if c.Sign != "API" || c.ClientID != clientID || !c.ViaAPI || c.At == "" {
					t.Errorf("entry %+v: want sign API, client id %s, via the API, a time", c, clientID)
				}
			}
		}

		t.Run("a note reads back from the task's notes", func(t *testing.T) {
			is := is.New(t)
			nr := newTask(t, env, map[string]any{"customerNr": "1031", "taskText": "Årsservice värmepump"})
			notes := KeyPath("tasks", nr, "/notes")
			is.Equal(readChanges(t, env, notes), []change{}) // none yet

			Expect(t, env.Post(notes, map[string]any{"text": "Porten är låst, nyckel i receptionen"}), http.StatusOK)
			got := readChanges(t, env, notes)
			is.Equal(len(got), 1)
			is.Equal(got[0].Action, "note")
			is.Equal(got[0].Detail, "Porten är låst, nyckel i receptionen")
			signed(t, got)

			Expect(t, env.Post(notes, map[string]any{"text": "Nyckeln återlämnad"}), http.StatusOK)
			got = readChanges(t, env, notes)
			is.Equal(len(got), 2)
			is.Equal(got[0].Detail, "Nyckeln återlämnad") // newest first
			is.True(got[0].At >= got[1].At)
			is.Equal(readChanges(t, env, notes+"?limit=1"), got[:1]) // the newest

			// The notes are the note entries of the whole log.
			is.Equal(changesOf(t, env, "tasks", nr, "note"), got)
			is.Equal(actions(changesOf(t, env, "tasks", nr, "")), []string{"note", "note", "create"})
		})

		t.Run("writes and lines in the record's change log", func(t *testing.T) {
			is := is.New(t)
			nr := newTask(t, env, map[string]any{"customerNr": "1011", "userSigns": []string{"ANLI"},
				"materials": []any{map[string]any{"productNr": "4011", "quantity": 2}}})
			Expect(t, env.Patch(KeyPath("tasks", nr), map[string]any{"taskNote": "Ring innan", "actionText": "Byt filter"}), http.StatusOK)
			Expect(t, env.Post(KeyPath("tasks", nr, "/status"), map[string]any{"status": "Sent"}), http.StatusOK)
			added := env.Post(KeyPath("tasks", nr, "/times"), map[string]any{"timeType": "Normaltid", "hours": 2})
			Expect(t, added, http.StatusCreated)
			timeID := added.Object(t)["Id"].(string)

			got := changesOf(t, env, "tasks", nr, "")
			// Newest first; the entries of one write in the order the
			// engine wrote them: the create's own after its lines'.
			is.Equal(actions(got), []string{"create line", "status", "update", "create", "create line"})
			signed(t, got)
			is.True(strings.HasPrefix(got[0].Detail, "times "+timeID)) // the line list and the line's key
			is.Equal(got[1].Detail, "Planned → Sent")
			is.Equal(got[2].Detail, "TaskNote, ActionText") // the fields the PATCH sent
			is.True(strings.HasPrefix(got[4].Detail, "materials "))

			// The line's own log holds its create.
			is.Equal(actions(changesOf(t, env, "times", timeID, "")), []string{"create"})

			// action keeps one action's entries; limit the newest.
			is.Equal(changesOf(t, env, "tasks", nr, "status"), got[1:2])
			is.Equal(changesOf(t, env, "tasks", nr, "create line"), []change{got[0], got[4]})
			is.Equal(changesOf(t, env, "tasks", nr, "nothing like it"), []change{})
			is.Equal(readChanges(t, env, KeyPath("tasks", nr, "/changes?limit=2")), got[:2])
		})

		t.Run("a line's writes on its owner: contacts and order lines", func(t *testing.T) {
			is := is.New(t)
			resp := env.Post("/v1/customers", map[string]any{"name": "Ola Nordmann AS",
				"contacts": []any{map[string]any{"name": "Kari Nordmann", "email": "kari@example.no"}}})
			Expect(t, resp, http.StatusCreated)
			customer := resp.Object(t)["Nr"].(string)
			got := changesOf(t, env, "customers", customer, "")
			is.Equal(actions(got), []string{"create", "create line"})
			is.True(strings.HasPrefix(got[1].Detail, "contacts "))
			signed(t, got)

			order := env.Post("/v1/orders", map[string]any{"customerNr": "1003", "supplierNr": "204"})
			Expect(t, order, http.StatusCreated)
			orderNr := order.Object(t)["Nr"].(string)
			line := env.Post(KeyPath("orders", orderNr, "/lines"), map[string]any{"productNr": "4007", "quantity": 2})
			Expect(t, line, http.StatusCreated)
			lineID := line.Object(t)["id"].(string)
			Expect(t, env.Patch(KeyPath("orderlines", lineID), map[string]any{"price": 38500}), http.StatusOK)
			got = changesOf(t, env, "orders", orderNr, "")
			is.Equal(actions(got), []string{"update line", "create line", "create"})
			is.True(strings.HasPrefix(got[0].Detail, "lines "+lineID)) // names the line changed
			is.True(strings.Contains(got[0].Detail, "Price"))
			is.Equal(actions(changesOf(t, env, "orderlines", lineID, "")), []string{"update", "create"})
		})

		t.Run("unknown records and parameters", func(t *testing.T) {
			for _, path := range []string{KeyPath("tasks", "99999", "/changes"), KeyPath("tasks", "99999", "/notes"), KeyPath("customers", "NO-SUCH", "/changes")} {
				resp := env.Get(path)
				Expect(t, resp, http.StatusNotFound)
				is.New(t).Equal(resp.Problem(t).Title, "not_found")
			}
			nr := newTask(t, env, map[string]any{"customerNr": "1011"})
			for _, c := range []struct {
				query, param string
				valid        []string
			}{
				{"/changes?limit=0", "limit", nil},
				{"/changes?limit=many", "limit", nil},
				{"/changes?action=", "action", nil},
				{"/changes?page=2", "page", []string{"limit", "action"}},
				{"/notes?action=note", "action", []string{"limit"}}, // the notes are one action's already
				{"/notes?cursor=x", "cursor", []string{"limit"}},
			} {
				t.Run(c.query, func(t *testing.T) {
					is := is.New(t)
					resp := env.SkipRequestValidation().Get(KeyPath("tasks", nr, c.query)) // values and names the document does not allow
					Expect(t, resp, http.StatusBadRequest)
					p := resp.Problem(t)
					is.Equal(p.Title, "invalid_parameter")
					is.True(strings.Contains(p.Detail, `"`+c.param+`"`)) // names the parameter
					if c.valid != nil {
						is.Equal(p.ValidValues, c.valid)
					}
				})
			}
		})

		t.Run("every register with writes has its change log", func(t *testing.T) {
			for _, reg := range env.Catalog.Registers {
				if len(reg.Methods) == 0 {
					resp := env.Get("/v1/" + reg.Name + "/x/changes")
					Expect(t, resp, http.StatusNotFound) // read only: no such path
					continue
				}
				key, ok := env.FirstKey(reg.Name, env.Key)
				if !ok {
					continue
				}
				entries := readChanges(t, env, KeyPath(reg.Name, key, "/changes"))
				if !slices.IsSortedFunc(entries, func(a, b change) int { return strings.Compare(b.At, a.At) }) {
					t.Errorf("%s %s: entries not newest first: %v", reg.Name, key, entries)
				}
			}
		})
	})
}
