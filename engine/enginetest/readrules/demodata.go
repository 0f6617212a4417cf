package readrules

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"fieldapi/engine"
	"fieldapi/engine/enginetest/kit"
)

// testDemoContent: each demo company holds what the rules group and the
// documentation rely on: an API signature that may do everything, other
// users (a passive one, a limited one), time types with and without
// booking and a name with a comma and a slash, price lists with and
// without markup, enough products, resources, suppliers, projects and
// contracts, objects on four levels each hung off an existing parent,
// a contact and an address per customer, extra fields of every kind, and
// field labels. The demo data is the engine's own: it records no event.
func testDemoContent(t *testing.T, s *suite) {
	s.Demo(t, "users.Status", "timetypes.BookingType", "timetypes.Name", "pricelists.HasMarkupPct", "products", "resources",
		"suppliers", "suppliercontacts", "projects", "contracts", "objects1", "objects2.ParentNr", "objects3.ParentNr",
		"objects4.ParentNr", "customers", "contacts", "addresses", "tasks")
	ctx := context.Background()
	for _, sess := range []engine.Session{kit.DemoAPI, kit.Demo2API} {
		t.Run(sess.Company, func(t *testing.T) {
			all := func(register string) []engine.Record {
				t.Helper()
				return s.Walk(t, sess, register, 500)
			}
			count := func(register string, pass func(engine.Record) bool) int {
				t.Helper()
				n := 0
				for _, r := range all(register) {
					if pass == nil || pass(r) {
						n++
					}
				}
				return n
			}
			atLeast := func(what string, got, want int) {
				t.Helper()
				if got < want {
					t.Errorf("%s: %d; want at least %d", what, got, want)
				}
			}
			is := func(field string, value any) func(engine.Record) bool {
				return func(r engine.Record) bool { return r[field] == value }
			}

			// The API signature may do everything; the others are limited or passive.
			users := all("users")
			api := false
			for _, u := range users {
				api = api || (u["Sign"] == "API" && u["Status"] == "Active")
			}
			if !api {
				t.Error("no Active user API")
			}
			for _, r := range s.Catalog.Registers {
				if _, err := s.Engine.List(ctx, sess, r.Name, engine.Query{Limit: 1}); err != nil {
					t.Errorf("API may not list %s: %v; it may do everything", r.Name, err)
				}
			}
			atLeast("users other than API", count("users", func(r engine.Record) bool { return r["Sign"] != "API" }), 2)
			atLeast("passive users", count("users", is("Status", "Passive")), 1)
			limited := 0
			for _, u := range users {
				if u["Sign"] != "API" && u["Status"] == "Active" && s.deniedSomewhere(t, engine.Session{Company: sess.Company, Sign: kit.Text(u, "Sign")}) {
					limited++
				}
			}
			atLeast("active users with limited permissions", limited, 1)

			atLeast("time types", count("timetypes", nil), 4)
			atLeast("booking time types", count("timetypes", is("BookingType", true)), 1)
			atLeast("time types without booking", count("timetypes", is("BookingType", false)), 1)
			atLeast("time types named with a comma and a slash", count("timetypes", func(r engine.Record) bool {
				name := kit.Text(r, "Name")
				comma := strings.Index(name, ",")
				return comma >= 0 && strings.Contains(name[comma:], "/")
			}), 1)
			atLeast("price lists", count("pricelists", nil), 2)
			atLeast("price lists with markup", count("pricelists", is("HasMarkupPct", true)), 1)
			for register, n := range map[string]int{"products": 25, "resources": 3, "suppliers": 5, "suppliercontacts": 5, "projects": 3, "contracts": 3} {
				atLeast(register, count(register, nil), n)
			}
			for level, parent := range []string{"", "objects1", "objects2", "objects3"} {
				register := fmt.Sprintf("objects%d", level+1)
				objects := all(register)
				atLeast(register, len(objects), 1)
				for _, o := range objects {
					if parent == "" {
						continue
					}
					if _, err := s.Engine.Get(ctx, sess, parent, kit.Text(o, "ParentNr")); err != nil {
						t.Errorf("%s %v hangs off %s %q: %v; want an existing parent", register, o["Nr"], parent, kit.Text(o, "ParentNr"), err)
					}
				}
			}
			customers := count("customers", nil)
			atLeast("customers", customers, 20)
			if c, a := count("contacts", nil), count("addresses", nil); c != customers || a != customers {
				t.Errorf("%d contacts and %d addresses; want one of each per customer, %d", c, a, customers)
			}

			defs, err := s.Engine.ExtraFieldDefs(ctx, sess, "tasks")
			if err != nil {
				t.Fatal(err)
			}
			atLeast("extra fields of tasks", len(defs), 3)
			names, err := s.Engine.FieldNames(ctx, sess)
			if err != nil {
				t.Fatal(err)
			}
			labels := map[string]int{}
			for _, n := range names {
				labels[n.DbFieldName]++
			}
			if labels["CustomerCustom1"] != 1 || labels["TaskCustomT1"] != 1 {
				t.Errorf("labels of CustomerCustom1 and TaskCustomT1: %d and %d; want one each", labels["CustomerCustom1"], labels["TaskCustomT1"])
			}

			if feed := s.Feed(t); feed != nil {
				if evs := s.EventsAfter(t, feed, sess, 0); len(evs) != 0 {
					t.Errorf("the demo data recorded %d events; want none: it is not an API change", len(evs))
				}
			}
			for _, r := range s.Catalog.Registers {
				page, err := s.Engine.List(ctx, sess, r.Name, engine.Query{Limit: 3})
				if err != nil {
					t.Fatal(err)
				}
				for _, rec := range page.Records {
					s.ExpectLog(t, sess, r.Name, kit.KeyIn(t, rec, r.Key))
				}
			}
		})
	}

	if n := s.Total(t, kit.DemoAPI, "customers"); n < 60 {
		t.Errorf("demo has %d customers; want at least 60", n)
	}
	types := map[string]int{}
	readOnly, dotted, underscored := 0, 0, 0
	for _, r := range s.Catalog.Registers {
		if !r.ExtraFields {
			continue
		}
		defs, err := s.Engine.ExtraFieldDefs(ctx, kit.DemoAPI, r.Name)
		if err != nil {
			t.Fatalf("ExtraFieldDefs %s: %v", r.Name, err)
		}
		for _, d := range defs {
			if r.Name == "customers" {
				types[d.Type]++
			}
			if d.ReadOnly {
				readOnly++
			}
			if strings.Contains(d.Key, ".") {
				dotted++
			}
			if strings.Contains(d.Key, "_") {
				underscored++
			}
		}
	}
	if types["Combo"] == 0 || types["Date"] == 0 || types["Sql"] == 0 || readOnly == 0 || dotted == 0 || underscored == 0 {
		t.Errorf("demo's extra fields: customers' types %v, %d read only, %d keys with a dot, %d with an underscore; want Combo, Date and Sql on customers and one of each of the rest", types, readOnly, dotted, underscored)
	}
}

// deniedSomewhere reports whether the signature may not list some register.
func (s *suite) deniedSomewhere(t *testing.T, sess engine.Session) bool {
	t.Helper()
	for _, r := range s.Catalog.Registers {
		_, err := s.Engine.List(context.Background(), sess, r.Name, engine.Query{Limit: 1})
		var denied *engine.PermissionError
		if errors.As(err, &denied) {
			return true
		}
		if err != nil {
			t.Fatalf("List %s as %s: %v", r.Name, sess.Sign, err)
		}
	}
	return false
}
