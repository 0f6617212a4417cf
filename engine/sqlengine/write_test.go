package sqlengine

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"

	"fieldapi/engine"
)

func TestNumberSeries(t *testing.T) {
	eachEngine(t, func(t *testing.T, e testEngine) {
		is := is.New(t)
		ctx := context.Background()
		create := func(values map[string]any) (map[string]any, error) {
			resp, err := e.Create(ctx, demoAPI, "customers", input(values), asJSON(zeroClaim))
			if err != nil {
				return nil, err
			}
			return decoded(t, resp), nil
		}

		// The demo keys end at 1060; the series continues after them.
		first, err := create(map[string]any{"Name": "Numrerad Kund AB"})
		is.NoErr(err)
		is.Equal(first["Nr"], "1061")
		is.Equal(first["Status"], "Active") // the register's default

		// A key given by hand is kept, and the series skips it later.
		manual, err := create(map[string]any{"Nr": "1062", "Name": "Handnumrerad AB"})
		is.NoErr(err)
		is.Equal(manual["Nr"], "1062")
		next, err := create(map[string]any{"Name": "Nästa Kund AB"})
		is.NoErr(err)
		is.Equal(next["Nr"], "1063")

		// A key that is taken is refused with the engine's text.
		_, err = create(map[string]any{"Nr": "1001", "Name": "Dubblett AB"})
		is.Equal(commandError(t, err).Detail, "Customer Nr 1001 already exists")

		// A rolled-back create gives its number back.
		_, err = create(map[string]any{"Name": "Återställd AB", "Category": 5.0})
		commandError(t, err)
		afterRollback, err := create(map[string]any{"Name": "Efter återställning AB"})
		is.NoErr(err)
		is.Equal(afterRollback["Nr"], "1064")

		// Series are per company: demo2 numbers its own customers.
		resp, err := e.Create(ctx, demo2API, "customers", input(map[string]any{"Name": "Ny Kunde AS"}), asJSON(zeroClaim))
		is.NoErr(err)
		is.Equal(decoded(t, resp)["Nr"], "5021")
	})
}

// TestNumberSeriesUnderConcurrency creates customers in parallel: every
// number is handed out once, with no gaps.
func TestNumberSeriesUnderConcurrency(t *testing.T) {
	eachEngine(t, func(t *testing.T, e testEngine) {
		is := is.New(t)
		const n = 20
		var wg sync.WaitGroup
		nrs := make([]string, n)
		errs := make([]error, n)
		for i := range n {
			wg.Go(func() {
				resp, err := e.Create(context.Background(), demoAPI, "customers",
					input(map[string]any{"Name": fmt.Sprintf("Parallell %d AB", i)}), asJSON(zeroClaim))
				errs[i] = err
				if err == nil {
					nrs[i] = decoded(t, resp)["Nr"].(string)
				}
			})
		}
		wg.Wait()
		for _, err := range errs {
			is.NoErr(err)
		}
		sort.Strings(nrs)
		for i, nr := range nrs {
			is.Equal(nr, strconv.Itoa(1061+i))
		}
	})
}

func TestReferencesAndLookups(t *testing.T) {
	eachEngine(t, func(t *testing.T, e testEngine) {
		is := is.New(t)
		ctx := context.Background()
		create := func(s engine.Session, values map[string]any) (map[string]any, error) {
			resp, err := e.Create(ctx, s, "projects", input(values), asJSON(zeroClaim))
			if err != nil {
				return nil, err
			}
			return decoded(t, resp), nil
		}
		refusals := []struct {
			name   string
			values map[string]any
			detail string
		}{
			{"unknown customer", map[string]any{"Name": "X", "CustomerNr": "9999"}, `Customer "9999" does not exist`},
			{"other company's customer", map[string]any{"Name": "X", "CustomerNr": "5001"}, `Customer "5001" does not exist`},
			{"unknown signature", map[string]any{"Name": "X", "Owner": "NOPE"}, `User "NOPE" does not exist`},
			{"unknown object", map[string]any{"Name": "X", "Object2Nr": "999"}, `Object2 "999" does not exist`},
		}
		for _, r := range refusals {
			_, err := create(demoAPI, r.values)
			is.Equal(commandError(t, err).Detail, r.detail) // r.name
		}

		p, err := create(demoAPI, map[string]any{"Name": "Ny värmeanläggning", "CustomerNr": "1001", "Owner": "ANLI", "Object1Nr": "101"})
		is.NoErr(err)
		customer, err := e.Get(ctx, demoAPI, "customers", "1001")
		is.NoErr(err)
		is.Equal(p["CustomerName"], customer["Name"]) // looked up from the customer
		object, err := e.Get(ctx, demoAPI, "objects1", "101")
		is.NoErr(err)
		is.Equal(p["Object1Name"], object["Name"])

		// The same customer number in demo2 is another customer.
		p2, err := create(demo2API, map[string]any{"Name": "Nytt prosjekt", "CustomerNr": "1001"})
		is.NoErr(err)
		is.Equal(p2["CustomerName"], "Bryggen Kontorsenter AS")

		// Changing the reference changes the lookup; clearing clears it.
		nr := p["Nr"].(string)
		resp, err := e.Update(ctx, demoAPI, "projects", nr, input(map[string]any{"CustomerNr": "1002"}), asJSON(zeroClaim))
		is.NoErr(err)
		is.Equal(decoded(t, resp)["CustomerName"], "Lindgren Fastigheter AB")
		resp, err = e.Update(ctx, demoAPI, "projects", nr, input(map[string]any{"CustomerNr": ""}), asJSON(zeroClaim))
		is.NoErr(err)
		is.Equal(decoded(t, resp)["CustomerName"], nil)
		_, err = e.Update(ctx, demoAPI, "projects", nr, input(map[string]any{"Owner": "NOPE"}), asJSON(zeroClaim))
		is.Equal(commandError(t, err).Detail, `User "NOPE" does not exist`)
	})
}

