package enginetest

import (
	"context"
	"errors"
	"strings"
	"testing"

	"fieldapi/catalog"
	"fieldapi/engine"
)

var isolationTests = []test{
	{"a session never sees another company's records", testIsolation},
	{"keys are per company", testKeysPerCompany},
}

// testIsolation: records of one company are invisible to a session of
// another — not listed, not found, not changed — lines included.
func testIsolation(t *testing.T, s *suite) {
	ctx := context.Background()
	sub := s.subject
	name := uniqueName("Mine")
	in := sub.input(name)
	if sub.line != nil {
		in.AddLine(sub.line.list.Name, sub.line.input("my line"))
	}
	rec, err := s.create(s.Company, in)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	key := s.keyOf(t, rec)

	if _, err := s.Engine.Get(ctx, s.Other, sub.reg.Name, key); !errors.Is(err, engine.ErrNotFound) {
		t.Errorf("Get of another company's record: %v; want engine.ErrNotFound", err)
	}
	for _, r := range s.walk(t, s.Other, sub.reg.Name, 100) {
		if r[sub.name] == name {
			t.Errorf("another company's record is listed: %v", r)
		}
	}
	change := engine.NewInput()
	change.Values[sub.name] = "taken over"
	var c capture
	if _, err := s.Engine.Update(ctx, s.Other, sub.reg.Name, key, change, c.receipt(noClaim)); !errors.Is(err, engine.ErrNotFound) {
		t.Errorf("Update of another company's record: %v; want engine.ErrNotFound", err)
	}
	if got := s.get(t, s.Company, sub.reg.Name, key); got[sub.name] != name {
		t.Errorf("another company's Update changed %s to %v", sub.name, got[sub.name])
	}

	if ls := sub.line; ls != nil {
		lines := rec.Lines(ls.list.ReadName)
		if len(lines) != 1 {
			t.Fatalf("the rendered record carries %d lines under %s; want the one created", len(lines), ls.list.ReadName)
		}
		lineKey := keyIn(t, lines[0], ls.reg.Key)
		if _, err := s.Engine.Get(ctx, s.Other, ls.reg.Name, lineKey); !errors.Is(err, engine.ErrNotFound) {
			t.Errorf("Get of another company's %s %s: %v; want engine.ErrNotFound", ls.reg.Name, lineKey, err)
		}
		for _, r := range s.walk(t, s.Other, ls.reg.Name, 100) {
			if r[ls.name] == "my line" {
				t.Errorf("another company's line is listed: %v", r)
			}
		}
		// Nor can a line be hung on another company's record.
		if parent := ls.reg.Field(ls.list.Parent); ls.reg.Has(catalog.Create) && parent.Writable && parent.References == sub.reg.Name {
			stray := ls.input("stray line")
			stray.Values[ls.list.Parent] = key
			_, err := s.Engine.Create(ctx, s.Other, ls.reg.Name, stray, c.receipt(noClaim))
			refusalDetail(t, err, "Create of a "+ls.reg.Name+" whose "+ls.list.Parent+" is another company's record")
		}
	}
}

// testKeysPerCompany: two companies may hold the same key, each reading
// its own record.
func testKeysPerCompany(t *testing.T, s *suite) {
	sub := s.subject
	key := strings.ReplaceAll(uniqueName("Shared"), " ", "-")
	names := map[string]string{} // by key, per company
	for _, sess := range []engine.Session{s.Company, s.Other} {
		name := uniqueName(sess.Company)
		in := sub.input(name)
		if sub.chosenKey {
			in.Values[sub.key] = key
		}
		rec, err := s.create(sess, in)
		if err != nil {
			t.Fatalf("Create in %s: %v", sess.Company, err)
		}
		names[sess.Company+"\x00"+s.keyOf(t, rec)] = name
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
		if got := s.get(t, sess, sub.reg.Name, key); got[sub.name] != name {
			t.Errorf("Get in %s of %s reads %v; want its own record %q", company, key, got[sub.name], name)
		}
	}
}
