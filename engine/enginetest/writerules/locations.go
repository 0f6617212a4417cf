package writerules

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"fieldapi/catalog"
	"fieldapi/engine"
	"fieldapi/engine/enginetest/kit"
	"fieldapi/engine/geocode"
)

// testDemoLocations: a record never located is Pending with the address
// it would be located from; locating stores the position; an object
// without an address is located from its customer; a pinned position is
// never recalculated, not even when forced; a record without an address
// or with one the geocoder does not know says so; another company's
// record, an unknown key and a register without positions are not found;
// pinning needs write permission.
//
// The positions are compared with the offline gazetteer's (geocode.Gazetteer,
// the reference engine's default); an engine with another geocoder has
// them checked for a position only.
func testDemoLocations(t *testing.T, s *suite) {
	s.Demo(t, "customers.City", "objects2.ParentNr", "contacts")
	locs, ok := s.Engine.(engine.Locations)
	if !ok {
		t.Skip("the engine does not offer engine.Locations")
	}
	ctx := context.Background()
	locate := engine.Locate{Locate: true}
	feed := s.Feed(t)
	var start int64
	if feed != nil {
		start = s.FeedEnd(t, feed, kit.DemoAPI)
	}

	loc, err := locs.Location(ctx, kit.DemoAPI, "customers", "1001", engine.Locate{})
	if err != nil {
		t.Fatal(err)
	}
	const address = "Storgatan 1, 111 22 Stockholm, Sverige"
	if loc.Status != "Pending" || loc.Latitude != nil || loc.Address != address {
		t.Errorf("customer 1001 never located: %+v; want Pending, no position, Address %q", loc, address)
	}
	loc, err = locs.Location(ctx, kit.DemoAPI, "customers", "1001", locate)
	if err != nil {
		t.Fatal(err)
	}
	if loc.Status != "Found" || loc.Latitude == nil || loc.Longitude == nil || loc.Fixed {
		t.Fatalf("customer 1001 located: %+v; want Found with a position, not fixed", loc)
	}
	gazetteer, _ := geocode.Gazetteer{}.Geocode(ctx, geocode.Address{Text: address, City: "Stockholm"})
	if loc.Provider == gazetteer.Provider && (*loc.Latitude != 59.3293 || *loc.Longitude != 18.0686) {
		t.Errorf("customer 1001 located by the gazetteer at %v, %v; want Stockholm's centre, 59.3293, 18.0686", *loc.Latitude, *loc.Longitude)
	} else if loc.Provider != gazetteer.Provider {
		t.Logf("the engine's geocoder is %q, not the gazetteer: positions are not compared", loc.Provider)
	}
	again, err := locs.Location(ctx, kit.DemoAPI, "customers", "1001", engine.Locate{})
	if err != nil || !reflect.DeepEqual(again, loc) {
		t.Errorf("Location after locating = %+v, %v; want the position stored, %+v", again, err, loc)
	}
	s.ExpectEvents(t, feed, kit.DemoAPI, start, s.Event("customers", catalog.EventLocationChanged, "1001"))

	// An object has no address of its own: it is located from its customer.
	obj, err := locs.Location(ctx, kit.DemoAPI, "objects2", "201", locate)
	if err != nil || obj.Status != "Found" || obj.Address != loc.Address {
		t.Errorf("object 201 located: %+v, %v; want Found at its customer's address %q", obj, err, loc.Address)
	}

	// A pinned position is never recalculated.
	if feed != nil {
		start = s.FeedEnd(t, feed, kit.DemoAPI)
	}
	var c kit.Capture
	if _, err := locs.PinLocation(ctx, kit.DemoAPI, "customers", "1001", engine.Pin{Latitude: 59.33, Longitude: 18.06, Address: "Porten mot gården"}, c.Receipt(kit.NoClaim)); err != nil {
		t.Fatal(err)
	}
	if c.Rec["Fixed"] != true || c.Rec["Latitude"] != 59.33 {
		t.Errorf("the pin's receipt = %v; want Fixed true, Latitude 59.33", c.Rec)
	}
	loc, err = locs.Location(ctx, kit.DemoAPI, "customers", "1001", engine.Locate{Locate: true, Force: true})
	if err != nil || loc.Latitude == nil || *loc.Latitude != 59.33 || loc.Address != "Porten mot gården" || !loc.Fixed {
		t.Errorf("Location after a pin, forced to locate: %+v, %v; want the pinned 59.33 at Porten mot gården, fixed", loc, err)
	}
	s.ExpectEvents(t, feed, kit.DemoAPI, start, s.Event("customers", catalog.EventLocationChanged, "1001"))
	s.ExpectLog(t, kit.DemoAPI, "customers", "1001", kit.LogEntry{Action: "pin location", Detail: "Latitude 59.330000, Longitude 18.060000"})

	// Records without an address, or with one the geocoder does not know.
	nr := kit.KeyIn(t, s.MustCreateIn(t, kit.DemoAPI, "customers", kit.Values(map[string]any{"Name": "Adresslös AB"})), "Nr")
	if loc, err := locs.Location(ctx, kit.DemoAPI, "customers", nr, locate); err != nil || loc.Status != "NoAddress" {
		t.Errorf("a customer without an address, located: %+v, %v; want NoAddress", loc, err)
	}
	nr = kit.KeyIn(t, s.MustCreateIn(t, kit.DemoAPI, "customers", kit.Values(map[string]any{"Name": "Fjärran AB", "City": "Kiruna"})), "Nr")
	if loc, err := locs.Location(ctx, kit.DemoAPI, "customers", nr, locate); err != nil || loc.Status != "AddressNotFound" || loc.Latitude != nil {
		t.Errorf("a customer in Kiruna, located: %+v, %v; want AddressNotFound, no position (the gazetteer does not know Kiruna)", loc, err)
	}

	// Not found: another company's record, an unknown key, a register without positions.
	if _, err := locs.Location(ctx, kit.DemoAPI, "customers", "5001", engine.Locate{}); !errors.Is(err, engine.ErrNotFound) {
		t.Errorf("Location of demo2's customer: %v; want engine.ErrNotFound", err)
	}
	if _, err := locs.PinLocation(ctx, kit.DemoAPI, "customers", "5001", engine.Pin{Latitude: 1, Longitude: 1}, c.Receipt(kit.NoClaim)); !errors.Is(err, engine.ErrNotFound) {
		t.Errorf("PinLocation of demo2's customer: %v; want engine.ErrNotFound", err)
	}
	if _, err := locs.Location(ctx, kit.DemoAPI, "customers", "9999", engine.Locate{}); !errors.Is(err, engine.ErrNotFound) {
		t.Errorf("Location of an unknown customer: %v; want engine.ErrNotFound", err)
	}
	if _, err := locs.Location(ctx, kit.DemoAPI, "contacts", s.FirstKey(t, kit.DemoAPI, "contacts"), engine.Locate{}); !errors.Is(err, engine.ErrNotFound) {
		t.Errorf("Location of a contact: %v; want engine.ErrNotFound (contacts have no positions)", err)
	}
	// Pinning needs write permission.
	var denied *engine.PermissionError
	if _, err := locs.PinLocation(ctx, kit.DemoAs("ERJO"), "customers", "1002", engine.Pin{Latitude: 1, Longitude: 1}, c.Receipt(kit.NoClaim)); !errors.As(err, &denied) {
		t.Errorf("PinLocation by a signature that may only read customers: %v; want an *engine.PermissionError", err)
	}
	if loc, err := locs.Location(ctx, kit.DemoAPI, "customers", "1002", engine.Locate{}); err != nil || loc.Fixed {
		t.Errorf("customer 1002 after a denied pin: %+v, %v; want it not pinned", loc, err)
	}
}
