// Package capabilities is the part of engine/enginetest that checks the
// port's optional interfaces when the engine offers them, and skips them,
// saying so, when it does not: engine.Commands (lines added one by one,
// actions), engine.Locations, engine.Documents, engine.Events and
// engine.Upserts (Tests, run as the group "capabilities"), and
// engine.Atomic (Atomic, the group "atomic").
package capabilities

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"testing"

	"fieldapi/catalog"
	"fieldapi/engine"
	"fieldapi/engine/enginetest/kit"
)

// The optional capabilities are tested when the engine offers them (the
// HTTP layer answers 501 not_implemented otherwise), on the registers the
// catalog declares them for. The records they need are built from the
// catalog by kit.Suite.Fill; a record this engine's rules refuse skips the subtest,
// showing the refusal.
var Tests = []kit.Test{
	test("lines added one by one (engine.Commands)", testAddLine),
	test("actions (engine.Commands)", testActNotFound),
	test("locations (engine.Locations)", testLocations),
	test("documents (engine.Documents)", testDocuments),
	test("events (engine.Events)", testEvents),
}

// capability returns the engine's capability C, or skips.
func capability[C any](t *testing.T, s *suite, what string) C {
	t.Helper()
	c, ok := s.Engine.(C)
	if !ok {
		t.Skipf("the engine does not offer %s: the HTTP layer answers 501 not_implemented", what)
	}
	return c
}

// registersWith lists the catalog's registers that have has.
func (s *suite) registersWith(has func(*catalog.Register) bool) []*catalog.Register {
	var out []*catalog.Register
	for _, r := range s.Catalog.Registers {
		if has(r) {
			out = append(out, r)
		}
	}
	return out
}

// postedLine is the first line list of r that takes lines one by one.
func postedLine(r *catalog.Register) *catalog.Line {
	for _, l := range r.Lines {
		if l.Post {
			return l
		}
	}
	return nil
}

// testAddLine: AddLine writes one line on an existing record, with the
// owner's key and the list's fixed values, and commits its receipt with
// it; an unknown owner is engine.ErrNotFound.
func testAddLine(t *testing.T, s *suite) {
	cmd := capability[engine.Commands](t, s, "engine.Commands")
	ctx := context.Background()
	owners := s.registersWith(func(r *catalog.Register) bool { return postedLine(r) != nil && r.Has(catalog.Create) })
	if len(owners) == 0 {
		t.Skip("no register of the catalog takes lines one by one")
	}
	var c kit.Capture
	for _, r := range owners {
		l := postedLine(r)
		lr := s.Catalog.Register(l.Register)
		skip := map[string]bool{l.Parent: true}
		for name := range l.Set {
			skip[name] = true
		}
		_, err := cmd.AddLine(ctx, s.Company, r.Name, "999999999", l.Name, s.Fill(t, lr, skip, 0), c.Receipt(kit.NoClaim))
		if !errors.Is(err, engine.ErrNotFound) {
			t.Errorf("AddLine %s on an unknown %s: %v; want engine.ErrNotFound", l.Name, r.Name, err)
		}
	}

	r := owners[0]
	l := postedLine(r)
	lr := s.Catalog.Register(l.Register)
	owner := s.CreateFilled(t, r, nil, 0)
	kit.CheckTypes(t, "Create "+r.Name, r, owner)
	key := kit.KeyIn(t, owner, r.Key)
	skip := map[string]bool{l.Parent: true}
	for name := range l.Set {
		skip[name] = true
	}
	claim := s.Claim(t, "addline", "fp")
	resp, err := cmd.AddLine(ctx, s.Company, r.Name, key, l.Name, s.Fill(t, lr, skip, 0), c.Receipt(claim))
	if kit.IsRefusal(err) {
		t.Skipf("this engine refuses the %s line the suite builds from the catalog: %v", l.Name, err)
	}
	if err != nil {
		t.Fatalf("AddLine %s on %s %s: %v", l.Name, r.Name, key, err)
	}
	if got := c.Rec[l.Parent]; got != key {
		t.Errorf("the line's %s = %#v; want the owner's key %q", l.Parent, got, key)
	}
	for field, value := range l.Set {
		if got := c.Rec[field]; got != value {
			t.Errorf("the line's %s = %#v; want %q, set by the line list", field, got, value)
		}
	}
	lineKey := kit.KeyIn(t, c.Rec, lr.Key)
	kit.CheckTypes(t, "Get "+lr.Name, lr, s.Get(t, s.Company, lr.Name, lineKey))
	if l.Read {
		owner := s.Get(t, s.Company, r.Name, key)
		found := false
		for _, line := range owner.Lines(l.ReadName) {
			found = found || line[lr.Key] == lineKey
		}
		if !found {
			t.Errorf("the owner's %s does not carry the line added", l.ReadName)
		}
	}
	if res := s.ClaimAgain(t, claim); res.State != engine.Replay || !bytes.Equal(res.Response.Body, resp.Body) {
		t.Errorf("Claim after AddLine = %s; want Replay of its response", res.State)
	}
	if _, err := cmd.AddLine(ctx, s.Other, r.Name, key, l.Name, s.Fill(t, lr, skip, 0), c.Receipt(kit.NoClaim)); !errors.Is(err, engine.ErrNotFound) {
		t.Errorf("AddLine on another company's %s: %v; want engine.ErrNotFound", r.Name, err)
	}
}

