package apitest

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"fieldapi/runtime"
)

// ids are the Ids of list items.
func ids(items []map[string]any) []string {
	out := []string{}
	for _, item := range items {
		out = append(out, item["Id"].(string))
	}
	return out
}

// demoBookingTypes are demo's time types with BookingType true, whole.
var demoBookingTypes = []string{"Semester", "Sjukfrånvaro", "Utbildning/kurs, intern"}

func TestStandaloneEntryIsStoredAsSent(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		is := is.New(t)
		env := Start(t, b, runtime.Config{})
		before := env.count(t, "/v1/times?ownerType=none")

		// An all-day absence of three weeks: the stop is midnight after
		// the last day, sent so by the client; 15 working days.
		resp := env.Post("/v1/times", map[string]any{
			"timeType": "Semester", "userSign": "ANLI", "spec": "Sommar",
			"date": "2031-07-07T00:00:00", "stopDate": "2031-07-26T00:00:00", "hours": 15,
		})
		Expect(t, resp, http.StatusCreated)
		entry := resp.Object(t)
		is.Equal(entry["OwnerNr"], nil)
		is.Equal(entry["OwnerType"], nil)
		is.Equal(entry["Date"], "2031-07-07T00:00:00")
		is.Equal(entry["StopDate"], "2031-07-26T00:00:00")           // verbatim: not moved to the last day
		is.Equal(entry["Hours"], 15.0)                               // as sent, not derived from the dates
		is.Equal(env.count(t, "/v1/times?ownerType=none"), before+1) // one entry for the whole span
		id := entry["Id"].(string)

		got := env.Get(KeyPath("times", id))
		Expect(t, got, http.StatusOK)
		is.Equal(got.Object(t), entry)

		// PATCH changes the entry, stopDate included, still verbatim.
		patched := env.Patch(KeyPath("times", id), map[string]any{"stopDate": "2031-07-28T00:00:00+02:00", "hours": 16})
		Expect(t, patched, http.StatusOK)
		p := patched.Object(t)
		is.Equal(p["StopDate"], "2031-07-28T00:00:00+02:00")
		is.Equal(p["Hours"], 16.0)
		is.Equal(p["Date"], "2031-07-07T00:00:00")

		minutes := env.Post("/v1/times", map[string]any{"timeType": "Utbildning/kurs, intern", "userSign": "ERJO", "date": "2031-02-10T08:00Z", "stopDate": "2031-02-10T11:30Z", "hours": 2})
		Expect(t, minutes, http.StatusCreated)
		is.Equal(minutes.Object(t)["StopDate"], "2031-02-10T11:30Z")
		is.Equal(minutes.Object(t)["Hours"], 2.0) // not the 3.5 hours between the clock times
	})
}

func TestStandaloneEntryRules(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		env := Start(t, b, runtime.Config{})
		cases := []struct {
			name   string
			body   map[string]any
			status int
			title  string
			detail string
		}{
			{"ownerNr is read only", map[string]any{"timeType": "Normaltid", "userSign": "ANLI", "date": "2024-01-02", "hours": 1, "ownerNr": "1"}, 400, "read_only_field", `field "ownerNr" is read only`},
			{"ownerType is read only", map[string]any{"timeType": "Normaltid", "userSign": "ANLI", "date": "2024-01-02", "hours": 1, "ownerType": "task"}, 400, "read_only_field", `field "ownerType" is read only`},
			{"no date", map[string]any{"timeType": "Semester", "userSign": "ANLI", "hours": 1}, 422, "command_failed", "Date is required for a standalone entry (a booking or absence in a user's calendar)"},
			{"no user", map[string]any{"timeType": "Semester", "date": "2024-01-02", "hours": 1}, 422, "command_failed", "UserSign is required for a standalone entry (a booking or absence in a user's calendar)"},
			{"stops before it starts", map[string]any{"timeType": "Semester", "userSign": "ANLI", "date": "2024-01-02", "stopDate": "2024-01-01T23:00:00", "hours": 1}, 422, "command_failed", "StopDate 2024-01-01T23:00:00 is before Date 2024-01-02"},
			{"unknown user", map[string]any{"timeType": "Semester", "userSign": "NOBODY", "date": "2024-01-02", "hours": 1}, 422, "command_failed", `User "NOBODY" does not exist`},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				is := is.New(t)
				before := env.count(t, "/v1/times?ownerType=none")
				sender := env
				if tc.status == http.StatusBadRequest {
					sender = env.SkipRequestValidation() // a body the document does not allow
				}
				resp := sender.Post("/v1/times", tc.body)
				is.Equal(resp.Status, tc.status)
				p := resp.Problem(t)
				is.Equal(p.Title, tc.title)
				is.True(strings.HasPrefix(p.Detail, tc.detail)) // the engine's (or the shape's) text
				is.Equal(env.count(t, "/v1/times?ownerType=none"), before)
			})
		}

		t.Run("unknown time type lists the company's, whole", func(t *testing.T) {
			is := is.New(t)
			resp := env.Post("/v1/times", map[string]any{"timeType": "Resa", "userSign": "ANLI", "date": "2024-01-02", "hours": 1})
			is.Equal(resp.Status, http.StatusUnprocessableEntity)
			p := resp.Problem(t)
			is.Equal(p.Detail, `TimeType "Resa" does not exist`)
			var listed []string
			for _, tt := range env.page(t, "/v1/timetypes").Items { // not archived
				listed = append(listed, tt["Name"].(string))
			}
			slices.Sort(listed)
			valid := slices.Clone(p.ValidValues)
			slices.Sort(valid)
			is.Equal(valid, listed)
			is.True(slices.Contains(p.ValidValues, "Resa, km/dag")) // the comma is kept
		})
	})
}

