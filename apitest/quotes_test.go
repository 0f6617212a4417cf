package apitest

import (
	"net/http"
	"slices"
	"strconv"
	"testing"

	"github.com/matryer/is"

	"fieldapi/runtime"
)

func TestQuoteIsCreatedWithItsLines(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		is := is.New(t)
		env, _ := startAt(t, b, lateEvening)
		site := env.Get(KeyPath("objects1", "101"))
		Expect(t, site, http.StatusOK)

		resp := env.Post("/v1/quotes", map[string]any{
			"customerNr": "1001", "object1Nr": "101", "description": "Byte av värmepump",
			"materials": []any{map[string]any{"productNr": "4001", "quantity": 1, "price": 98500}},
			"times": []any{
				map[string]any{"timeType": "Normaltid", "hours": 16, "userSign": "ANLI"},
				map[string]any{"timeType": "Resa, km/dag", "hours": 60},
			},
		})
		Expect(t, resp, http.StatusCreated)
		q := resp.Object(t)
		nr := q["Nr"].(string)
		is.Equal(q["Status"], "Open")
		is.Equal(q["QuoteDate"], "2026-03-11")      // today in Europe/Stockholm
		is.Equal(q["ValidUntilDate"], "2026-04-10") // 30 days later
		is.Equal(q["CustomerName"], "Bergström Fastigheter AB")
		is.Equal(q["Object1Name"], site.Object(t)["Name"]) // resolved from the object
		is.Equal(q["CreatedBy"], "API")

		m := lineOf(t, q, "Materials", "4001")
		is.Equal(m["OwnerType"], "quote")
		is.Equal(m["OwnerNr"], nr)
		is.Equal(m["ProductName"], "Värmepump luft/vatten 12 kW")
		is.Equal(m["Unit"], "st")
		var timeTypes []string
		for _, line := range q["Times"].([]any) {
			tl := line.(map[string]any)
			is.Equal(tl["OwnerType"], "quote")
			is.Equal(tl["OwnerNr"], nr)
			timeTypes = append(timeTypes, tl["TimeType"].(string))
		}
		is.Equal(timeTypes, []string{"Normaltid", "Resa, km/dag"}) // whole names, in the order sent

		got := env.Get(KeyPath("quotes", nr))
		Expect(t, got, http.StatusOK)
		is.Equal(got.Object(t)["Times"], q["Times"])
		is.Equal(got.Object(t)["Object1Name"], q["Object1Name"])
	})
}

func TestQuoteDateDefaults(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		env, _ := startAt(t, b, lateEvening)
		cases := []struct {
			name                      string
			body                      map[string]any
			quoteDate, validUntilDate string
		}{
			{"both omitted", map[string]any{}, "2026-03-11", "2026-04-10"},
			{"quote date given", map[string]any{"quoteDate": "2026-01-15"}, "2026-01-15", "2026-02-14"},
			{"quote date and time given", map[string]any{"quoteDate": "2026-12-20T16:00:00+01:00"}, "2026-12-20T16:00:00+01:00", "2027-01-19"},
			{"validity given", map[string]any{"validUntilDate": "2026-06-30"}, "2026-03-11", "2026-06-30"},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				is := is.New(t)
				tc.body["customerNr"] = "1002"
				resp := env.Post("/v1/quotes", tc.body)
				Expect(t, resp, http.StatusCreated)
				q := resp.Object(t)
				is.Equal(q["QuoteDate"], tc.quoteDate)
				is.Equal(q["ValidUntilDate"], tc.validUntilDate)
			})
		}
	})
}