// testActNotFound: an action on a record that does not exist is
// engine.ErrNotFound. What an action does is the engine's own rule.
func testActNotFound(t *testing.T, s *suite) {
	cmd := capability[engine.Commands](t, s, "engine.Commands")
	regs := s.registersWith(func(r *catalog.Register) bool { return len(r.Actions) > 0 })
	if len(regs) == 0 {
		t.Skip("no register of the catalog has actions")
	}
	var c kit.Capture
	for _, r := range regs {
		for _, a := range r.Actions {
			in := engine.NewInput()
			for _, f := range a.Fields {
				in.Values[f.Name] = s.SampleValue(t, f, 0)
			}
			_, err := cmd.Act(context.Background(), s.Company, r.Name, "999999999", a.Name, in, c.Receipt(kit.NoClaim))
			if !errors.Is(err, engine.ErrNotFound) {
				t.Errorf("Act %s on an unknown %s: %v; want engine.ErrNotFound", a.Name, r.Name, err)
			}
		}
	}
}

// testLocations: a pinned position is stored with its receipt, read back
// fixed, and never recalculated, not even when forced; unknown records
// and other companies' records are engine.ErrNotFound.
func testLocations(t *testing.T, s *suite) {
	locs := capability[engine.Locations](t, s, "engine.Locations")
	ctx := context.Background()
	regs := s.registersWith(func(r *catalog.Register) bool { return r.Location && r.Has(catalog.Create) })
	if len(regs) == 0 {
		t.Skip("no register of the catalog carries a location")
	}
	r := regs[0]
	if s.Subject.Reg.Location {
		r = s.Subject.Reg
	}
	if _, err := locs.Location(ctx, s.Company, r.Name, "999999999", engine.Locate{}); !errors.Is(err, engine.ErrNotFound) {
		t.Errorf("Location of an unknown %s: %v; want engine.ErrNotFound", r.Name, err)
	}
	key := kit.KeyIn(t, s.CreateFilled(t, r, nil, 0), r.Key)
	pin := engine.Pin{Latitude: 59.3293, Longitude: 18.0686, Address: "Enginetest 1"}
	claim := s.Claim(t, "pin", "fp")
	var c kit.Capture
	resp, err := locs.PinLocation(ctx, s.Company, r.Name, key, pin, c.Receipt(claim))
	if err != nil {
		t.Fatalf("PinLocation: %v", err)
	}
	if lat, lon, fixed := c.Rec.Number("Latitude"), c.Rec.Number("Longitude"), c.Rec.Bool("Fixed"); lat == nil || *lat != pin.Latitude || lon == nil || *lon != pin.Longitude || fixed == nil || !*fixed {
		t.Errorf("the pin's receipt record = %v; want Latitude %v, Longitude %v, Fixed true", c.Rec, pin.Latitude, pin.Longitude)
	}
	if res := s.ClaimAgain(t, claim); res.State != engine.Replay || !bytes.Equal(res.Response.Body, resp.Body) {
		t.Errorf("Claim after PinLocation = %s; want Replay of its response", res.State)
	}
	loc, err := locs.Location(ctx, s.Company, r.Name, key, engine.Locate{Locate: true, Force: true})
	if err != nil {
		t.Fatalf("Location: %v", err)
	}
	if loc.Latitude == nil || *loc.Latitude != pin.Latitude || loc.Longitude == nil || *loc.Longitude != pin.Longitude || !loc.Fixed {
		t.Errorf("Location after a pin, forced to locate = %+v; want the pinned %v, %v, Fixed", loc, pin.Latitude, pin.Longitude)
	}
	if _, err := locs.Location(ctx, s.Other, r.Name, key, engine.Locate{}); !errors.Is(err, engine.ErrNotFound) {
		t.Errorf("Location of another company's %s: %v; want engine.ErrNotFound", r.Name, err)
	}
	if _, err := locs.PinLocation(ctx, s.Other, r.Name, key, pin, c.Receipt(kit.NoClaim)); !errors.Is(err, engine.ErrNotFound) {
		t.Errorf("PinLocation of another company's %s: %v; want engine.ErrNotFound", r.Name, err)
	}
}

