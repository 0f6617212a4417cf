package writerules

import (
	"slices"
	"strconv"
	"testing"

	"fieldapi/engine/enginetest/kit"
)

// testReferencesAndLookups: a reference must name a record of the
// caller's company (another company's is unknown); lookup fields copy the
// referenced record's field, change with the reference and clear with it.
func testReferencesAndLookups(t *testing.T, s *suite) {
	s.Demo(t, "projects.CustomerNr", "projects.CustomerName", "projects.Owner", "projects.Object1Nr", "projects.Object1Name",
		"projects.Object2Nr", "customers.Name", "objects1.Name", "users")
	for _, r := range []struct {
		name   string
		values map[string]any
		detail string
	}{
		{"unknown customer", map[string]any{"Name": "X", "CustomerNr": "9999"}, `Customer "9999" does not exist`},
		{"another company's customer", map[string]any{"Name": "X", "CustomerNr": "5001"}, `Customer "5001" does not exist`},
		{"unknown signature", map[string]any{"Name": "X", "Owner": "NOPE"}, `User "NOPE" does not exist`},
		{"unknown object", map[string]any{"Name": "X", "Object2Nr": "999"}, `Object2 "999" does not exist`},
	} {
		_, err := s.CreateIn(kit.DemoAPI, "projects", kit.Values(r.values))
		refusedWith(t, err, "Create a project with an "+r.name, r.detail)
	}

	p := s.MustCreateIn(t, kit.DemoAPI, "projects", kit.Values(map[string]any{"Name": "Ny värmeanläggning", "CustomerNr": "1001", "Owner": "ANLI", "Object1Nr": "101"}))
	customer := s.Get(t, kit.DemoAPI, "customers", "1001")
	if p["CustomerName"] != customer["Name"] {
		t.Errorf("CustomerName = %v; want %v, looked up from customer 1001", p["CustomerName"], customer["Name"])
	}
	object := s.Get(t, kit.DemoAPI, "objects1", "101")
	if p["Object1Name"] != object["Name"] {
		t.Errorf("Object1Name = %v; want %v, looked up from object 101", p["Object1Name"], object["Name"])
	}

	// The same customer number in demo2 is another customer.
	p2 := s.MustCreateIn(t, kit.Demo2API, "projects", kit.Values(map[string]any{"Name": "Nytt prosjekt", "CustomerNr": "1001"}))
	if p2["CustomerName"] != "Bryggen Kontorsenter AS" {
		t.Errorf("demo2's project: CustomerName = %v; want demo2's customer 1001, Bryggen Kontorsenter AS", p2["CustomerName"])
	}

	// Changing the reference changes the lookup; clearing clears it.
	nr := kit.KeyIn(t, p, "Nr")
	if rec := s.MustUpdateIn(t, kit.DemoAPI, "projects", nr, kit.Values(map[string]any{"CustomerNr": "1002"})); rec["CustomerName"] != "Lindgren Fastigheter AB" {
		t.Errorf("after CustomerNr 1002: CustomerName = %v; want Lindgren Fastigheter AB", rec["CustomerName"])
	}
	if rec := s.MustUpdateIn(t, kit.DemoAPI, "projects", nr, kit.Values(map[string]any{"CustomerNr": ""})); rec["CustomerName"] != nil {
		t.Errorf("after clearing CustomerNr: CustomerName = %#v; want nil", rec["CustomerName"])
	}
	_, err := s.UpdateIn(kit.DemoAPI, "projects", nr, kit.Values(map[string]any{"Owner": "NOPE"}))
	refusedWith(t, err, "Update a project's Owner to an unknown signature", `User "NOPE" does not exist`)
	if got := s.Get(t, kit.DemoAPI, "projects", nr); got["Owner"] != "ANLI" {
		t.Errorf("a refused update changed Owner to %v", got["Owner"])
	}
}

// testRequired: required fields and requireOneOf are refused with the
// engine's text and the valid fields; a field the API may not write, NUL
// characters and a register the API may not create are refused.
func testRequired(t *testing.T, s *suite) {
	s.Demo(t, "contacts.CustomerNr", "addresses.CustomerNr", "addresses.SupplierNr", "addresses.ObjectNr", "addresses.Level",
		"customers.Status", "customers.Name", "users")
	_, err := s.CreateIn(kit.DemoAPI, "contacts", kit.Values(map[string]any{"Name": "Utan kund"}))
	refusedWith(t, err, "Create a contact without CustomerNr", "CustomerNr is required")

	_, err = s.CreateIn(kit.DemoAPI, "addresses", kit.Values(map[string]any{"Name": "Utan ägare"}))
	ce := refusedWith(t, err, "Create an address without an owner", "one of CustomerNr, SupplierNr, ObjectNr is required")
	if want := []string{"CustomerNr", "SupplierNr", "ObjectNr"}; !slices.Equal(ce.ValidValues, want) {
		t.Errorf("ValidValues = %v; want %v", ce.ValidValues, want)
	}

	rec := s.MustCreateIn(t, kit.DemoAPI, "addresses", kit.Values(map[string]any{"Name": "Lager", "SupplierNr": "201", "Level": 2.0}))
	if rec["SupplierNr"] != "201" || rec["Level"] != 2.0 {
		t.Errorf("address as created: SupplierNr %v, Level %#v; want 201 and 2", rec["SupplierNr"], rec["Level"])
	}
	if _, err := strconv.Atoi(kit.Text(rec, "Id")); err != nil {
		t.Errorf("address Id %#v; want a number the engine assigned", rec["Id"])
	}

	_, err = s.CreateIn(kit.DemoAPI, "customers", kit.Values(map[string]any{"Name": "X", "Status": "Passive"}))
	refusedWith(t, err, "Create a customer with Status", "Status is read only")
	// PostgreSQL cannot store NUL characters; every storage refuses them alike.
	_, err = s.CreateIn(kit.DemoAPI, "customers", kit.Values(map[string]any{"Name": "Noll\x00tecken AB"}))
	refusedWith(t, err, "Create a customer with a NUL character", "Name: text may not contain NUL characters")
	// Read-only registers take no writes at all.
	_, err = s.CreateIn(kit.DemoAPI, "users", kit.Values(map[string]any{"Sign": "NEW"}))
	refused(t, err, "Create a user")
	if n := len(s.Walk(t, kit.DemoAPI, "customers", 100, kit.Contains("Name", "tecken"))); n != 0 {
		t.Errorf("refused creates left %d customers", n)
	}
}