// TestBookingTypeRuleAtMidnight books either side of midnight in the
// company's time zone (demo: Europe/Stockholm, UTC+1 in March): from
// tomorrow on, a standalone entry needs a booking time type.
func TestBookingTypeRuleAtMidnight(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		beforeMidnight := time.Date(2026, 3, 10, 22, 59, 0, 0, time.UTC) // 23:59 on 10 March in Stockholm
		afterMidnight := time.Date(2026, 3, 10, 23, 1, 0, 0, time.UTC)   // 00:01 on 11 March in Stockholm, still the 10th in UTC
		env, clock := startAt(t, b, beforeMidnight)
		book := func(timeType, date string) Response {
			return env.Post("/v1/times", map[string]any{"timeType": timeType, "userSign": "MASV", "date": date, "hours": 8})
		}
		refused := func(t *testing.T, resp Response) {
			is := is.New(t)
			is.Equal(resp.Status, http.StatusUnprocessableEntity)
			p := resp.Problem(t)
			is.Equal(p.Title, "command_failed")
			is.Equal(p.ValidValues, demoBookingTypes)
		}

		t.Run("before midnight", func(t *testing.T) {
			clock.Set(beforeMidnight)
			refused(t, book("Normaltid", "2026-03-11"))               // tomorrow
			refused(t, book("Normaltid", "2026-03-11T00:00:00"))      // tomorrow's first minute
			refused(t, book("Normaltid", "2026-03-10T23:30:00Z"))     // 00:30 tomorrow in Stockholm
			Expect(t, book("Normaltid", "2026-03-10T23:00:00"), 201)  // today
			Expect(t, book("Normaltid", "2026-03-10T21:00:00Z"), 201) // today, 22:00 in Stockholm
			Expect(t, book("Övertid 50%", "2025-12-24"), 201)         // the past
			Expect(t, book("Semester", "2026-03-11"), 201)            // a booking type
			Expect(t, book("Utbildning/kurs, intern", "2027-01-04T08:00:00"), 201)
		})
		t.Run("after midnight", func(t *testing.T) {
			clock.Set(afterMidnight)
			Expect(t, book("Normaltid", "2026-03-11"), 201) // now today
			refused(t, book("Normaltid", "2026-03-12"))
		})
		t.Run("a patch into the future", func(t *testing.T) {
			is := is.New(t)
			clock.Set(afterMidnight)
			created := book("Normaltid", "2026-03-09")
			Expect(t, created, http.StatusCreated)
			path := KeyPath("times", created.Object(t)["Id"].(string))
			refused(t, env.Patch(path, map[string]any{"date": "2026-03-20"}))
			moved := env.Patch(path, map[string]any{"date": "2026-03-20", "timeType": "Semester"})
			Expect(t, moved, http.StatusOK)
			is.Equal(moved.Object(t)["TimeType"], "Semester")
		})
	})
}

