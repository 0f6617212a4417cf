package sqlengine

import (
	"context"
	"testing"
	"time"

	"github.com/matryer/is"

	"fieldapi/engine"
	"fieldapi/engine/rules"
)

// rowCounts counts what a create of an order or quote may leave behind.
func rowCounts(t *testing.T, e testEngine, register string) [4]int {
	t.Helper()
	var next int
	if err := get(context.Background(), e.db, &next, `SELECT COALESCE(MAX("next"), 0) FROM "number_series" WHERE "company" = 'demo' AND "register" = ?`, register); err != nil {
		t.Fatal(err)
	}
	lines := count(t, e, "orderlines", "") + count(t, e, "times", "") + count(t, e, "materials", "")
	return [4]int{count(t, e, register, ""), lines, count(t, e, "change_log", ""), next}
}

func TestRejectedLinesLeaveNothing(t *testing.T) {
	eachEngine(t, func(t *testing.T, e testEngine) {
		ctx := context.Background()
		cases := []struct {
			register, list string
			lines          []engine.Input
			detail         string
		}{
			{"orders", "lines", []engine.Input{
				input(map[string]any{"ProductNr": "4001", "Quantity": 1.0}),
				input(map[string]any{"ProductNr": "4002", "Quantity": 1.0, "DiscountPct": -1.0}),
			}, "lines[1]: DiscountPct must be from 0 to 100, not -1"},
			{"quotes", "times", []engine.Input{
				input(map[string]any{"TimeType": "Normaltid", "Hours": 1.0}),
				input(map[string]any{"TimeType": "Normaltid", "Hours": 1.0, "Date": "2025-06-02", "StopDate": "2025-06-01"}),
			}, "times[1]: StopDate 2025-06-01 is before Date 2025-06-02"},
		}
		for _, tc := range cases {
			t.Run(tc.register, func(t *testing.T) {
				is := is.New(t)
				before := rowCounts(t, e, tc.register)
				in := input(map[string]any{"CustomerNr": "1001"})
				in.Lines = map[string][]engine.Input{tc.list: tc.lines}
				_, err := e.Create(ctx, demoAPI, tc.register, in, asJSON(zeroClaim))
				is.Equal(commandError(t, err).Detail, tc.detail)
				is.Equal(rowCounts(t, e, tc.register), before) // no record, line, log row or number
			})
		}
	})
}

func TestLinesAreLoggedOnTheirOwner(t *testing.T) {
	eachEngine(t, func(t *testing.T, e testEngine) {
		is := is.New(t)
		ctx := context.Background()
		logged := func(register, key, action string) int {
			return count(t, e, "change_log", `"register" = ? AND "record_key" = ? AND "action" = ?`, register, key, action)
		}

		in := input(map[string]any{"CustomerNr": "1001"})
		in.AddLine("lines", input(map[string]any{"ProductNr": "4001", "Quantity": 1.0}))
		resp, err := e.Create(ctx, demoAPI, "orders", in, asJSON(zeroClaim))
		is.NoErr(err)
		order := decoded(t, resp)
		nr := order["Nr"].(string)
		lineID := order["Lines"].([]any)[0].(map[string]any)["Id"].(string)
		is.Equal(logged("orders", nr, "create"), 1)
		is.Equal(logged("orders", nr, "create line"), 1)

		_, err = e.Update(ctx, demoAPI, "orderlines", lineID, input(map[string]any{"Price": 10.0}), asJSON(zeroClaim))
		is.NoErr(err)
		is.Equal(logged("orderlines", lineID, "update"), 1)
		is.Equal(logged("orders", nr, "update line"), 1)

		// A time on a quote is logged on the quote, not on a task with that number.
		quoteTimes, err := e.List(ctx, demoAPI, "times", engine.Query{Limit: 1, Where: []engine.Condition{{Field: "OwnerType", Op: engine.OpEquals, Values: []any{"quote"}}}})
		is.NoErr(err)
		qt := quoteTimes.Records[0]
		_, err = e.Update(ctx, demoAPI, "times", qt["Id"].(string), input(map[string]any{"Hours": 7.0}), asJSON(zeroClaim))
		is.NoErr(err)
		is.Equal(logged("quotes", qt["OwnerNr"].(string), "update line"), 1)
		is.Equal(logged("tasks", qt["OwnerNr"].(string), "update line"), 0)

		// A standalone entry has no owner: logged on itself only.
		before := count(t, e, "change_log", "")
		resp, err = e.Create(ctx, demoAPI, "times", input(map[string]any{"TimeType": "Semester", "UserSign": "ANLI", "Date": "2025-08-04", "Hours": 5.0}), asJSON(zeroClaim))
		is.NoErr(err)
		id := decoded(t, resp)["Id"].(string)
		_, err = e.Update(ctx, demoAPI, "times", id, input(map[string]any{"StopDate": "2025-08-09T00:00:00"}), asJSON(zeroClaim))
		is.NoErr(err)
		is.Equal(count(t, e, "change_log", ""), before+2)
		is.Equal(count(t, e, "change_log", `"register" = 'times' AND "record_key" = ?`, id), 2)
	})
}

func TestCompanyCalendarSettings(t *testing.T) {
	eachEngine(t, func(t *testing.T, e testEngine) {
		is := is.New(t)
		ctx := context.Background()
		_, err := exec(ctx, e.db, `INSERT INTO "settings" ("company", "name", "value") VALUES ('demo', ?, '14')`, rules.QuoteValiditySetting)
		is.NoErr(err)
		_, err = exec(ctx, e.db, `DELETE FROM "settings" WHERE "company" = 'demo2' AND "name" = ?`, settingTimeZone)
		is.NoErr(err)
		e.clock.Advance(15*time.Hour + 30*time.Minute) // 2025-06-02 23:30 UTC: the 3rd in Stockholm

		quote := func(s engine.Session) map[string]any {
			resp, err := e.Create(ctx, s, "quotes", input(map[string]any{"CustomerNr": "1001"}), asJSON(zeroClaim))
			is.NoErr(err)
			return decoded(t, resp)
		}
		demo := quote(demoAPI)
		is.Equal(demo["QuoteDate"], "2025-06-03") // Europe/Stockholm
		is.Equal(demo["ValidUntilDate"], "2025-06-17")
		demo2 := quote(demo2API)
		is.Equal(demo2["QuoteDate"], "2025-06-02") // no time zone set: UTC
		is.Equal(demo2["ValidUntilDate"], "2025-07-02")
	})
}
