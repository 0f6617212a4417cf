package sqlengine

import (
	"context"
	"errors"
	"testing"

	"github.com/matryer/is"

	"fieldapi/engine"
)

func TestExtraFieldWritesAreChecked(t *testing.T) {
	eachEngine(t, func(t *testing.T, e testEngine) {
		ctx := context.Background()
		writableKeys := []string{"Invoice_Email", "Service.Level", "contract_end"}
		cases := []struct {
			name   string
			extra  map[string]string
			detail string
			valid  []string
		}{
			{"unknown key", map[string]string{"Colour": "red"}, `unknown extra field "Colour"`, writableKeys},
			{"read only", map[string]string{"Credit.Rating": "AAA"}, `extra field "Credit.Rating" is read only`, nil},
			{"computed", map[string]string{"Display_Name": "x"}, `extra field "Display_Name" is computed by the engine and cannot be written`, nil},
			{"not a date", map[string]string{"contract_end": "end of year"}, `extra field "contract_end": "end of year" is not a date (want YYYY-MM-DD or an ISO 8601 date-time)`, nil},
			{"not an option", map[string]string{"Service.Level": "Platinum"}, `extra field "Service.Level": "Platinum" is not one of its options`, []string{"Bronze", "Silver", "Gold"}},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				is := is.New(t)
				in := input(map[string]any{"Name": "Extra AB"})
				in.Extra = c.extra
				_, err := e.Create(ctx, demoAPI, "customers", in, asJSON(zeroClaim))
				ce := commandError(t, err)
				is.Equal(ce.Detail, c.detail)
				is.Equal(ce.ValidValues, c.valid)

				in = input(map[string]any{})
				in.Extra = c.extra
				_, err = e.Update(ctx, demoAPI, "customers", "1002", in, asJSON(zeroClaim))
				is.Equal(commandError(t, err).Detail, c.detail)
			})
		}
		is := is.New(t)
		is.Equal(count(t, e, "customers", `"name" = 'Extra AB'`), 0)

		_, err := e.Update(ctx, demoAPI, "contacts", "1", engine.Input{Values: map[string]any{}, Extra: map[string]string{"x": "y"}}, asJSON(zeroClaim))
		is.Equal(commandError(t, err).Detail, "contacts have no extra fields")
	})
}

func TestExtraFieldsOnRead(t *testing.T) {
	eachEngine(t, func(t *testing.T, e testEngine) {
		is := is.New(t)
		ctx := context.Background()
		in := input(map[string]any{"Name": "Fältet AB", "City": "Umeå"})
		in.Extra = map[string]string{"Service.Level": "Gold", "contract_end": "2026-06-30", "Invoice_Email": "faktura@faltet.se"}
		resp, err := e.Create(ctx, demoAPI, "customers", in, asJSON(zeroClaim))
		is.NoErr(err)
		nr := decoded(t, resp)["Nr"].(string)

		rec, err := e.Get(ctx, demoAPI, "customers", nr)
		is.NoErr(err)
		is.Equal(rec["ExtraFields"], map[string]string{
			"Service.Level": "Gold", "contract_end": "2026-06-30", "Invoice_Email": "faktura@faltet.se",
			"Credit.Rating": "",                 // defined, empty
			"Display_Name":  "Fältet AB / Umeå", // computed from the row
			"City.Upper":    "UMEÅ",             // Unicode upper case in both dialects
		})

		// "" clears a value; the rest stay.
		up := engine.Input{Values: map[string]any{"City": "Luleå"}, Extra: map[string]string{"Service.Level": ""}}
		resp, err = e.Update(ctx, demoAPI, "customers", nr, up, asJSON(zeroClaim))
		is.NoErr(err)
		extra := decoded(t, resp)["ExtraFields"].(map[string]any)
		is.Equal(extra["Service.Level"], "")
		is.Equal(extra["contract_end"], "2026-06-30")
		is.Equal(extra["Display_Name"], "Fältet AB / Luleå")

		// Every record of a page carries every key.
		page, err := e.List(ctx, demoAPI, "customers", engine.Query{Limit: 10})
		is.NoErr(err)
		for _, r := range page.Records {
			is.Equal(len(r["ExtraFields"].(map[string]string)), 6)
		}
		// demo2 defines the same keys in its own language; registers without extra fields have none.
		is.True(page.Records[0]["ExtraFields"] != nil)
		contacts, err := e.List(ctx, demoAPI, "contacts", engine.Query{Limit: 1})
		is.NoErr(err)
		_, has := contacts.Records[0]["ExtraFields"]
		is.True(!has)
	})
}

func TestExtraFieldDefs(t *testing.T) {
	eachSharedEngine(t, func(t *testing.T, e testEngine) {
		is := is.New(t)
		ctx := context.Background()
		defs, err := e.ExtraFieldDefs(ctx, demoAPI, "customers")
		is.NoErr(err)
		byKey := map[string]engine.ExtraFieldDef{}
		for _, d := range defs {
			byKey[d.Key] = d
		}
		is.Equal(byKey["Service.Level"], engine.ExtraFieldDef{Key: "Service.Level", Name: "Servicenivå", Category: "Service", Type: "Combo", Writable: true, Options: []string{"Bronze", "Silver", "Gold"}})
		is.Equal(byKey["Credit.Rating"].Writable, false)
		is.Equal(byKey["Credit.Rating"].ReadOnly, true)
		is.Equal(byKey["Display_Name"].Computed, true)
		is.Equal(byKey["Display_Name"].Writable, false)
		is.Equal(byKey["contract_end"].Type, "Date")

		_, err = e.ExtraFieldDefs(ctx, demoAPI, "contacts")
		is.True(errors.Is(err, engine.ErrNotFound)) // no extra fields on contacts

		names, err := e.FieldNames(ctx, demoAPI)
		is.NoErr(err)
		labels := map[string]string{}
		for _, n := range names {
			labels[n.DbFieldName] = n.UserFieldName
		}
		is.Equal(labels["CustomerCustom1"], "Kundgrupp")
		is.Equal(labels["TaskCustomT1"], "Arbetsorder")
		names2, err := e.FieldNames(ctx, demo2API)
		is.NoErr(err)
		is.Equal(names2[0].UserFieldName, "Kundegruppe")
	})
}