func TestRequiredAndRequireOneOf(t *testing.T) {
	eachEngine(t, func(t *testing.T, e testEngine) {
		is := is.New(t)
		ctx := context.Background()
		_, err := e.Create(ctx, demoAPI, "contacts", input(map[string]any{"Name": "Utan kund"}), asJSON(zeroClaim))
		is.Equal(commandError(t, err).Detail, "CustomerNr is required")

		_, err = e.Create(ctx, demoAPI, "addresses", input(map[string]any{"Name": "Utan ägare"}), asJSON(zeroClaim))
		ce := commandError(t, err)
		is.Equal(ce.Detail, "one of CustomerNr, SupplierNr, ObjectNr is required")
		is.Equal(ce.ValidValues, []string{"CustomerNr", "SupplierNr", "ObjectNr"})

		resp, err := e.Create(ctx, demoAPI, "addresses", input(map[string]any{"Name": "Lager", "SupplierNr": "201", "Level": 2.0}), asJSON(zeroClaim))
		is.NoErr(err)
		rec := decoded(t, resp)
		is.Equal(rec["SupplierNr"], "201")
		is.Equal(rec["Level"], 2.0)
		_, err = strconv.Atoi(rec["Id"].(string)) // engine-assigned Id
		is.NoErr(err)

		// A field the register does not let the API write is refused.
		_, err = e.Create(ctx, demoAPI, "customers", input(map[string]any{"Name": "X", "Status": "Passive"}), asJSON(zeroClaim))
		is.Equal(commandError(t, err).Detail, "Status is read only")
		// PostgreSQL cannot store NUL characters; both dialects refuse them alike.
		_, err = e.Create(ctx, demoAPI, "customers", input(map[string]any{"Name": "Noll\x00tecken AB"}), asJSON(zeroClaim))
		is.Equal(commandError(t, err).Detail, "Name: text may not contain NUL characters")
		// Read-only registers take no writes at all.
		_, err = e.Create(ctx, demoAPI, "users", input(map[string]any{"Sign": "NEW"}), asJSON(zeroClaim))
		commandError(t, err)
	})
}

func TestLinesAreAllOrNothing(t *testing.T) {
	eachEngine(t, func(t *testing.T, e testEngine) {
		is := is.New(t)
		ctx := context.Background()
		rows := func() [4]int {
			var next int
			is.NoErr(get(ctx, e.db, &next, `SELECT "next" FROM "number_series" WHERE "company" = 'demo' AND "register" = 'customers'`))
			return [4]int{count(t, e, "customers", ""), count(t, e, "contacts", ""), count(t, e, "change_log", ""), next}
		}
		before := rows()

		in := input(map[string]any{"Name": "Rad för rad AB"})
		in.Lines = map[string][]engine.Input{"contacts": {
			input(map[string]any{"Name": "Första Kontakt"}),
			input(map[string]any{"Name": "Andra Kontakt", "MostImportant": "ja"}),
		}}
		_, err := e.Create(ctx, demoAPI, "customers", in, asJSON(zeroClaim))
		is.Equal(commandError(t, err).Detail, "contacts[1]: MostImportant: expected bool, got string")
		is.Equal(rows(), before) // nothing left behind, the number not used

		in.Lines["contacts"][1] = input(map[string]any{"Name": "Andra Kontakt", "MostImportant": true})
		resp, err := e.Create(ctx, demoAPI, "customers", in, asJSON(zeroClaim))
		is.NoErr(err)
		rec := decoded(t, resp)
		is.Equal(rec["Nr"], "1061")
		contacts := rec["Contacts"].([]any)
		is.Equal(len(contacts), 2)
		for _, c := range contacts {
			is.Equal(c.(map[string]any)["CustomerNr"], "1061") // the parent's key
			is.Equal(c.(map[string]any)["Status"], "Active")   // the line register's default
		}

		// Logged on the customer, on each contact, and on the customer for each line.
		is.Equal(count(t, e, "change_log", `"register" = 'customers' AND "record_key" = '1061'`), 3)
		is.Equal(count(t, e, "change_log", `"register" = 'contacts'`), 2)
		is.Equal(count(t, e, "change_log", `"sign" = 'API' AND "via_api" = ? AND "client_id" = 'test'`, true), 5)
	})
}