// testDocuments: an upload is stored with its receipt (Id, Nr, Name),
// listed, and opened as stored; unknown documents and other companies'
// records are engine.ErrNotFound.
func testDocuments(t *testing.T, s *suite) {
	docs := capability[engine.Documents](t, s, "engine.Documents")
	ctx := context.Background()
	regs := s.registersWith(func(r *catalog.Register) bool { return r.Documents && r.Has(catalog.Create) })
	if len(regs) == 0 {
		t.Skip("no register of the catalog carries documents")
	}
	r := regs[0]
	if _, err := docs.ListDocuments(ctx, s.Company, r.Name, "999999999"); !errors.Is(err, engine.ErrNotFound) {
		t.Errorf("ListDocuments of an unknown %s: %v; want engine.ErrNotFound", r.Name, err)
	}
	key := kit.KeyIn(t, s.CreateFilled(t, r, nil, 0), r.Key)
	content := []byte("enginetest document\n")
	claim := s.Claim(t, "document", "fp")
	var c kit.Capture
	resp, err := docs.AddDocument(ctx, s.Company, r.Name, key, engine.NewDocument{Name: "notes.txt", Content: content}, c.Receipt(claim))
	if err != nil {
		t.Fatalf("AddDocument: %v", err)
	}
	id := c.Rec.Number("Id")
	if id == nil || *id < 1 || c.Rec["Nr"] != key || c.Rec["Name"] != "notes.txt" {
		t.Fatalf("the upload's receipt record = %v; want Id (a positive number), Nr %q and Name notes.txt", c.Rec, key)
	}
	if res := s.ClaimAgain(t, claim); res.State != engine.Replay || !bytes.Equal(res.Response.Body, resp.Body) {
		t.Errorf("Claim after AddDocument = %s; want Replay of its response", res.State)
	}
	list, err := docs.ListDocuments(ctx, s.Company, r.Name, key)
	if err != nil {
		t.Fatalf("ListDocuments: %v", err)
	}
	found := false
	for _, d := range list {
		if d.ID == int64(*id) {
			found = true
			if d.Name != "notes.txt" || d.Kind != "embedded" {
				t.Errorf("listed document = %+v; want Name notes.txt, Kind embedded", d)
			}
		}
	}
	if !found {
		t.Errorf("ListDocuments = %+v; want the document uploaded, Id %v", list, *id)
	}
	doc, err := docs.OpenDocument(ctx, s.Company, r.Name, key, int64(*id))
	if err != nil {
		t.Fatalf("OpenDocument: %v", err)
	}
	got, err := io.ReadAll(doc.Body)
	doc.Body.Close()
	if err != nil || !bytes.Equal(got, content) || (doc.Size >= 0 && doc.Size != int64(len(content))) {
		t.Errorf("OpenDocument = %q (size %d), %v; want the content uploaded, %q", got, doc.Size, err, content)
	}
	for _, open := range []struct {
		what string
		sess engine.Session
		id   int64
	}{
		{"an unknown document", s.Company, int64(*id) + 1000},
		{fmt.Sprintf("another company's %s", r.Name), s.Other, int64(*id)},
	} {
		if _, err := docs.OpenDocument(ctx, open.sess, r.Name, key, open.id); !errors.Is(err, engine.ErrNotFound) {
			t.Errorf("OpenDocument of %s: %v; want engine.ErrNotFound", open.what, err)
		}
	}
}

// testEvents: an engine that records events records one per committed
// write, of the type the catalog names, about the record written, at the
// next position of the company's feed; a refused write records none, and
// another company's feed never shows them.
func testEvents(t *testing.T, s *suite) {
	feed := capability[engine.Events](t, s, "engine.Events")
	ctx := context.Background()
	read := func(sess engine.Session, after int64) engine.EventPage {
		t.Helper()
		page, err := feed.Events(ctx, sess, engine.EventQuery{After: after, Limit: 100})
		if err != nil {
			t.Fatalf("Events: %v", err)
		}
		return page
	}
	start := read(s.Company, 0).Next
	rec := s.MustCreate(t, s.Company, "Eventful")
	key := s.KeyOf(t, rec)
	bad := s.Subject.Input("Refused")
	bad.AddLine("no-such-list", engine.NewInput())
	if _, err := s.Create(s.Company, bad); !kit.IsRefusal(err) {
		t.Fatalf("a create with an unknown line list: %v, want a refusal", err)
	}
	page := read(s.Company, start)
	if len(page.Events) != 1 {
		t.Fatalf("%d events after one committed and one refused create, want 1", len(page.Events))
	}
	ev := page.Events[0]
	var payload struct {
		Type, Register, Key string
		Position            int64
	}
	if err := json.Unmarshal(ev.Payload, &payload); err != nil {
		t.Fatalf("event payload is not JSON: %v", err)
	}
	want := s.Subject.Reg.EventType(catalog.EventCreated)
	if ev.Type != want || payload.Type != want || payload.Register != s.Subject.Reg.Name || payload.Key != key {
		t.Fatalf("event %+v, want a %s of %s %s", payload, want, s.Subject.Reg.Name, key)
	}
	if ev.Position != start+1 || page.Next != ev.Position {
		t.Fatalf("position %d, next %d after cursor %d: want the next position", ev.Position, page.Next, start)
	}
	if other := read(s.Other, 0); len(other.Events) != 0 {
		t.Fatalf("the other company's feed shows %d events", len(other.Events))
	}
}

// suite is one subtest's engine, with this package's helpers.
type suite struct{ *kit.Suite }

// test makes a test of this package, written on its suite, a kit.Test.
var test = kit.With(func(s *kit.Suite) *suite { return &suite{s} })