func TestOwnerFilters(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		env := Start(t, b, runtime.Config{})
		quote := env.Post("/v1/quotes", map[string]any{
			"customerNr": "1002",
			"materials": []any{
				map[string]any{"productNr": "4005", "quantity": 4, "invoice": true},
				map[string]any{"productNr": "4009", "quantity": 2},
			},
			"times": []any{
				map[string]any{"timeType": "Normaltid", "hours": 3, "userSign": "ERJO", "invoice": true},
				map[string]any{"timeType": "Resa, km/dag", "hours": 42},
			},
		})
		Expect(t, quote, http.StatusCreated)
		q := quote.Object(t)
		nr := q["Nr"].(string)
		quoteTimes := ids(env.page(t, "/v1/times?ownerType=quote&ownerNr="+nr).Items)
		quoteMaterials := ids(env.page(t, "/v1/materials?ownerType=quote&ownerNr="+nr).Items)
		standalone := env.Post("/v1/times", map[string]any{"timeType": "Sjukfrånvaro", "userSign": "ERJO", "date": "2025-02-03", "hours": 1})
		Expect(t, standalone, http.StatusCreated)
		standaloneID := standalone.Object(t)["Id"].(string)

		t.Run("owner type and number", func(t *testing.T) {
			is := is.New(t)
			is.Equal(len(quoteTimes), 2)
			is.Equal(len(quoteMaterials), 2)
			for _, item := range env.page(t, "/v1/times?ownerType=quote&ownerNr="+nr).Items {
				is.Equal(item["OwnerType"], "quote")
				is.Equal(item["OwnerNr"], nr)
			}
			is.Equal(ids(env.page(t, "/v1/times?ownerType=quote&ownerNr="+nr+"&invoice=true").Items), quoteTimes[1:]) // newest first: Normaltid is older
			is.Equal(ids(env.page(t, "/v1/materials?ownerType=quote&ownerNr="+nr+"&productNr=4009").Items), quoteMaterials[:1])
			is.Equal(len(env.page(t, "/v1/times?ownerType=order").Items), 0) // a known owner type with no time lines
		})
		t.Run("both omitted: tasks", func(t *testing.T) {
			is := is.New(t)
			notListed := map[string][]string{ // by list: lines that are not a task's
				"/v1/times?limit=500":               append(slices.Clone(quoteTimes), standaloneID),
				"/v1/times?limit=500&ownerNr=" + nr: quoteTimes,
				"/v1/materials?limit=500":           quoteMaterials,
			}
			for list, others := range notListed {
				items := env.page(t, list).Items
				for _, item := range items {
					is.Equal(item["OwnerType"], "task")
				}
				for _, id := range others {
					is.True(!slices.Contains(ids(items), id)) // no quote line, no standalone entry
				}
			}
		})
		t.Run("none: standalone entries", func(t *testing.T) {
			is := is.New(t)
			items := env.page(t, "/v1/times?ownerType=none&userSign=ERJO&limit=500").Items
			is.True(slices.Contains(ids(items), standaloneID))
			is.True(len(items) > 1) // the demo's bookings of ERJO too
			for _, item := range items {
				is.Equal(item["OwnerNr"], nil)
				is.Equal(item["OwnerType"], nil)
				is.Equal(item["UserSign"], "ERJO")
			}
		})
		t.Run("contract lines", func(t *testing.T) {
			is := is.New(t)
			for _, register := range []string{"times", "materials"} {
				items := env.page(t, "/v1/"+register+"?ownerType=contract&ownerNr=7001").Items
				is.Equal(len(items), 1) // the demo's yearly service
				is.Equal(items[0]["OwnerType"], "contract")
			}
		})
		t.Run("unknown owner type", func(t *testing.T) {
			is := is.New(t)
			resp := env.Get("/v1/materials?ownerType=invoice")
			is.Equal(resp.Status, http.StatusUnprocessableEntity)
			p := resp.Problem(t)
			is.Equal(p.Detail, `ownerType "invoice" is not an owner type`)
			is.Equal(p.ValidValues, []string{"task", "quote", "order", "contract", "none"})
		})
	})
}

func TestLinesArePatchedOnAnyOwner(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		is := is.New(t)
		env := Start(t, b, runtime.Config{})
		contractTime := env.page(t, "/v1/times?ownerType=contract&ownerNr=7002").Items[0]
		patched := env.Patch(KeyPath("times", contractTime["Id"].(string)), map[string]any{"hours": 6.5, "stopDate": "2025-04-01T15:30:00"})
		Expect(t, patched, http.StatusOK)
		p := patched.Object(t)
		is.Equal(p["Hours"], 6.5)
		is.Equal(p["StopDate"], "2025-04-01T15:30:00")
		is.Equal(p["OwnerNr"], "7002") // still the contract's

		quoteMaterial := env.page(t, "/v1/materials?ownerType=quote").Items[0]
		patched = env.Patch(KeyPath("materials", quoteMaterial["Id"].(string)), map[string]any{"quantity": 9, "invoice": true})
		Expect(t, patched, http.StatusOK)
		is.Equal(patched.Object(t)["Quantity"], 9.0)
		is.Equal(patched.Object(t)["OwnerType"], "quote")

		owner := env.SkipRequestValidation().Patch(KeyPath("materials", quoteMaterial["Id"].(string)), map[string]any{"ownerNr": "1"})
		is.Equal(owner.Status, http.StatusBadRequest)
		is.Equal(owner.Problem(t).Title, "read_only_field")

		// Another company's entry is not found.
		theirs := env.Do(Request{Method: http.MethodGet, Path: "/v1/times?ownerType=none&limit=1", Key: env.OtherKey})
		Expect(t, theirs, http.StatusOK)
		var list page
		theirs.JSON(t, &list)
		id := list.Items[0]["Id"].(string)
		is.Equal(env.Get(KeyPath("times", id)).Status, http.StatusNotFound)
		is.Equal(env.Patch(KeyPath("times", id), map[string]any{"hours": 1}).Status, http.StatusNotFound)
	})
}

func TestPostMaterialsIsNotOffered(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		is := is.New(t)
		env := Start(t, b, runtime.Config{})
		resp := env.Post("/v1/materials", map[string]any{"productNr": "4001", "quantity": 1})
		is.Equal(resp.Status, http.StatusMethodNotAllowed)
		is.Equal(resp.Problem(t).Title, "method_not_allowed")
	})
}
