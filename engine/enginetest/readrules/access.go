package readrules

import (
	"context"
	"errors"
	"testing"

	"fieldapi/engine"
	"fieldapi/engine/enginetest/kit"
)

// testSignaturePermissions: the signature's own permissions apply to
// every call, whatever a key's scopes would allow: a limited user reads
// what it may and nothing else, and writes nothing; read permission does
// not grant write; a passive user, an unknown signature and another
// company's signature may do nothing.
func testSignaturePermissions(t *testing.T, s *suite) {
	s.Demo(t, "customers.Name", "products.Name", "contacts")
	ctx := context.Background()
	list := func(sess engine.Session, register string) error {
		_, err := s.Engine.List(ctx, sess, register, engine.Query{Limit: 1})
		return err
	}
	get := func(sess engine.Session, register, key string) error {
		_, err := s.Engine.Get(ctx, sess, register, key)
		return err
	}
	create := func(sess engine.Session, register string) error {
		_, err := s.CreateIn(sess, register, kit.Values(map[string]any{"Name": "Behörighet AB"}))
		return err
	}
	update := func(sess engine.Session, register, key string) error {
		_, err := s.UpdateIn(sess, register, key, kit.Values(map[string]any{"Name": "Behörighet AB"}))
		return err
	}
	defs := func(sess engine.Session, register string) error {
		_, err := s.Engine.ExtraFieldDefs(ctx, sess, register)
		return err
	}
	fieldNames := func(sess engine.Session) error {
		_, err := s.Engine.FieldNames(ctx, sess)
		return err
	}
	for _, c := range []struct {
		name    string
		err     error
		allowed bool
	}{
		{"limited user lists what it may read", list(kit.DemoAs("ERJO"), "customers"), true},
		{"limited user gets what it may read", get(kit.DemoAs("ERJO"), "customers", "1001"), true},
		{"limited user reads extra-field definitions", defs(kit.DemoAs("ERJO"), "customers"), true},
		{"limited user reads field names", fieldNames(kit.DemoAs("ERJO")), true},
		{"limited user may not read another register", list(kit.DemoAs("ERJO"), "products"), false},
		{"limited user may not create", create(kit.DemoAs("ERJO"), "customers"), false},
		{"limited user may not update", update(kit.DemoAs("ERJO"), "customers", "1001"), false},
		{"read permission does not grant write", create(kit.DemoAs("MASV"), "products"), false},
		{"permission of another register", list(kit.DemoAs("MASV"), "customers"), false},
		{"permission of that register", list(kit.DemoAs("MASV"), "contacts"), true},
		{"passive user may not read", list(kit.DemoAs("OLBE"), "customers"), false},
		{"passive user may not read field names", fieldNames(kit.DemoAs("OLBE")), false},
		{"unknown signature", get(kit.DemoAs("NOBODY"), "customers", "1001"), false},
		{"signature of another company", list(kit.DemoAs("INSO"), "customers"), false},
		{"full user", list(kit.DemoAs("ANLI"), "products"), true},
	} {
		var denied *engine.PermissionError
		switch {
		case c.allowed && c.err != nil:
			t.Errorf("%s: %v; want it allowed", c.name, c.err)
		case !c.allowed && !errors.As(c.err, &denied):
			t.Errorf("%s: %v (%T); want an *engine.PermissionError", c.name, c.err, c.err)
		}
	}
	if got := s.Get(t, kit.DemoAPI, "customers", "1001"); got["Name"] == "Behörighet AB" {
		t.Error("a denied update changed customer 1001")
	}
	if n := len(s.Walk(t, kit.DemoAPI, "customers", 100, kit.Contains("Name", "Behörighet"))); n != 0 {
		t.Errorf("denied creates left %d customers", n)
	}
}

// testDemoIsolation: a company sees only its own records: another
// company's keys are not found, even engine-assigned ones, the same key
// names each company's own record, and lists and totals hold only the
// company's records.
func testDemoIsolation(t *testing.T, s *suite) {
	s.Demo(t, "customers.Name", "contacts")
	ctx := context.Background()
	if _, err := s.Engine.Get(ctx, kit.DemoAPI, "customers", "5001"); !errors.Is(err, engine.ErrNotFound) {
		t.Errorf("Get of demo2's customer 5001 in demo: %v; want engine.ErrNotFound", err)
	}
	if _, err := s.Engine.Get(ctx, kit.Demo2API, "customers", "1002"); !errors.Is(err, engine.ErrNotFound) {
		t.Errorf("Get of demo's customer 1002 in demo2: %v; want engine.ErrNotFound", err)
	}
	mine, theirs := s.Get(t, kit.DemoAPI, "customers", "1001"), s.Get(t, kit.Demo2API, "customers", "1001")
	if mine["Name"] != "Bergström Fastigheter AB" || theirs["Name"] != "Bryggen Kontorsenter AS" {
		t.Errorf("customer 1001 reads %v in demo and %v in demo2; want each company's own", mine["Name"], theirs["Name"])
	}

	// An engine-assigned Id of another company is not found either.
	theirContact := s.FirstKey(t, kit.Demo2API, "contacts")
	if _, err := s.Engine.Get(ctx, kit.DemoAPI, "contacts", theirContact); !errors.Is(err, engine.ErrNotFound) {
		t.Errorf("Get of demo2's contact %s in demo: %v; want engine.ErrNotFound", theirContact, err)
	}

	all, err := s.Engine.List(ctx, kit.Demo2API, "customers", engine.Query{Limit: 500})
	if err != nil {
		t.Fatal(err)
	}
	if all.Total == nil || *all.Total != 21 || len(all.Records) != 21 {
		t.Errorf("demo2's customers: Total %v, %d listed; want 21 and 21", all.Total, len(all.Records))
	}
	for _, r := range all.Records {
		if r["Nr"] != "1001" && r["Nr"] != nil {
			if _, err := s.Engine.Get(ctx, kit.DemoAPI, "customers", kit.Text(r, "Nr")); !errors.Is(err, engine.ErrNotFound) {
				t.Errorf("demo2's customer %v is found in demo: %v", r["Nr"], err)
			}
		}
	}
}