func TestUpdate(t *testing.T) {
	eachEngine(t, func(t *testing.T, e testEngine) {
		is := is.New(t)
		ctx := context.Background()
		before, err := e.Get(ctx, demoAPI, "customers", "1001")
		is.NoErr(err)
		e.clock.Advance(time.Hour)

		resp, err := e.Update(ctx, demoAPI, "customers", "1001", input(map[string]any{"Phone": "+46 8 000 00 00", "Note": ""}), asJSON(zeroClaim))
		is.NoErr(err)
		after := decoded(t, resp)
		is.Equal(after["Phone"], "+46 8 000 00 00")
		is.Equal(after["Note"], "")             // "" clears to empty text
		is.Equal(after["Name"], before["Name"]) // untouched
		is.Equal(after["Modified"], "2025-06-02T09:00:00.000000Z")
		is.Equal(count(t, e, "change_log", `"register" = 'customers' AND "record_key" = '1001' AND "action" = 'update' AND "detail" = 'Phone, Note'`), 1)

		// An update of a line is logged on its owner too.
		contacts, err := e.List(ctx, demoAPI, "contacts", engine.Query{Limit: 1, Where: []engine.Condition{{Field: "CustomerNr", Op: engine.OpEquals, Values: []any{"1002"}}}})
		is.NoErr(err)
		id := contacts.Records[0]["Id"].(string)
		_, err = e.Update(ctx, demoAPI, "contacts", id, input(map[string]any{"Position": "VD"}), asJSON(zeroClaim))
		is.NoErr(err)
		is.Equal(count(t, e, "change_log", `"register" = 'customers' AND "record_key" = '1002' AND "action" = 'update line'`), 1)

		_, err = e.Update(ctx, demoAPI, "customers", "1001", input(map[string]any{"Nr": "2001"}), asJSON(zeroClaim))
		is.Equal(commandError(t, err).Detail, "Nr cannot be changed")
		_, err = e.Update(ctx, demoAPI, "customers", "9999", input(map[string]any{"Name": "X"}), asJSON(zeroClaim))
		is.True(errors.Is(err, engine.ErrNotFound))
		_, err = e.Update(ctx, demoAPI, "customers", "5001", input(map[string]any{"Name": "X"}), asJSON(zeroClaim))
		is.True(errors.Is(err, engine.ErrNotFound)) // demo2's customer
		_, err = e.Update(ctx, demoAPI, "contacts", "not-a-number", input(map[string]any{"Name": "X"}), asJSON(zeroClaim))
		is.True(errors.Is(err, engine.ErrNotFound))

		// A date is checked and kept as sent; "" clears it.
		resp, err = e.Update(ctx, demoAPI, "projects", "101", input(map[string]any{"PlanStopDate": "2025-12-01T16:30:00+01:00"}), asJSON(zeroClaim))
		is.NoErr(err)
		is.Equal(decoded(t, resp)["PlanStopDate"], "2025-12-01T16:30:00+01:00")
		_, err = e.Update(ctx, demoAPI, "projects", "101", input(map[string]any{"PlanStopDate": "next week"}), asJSON(zeroClaim))
		is.Equal(commandError(t, err).Detail, `PlanStopDate: "next week" is not an ISO 8601 date or date-time`)
		resp, err = e.Update(ctx, demoAPI, "projects", "101", input(map[string]any{"PlanStopDate": ""}), asJSON(zeroClaim))
		is.NoErr(err)
		is.Equal(decoded(t, resp)["PlanStopDate"], nil)
	})
}
