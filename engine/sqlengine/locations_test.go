package sqlengine

import (
	"context"
	"errors"
	"testing"

	"github.com/matryer/is"

	"fieldapi/engine"
	"fieldapi/engine/geocode"
)

func TestLocations(t *testing.T) {
	eachEngine(t, func(t *testing.T, e testEngine) {
		is := is.New(t)
		ctx := context.Background()
		locate := engine.Locate{Locate: true}

		// Never located: Pending, no position, the address it would use.
		loc, err := e.Location(ctx, demoAPI, "customers", "1001", engine.Locate{})
		is.NoErr(err)
		is.Equal(loc.Status, "Pending")
		is.Equal(loc.Latitude, nil)
		is.Equal(loc.Address, "Storgatan 1, 111 22 Stockholm, Sverige")

		loc, err = e.Location(ctx, demoAPI, "customers", "1001", locate)
		is.NoErr(err)
		is.Equal(loc.Status, "Found")
		is.Equal(*loc.Latitude, 59.3293)
		is.Equal(*loc.Longitude, 18.0686)
		is.Equal(loc.Fixed, false)
		again, err := e.Location(ctx, demoAPI, "customers", "1001", engine.Locate{})
		is.NoErr(err)
		is.Equal(again, loc) // stored

		// An object has no address of its own: it is located from its customer.
		obj, err := e.Location(ctx, demoAPI, "objects2", "201", locate)
		is.NoErr(err)
		is.Equal(obj.Status, "Found")
		is.Equal(obj.Address, loc.Address)

		// A pinned position is never recalculated.
		resp, err := e.PinLocation(ctx, demoAPI, "customers", "1001", engine.Pin{Latitude: 59.33, Longitude: 18.06, Address: "Porten mot gården"}, asJSON(zeroClaim))
		is.NoErr(err)
		pinned := decoded(t, resp)
		is.Equal(pinned["Fixed"], true)
		is.Equal(pinned["Latitude"], 59.33)
		loc, err = e.Location(ctx, demoAPI, "customers", "1001", engine.Locate{Locate: true, Force: true})
		is.NoErr(err)
		is.Equal(*loc.Latitude, 59.33)
		is.Equal(loc.Address, "Porten mot gården")
		is.Equal(count(t, e, "change_log", `"register" = 'customers' AND "record_key" = '1001' AND "action" = 'pin location'`), 1)

		// Records without an address, or with one outside the gazetteer.
		resp, err = e.Create(ctx, demoAPI, "customers", input(map[string]any{"Name": "Adresslös AB"}), asJSON(zeroClaim))
		is.NoErr(err)
		loc, err = e.Location(ctx, demoAPI, "customers", decoded(t, resp)["Nr"].(string), locate)
		is.NoErr(err)
		is.Equal(loc.Status, "NoAddress")
		resp, err = e.Create(ctx, demoAPI, "customers", input(map[string]any{"Name": "Fjärran AB", "City": "Kiruna"}), asJSON(zeroClaim))
		is.NoErr(err)
		loc, err = e.Location(ctx, demoAPI, "customers", decoded(t, resp)["Nr"].(string), locate)
		is.NoErr(err)
		is.Equal(loc.Status, "AddressNotFound")
		is.Equal(loc.Latitude, nil)

		// Not found: another company's record, an unknown key, a register without positions.
		_, err = e.Location(ctx, demoAPI, "customers", "5001", engine.Locate{})
		is.True(errors.Is(err, engine.ErrNotFound))
		_, err = e.PinLocation(ctx, demoAPI, "customers", "5001", engine.Pin{Latitude: 1, Longitude: 1}, asJSON(zeroClaim))
		is.True(errors.Is(err, engine.ErrNotFound))
		_, err = e.Location(ctx, demoAPI, "contacts", "1", engine.Locate{})
		is.True(errors.Is(err, engine.ErrNotFound))
		// Pinning needs write permission.
		_, err = e.PinLocation(ctx, engine.Session{Company: "demo", Sign: "ERJO"}, "customers", "1002", engine.Pin{Latitude: 1, Longitude: 1}, asJSON(zeroClaim))
		var pe *engine.PermissionError
		is.True(errors.As(err, &pe))
	})
}

// TestGeocoderNone: an engine that does not geocode leaves records
// Pending and stores nothing, so a later geocoder still runs.
func TestGeocoderNone(t *testing.T) {
	t.Parallel()
	for _, b := range testBackends(t) {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			is := is.New(t)
			e := openTestEngine(t, b.dsn(t), Options{Geocoder: geocode.None{}})
			loc, err := e.Location(context.Background(), demoAPI, "customers", "1001", engine.Locate{Locate: true, Force: true})
			is.NoErr(err)
			is.Equal(loc.Status, "Pending")
			is.Equal(loc.Latitude, nil)
			is.Equal(loc.Address, "Storgatan 1, 111 22 Stockholm, Sverige")
			is.Equal(count(t, e, "locations", `"company" = 'demo' AND "register" = 'customers'`), 0)
		})
	}
}
