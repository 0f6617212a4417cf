package contract

import (
	"context"
	"errors"
	"strings"
	"testing"

	"fieldapi/catalog"
	"fieldapi/engine"
	"fieldapi/engine/enginetest/kit"
)

var Isolation = []kit.Test{
	test("a session never sees another company's records", testIsolation),
	test("keys are per company", testKeysPerCompany),
}

// testIsolation: records of one company are invisible to a session of
// another — not listed, not found, not changed — lines included.
func testIsolation(t *testing.T, s *suite) {
	ctx := context.Background()
	sub := s.Subject
	name := kit.UniqueName("Mine")
	in := sub.Input(name)
	if sub.Line != nil {
		in.AddLine(sub.Line.List.Name, sub.Line.Input("my line"))
	}
	rec, err := s.Create(s.Company, in)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	key := s.KeyOf(t, rec)

	if _, err := s.Engine.Get(ctx, s.Other, sub.Reg.Name, key); !errors.Is(err, engine.ErrNotFound) {
		t.Errorf("Get of another company's record: %v; want engine.ErrNotFound", err)
	}
	for _, r := range s.Walk(t, s.Other, sub.Reg.Name, 100) {
		if r[sub.Name] == name {
			t.Errorf("another company's record is listed: %v", r)
		}
	}
	change := engine.NewInput()
	change.Values[sub.Name] = "taken over"
	var c kit.Capture
	if _, err := s.Engine.Update(ctx, s.Other, sub.Reg.Name, key, change, c.Receipt(kit.NoClaim)); !errors.Is(err, engine.ErrNotFound) {
		t.Errorf("Update of another company's record: %v; want engine.ErrNotFound", err)
	}
	if got := s.Get(t, s.Company, sub.Reg.Name, key); got[sub.Name] != name {
		t.Errorf("another company's Update changed %s to %v", sub.Name, got[sub.Name])
	}

	if ls := sub.Line; ls != nil {
		lines := rec.Lines(ls.List.ReadName)
		if len(lines) != 1 {
			t.Fatalf("the rendered record carries %d lines under %s; want the one created", len(lines), ls.List.ReadName)
		}
		lineKey := kit.KeyIn(t, lines[0], ls.Reg.Key)
		if _, err := s.Engine.Get(ctx, s.Other, ls.Reg.Name, lineKey); !errors.Is(err, engine.ErrNotFound) {
			t.Errorf("Get of another company's %s %s: %v; want engine.ErrNotFound", ls.Reg.Name, lineKey, err)
		}
		for _, r := range s.Walk(t, s.Other, ls.Reg.Name, 100) {
			if r[ls.Name] == "my line" {
				t.Errorf("another company's line is listed: %v", r)
			}
		}
		// Nor can a line be hung on another company's record.
		if parent := ls.Reg.Field(ls.List.Parent); ls.Reg.Has(catalog.Create) && parent.Writable && parent.References == sub.Reg.Name {
			stray := ls.Input("stray line")
			stray.Values[ls.List.Parent] = key
			_, err := s.Engine.Create(ctx, s.Other, ls.Reg.Name, stray, c.Receipt(kit.NoClaim))
			kit.RefusalDetail(t, err, "Create of a "+ls.Reg.Name+" whose "+ls.List.Parent+" is another company's record")
		}
	}
}

// testKeysPerCompany: two companies may hold the same key, each reading
// its own record.
func testKeysPerCompany(t *testing.T, s *suite) {
	sub := s.Subject
	key := strings.ReplaceAll(kit.UniqueName("Shared"), " ", "-")
	names := map[string]string{} // by key, per company
	for _, sess := range []engine.Session{s.Company, s.Other} {
		name := kit.UniqueName(sess.Company)
		in := sub.Input(name)
		if sub.ChosenKey {
			in.Values[sub.Key] = key
		}
		rec, err := s.Create(sess, in)
		if err != nil {
			t.Fatalf("Create in %s: %v", sess.Company, err)
		}
		names[sess.Company+"\x00"+s.KeyOf(t, rec)] = name
	}
	if len(names) != 2 {
		t.Fatal("the two creates were not told apart")
	}
	for ck, name := range names {
		company, key, _ := strings.Cut(ck, "\x00")
		sess := s.Company
		if company == s.Other.Company {
			sess = s.Other
		}
		if got := s.Get(t, sess, sub.Reg.Name, key); got[sub.Name] != name {
			t.Errorf("Get in %s of %s reads %v; want its own record %q", company, key, got[sub.Name], name)
		}
	}
}