func TestQuoteWithARejectedLineLeavesNothing(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		env := Start(t, b, runtime.Config{})
		counts := func() [3]int {
			return [3]int{env.count(t, "/v1/quotes"), env.count(t, "/v1/times?ownerType=quote"), env.count(t, "/v1/materials?ownerType=quote")}
		}
		first := env.Post("/v1/quotes", map[string]any{"customerNr": "1003"})
		Expect(t, first, http.StatusCreated)
		nr, err := strconv.Atoi(first.Object(t)["Nr"].(string))
		if err != nil {
			t.Fatal(err)
		}
		before := counts()
		good := map[string]any{"productNr": "4010", "quantity": 2}

		cases := []struct {
			name      string
			body      map[string]any
			detail    string
			timeTypes bool // validValues lists the company's time types
		}{
			{"unknown time type", map[string]any{
				"materials": []any{good},
				"times":     []any{map[string]any{"timeType": "Normaltid", "hours": 2}, map[string]any{"timeType": "Normaltid, kväll", "hours": 2}},
			}, `times[1]: TimeType "Normaltid, kväll" does not exist`, true},
			{"unknown product", map[string]any{
				"materials": []any{good, map[string]any{"productNr": "NOPE", "quantity": 1}},
				"times":     []any{map[string]any{"timeType": "Normaltid", "hours": 2}},
			}, `materials[1]: Product "NOPE" does not exist`, false},
			{"unknown user on a line", map[string]any{
				"times": []any{map[string]any{"timeType": "Normaltid", "hours": 2, "userSign": "NOBODY"}},
			}, `times[0]: User "NOBODY" does not exist`, false},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				is := is.New(t)
				tc.body["customerNr"] = "1003"
				resp := env.Post("/v1/quotes", tc.body)
				is.Equal(resp.Status, http.StatusUnprocessableEntity)
				p := resp.Problem(t)
				is.Equal(p.Detail, tc.detail)
				if tc.timeTypes {
					is.True(slices.Contains(p.ValidValues, "Resa, km/dag"))            // whole names, commas kept
					is.True(slices.Contains(p.ValidValues, "Utbildning/kurs, intern")) // and slashes
					is.True(!slices.Contains(p.ValidValues, "Gammal restidstaxa"))     // archived
				}
				is.Equal(counts(), before) // no quote, no line
			})
		}

		is := is.New(t)
		next := env.Post("/v1/quotes", map[string]any{"customerNr": "1003"})
		Expect(t, next, http.StatusCreated)
		env.NextNumber(t, next.Object(t)["Nr"].(string), nr) // no number was used up

		missing := env.SkipRequestValidation().Post("/v1/quotes", map[string]any{"description": "for nobody"})
		is.Equal(missing.Status, http.StatusBadRequest)
		is.Equal(missing.Problem(t).Title, "missing_field")
	})
}

func TestQuoteStatusIsNotChangedByPatch(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		is := is.New(t)
		env := Start(t, b, runtime.Config{})
		nr := "20003" // a demo quote, accepted
		before := env.Get(KeyPath("quotes", nr))
		Expect(t, before, http.StatusOK)
		is.Equal(before.Object(t)["Status"], "Accepted")

		refused := env.SkipRequestValidation().Patch(KeyPath("quotes", nr), map[string]any{"status": "Open"})
		is.Equal(refused.Status, http.StatusBadRequest)
		is.Equal(refused.Problem(t).Title, "read_only_field")

		patched := env.Patch(KeyPath("quotes", nr), map[string]any{"description": "Laddboxar i garaget, etapp 2", "quoteDate": "2025-05-02"})
		Expect(t, patched, http.StatusOK)
		q := patched.Object(t)
		is.Equal(q["Status"], "Accepted")
		is.Equal(q["Description"], "Laddboxar i garaget, etapp 2")
		is.Equal(q["ValidUntilDate"], before.Object(t)["ValidUntilDate"]) // a PATCH never recomputes the validity
	})
}

func TestContractCarriesLines(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		is := is.New(t)
		env := Start(t, b, runtime.Config{})
		resp := env.Post("/v1/contracts", map[string]any{
			"customerNr": "1004", "startDate": "2026-01-01",
			"materials": []any{map[string]any{"productNr": "4006", "quantity": 4}},
			"times":     []any{map[string]any{"timeType": "Normaltid", "hours": 3}},
		})
		Expect(t, resp, http.StatusCreated)
		c := resp.Object(t)
		nr := c["Nr"].(string)
		is.Equal(len(c["Materials"].([]any)), 1)
		is.Equal(len(c["Times"].([]any)), 1)

		for _, register := range []string{"times", "materials"} {
			items := env.page(t, "/v1/"+register+"?ownerType=contract&ownerNr="+nr).Items
			is.Equal(len(items), 1)
			is.Equal(items[0]["OwnerType"], "contract")
			is.Equal(items[0]["OwnerNr"], nr)
		}

		rejected := env.Post("/v1/contracts", map[string]any{
			"customerNr": "1004",
			"times":      []any{map[string]any{"timeType": "Normaltid", "hours": 3}, map[string]any{"timeType": "Nattjour", "hours": 1}},
		})
		is.Equal(rejected.Status, http.StatusUnprocessableEntity)
		is.Equal(rejected.Problem(t).Detail, `times[1]: TimeType "Nattjour" does not exist`)
		is.Equal(env.count(t, "/v1/contracts?customerNr=1004"), 1)
	})
}
