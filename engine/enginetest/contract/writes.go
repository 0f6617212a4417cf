package contract

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"fieldapi/engine"
	"fieldapi/engine/enginetest/kit"
)

var Writes = []kit.Test{
	test("create renders the record as read", testCreateRendersRecord),
	test("a key given is kept and a taken key refused", testGivenKey),
	test("create with lines is all or nothing", testLinesAllOrNothing),
	test("update changes only the fields sent", testUpdateOnlySent),
	test("not found", testNotFound),
	test("the receipt commits with the write", testReceiptCommits),
	test("an update with a stale version is refused and changes nothing", testUpdateIfMatch),
}

// sameFields checks that two reads of a record agree on every catalog
// field and Modified.
func (s *suite) sameFields(t *testing.T, what string, got, want engine.Record) {
	t.Helper()
	for _, f := range append(s.Subject.Reg.Fields, nil) {
		name := "Modified"
		if f != nil {
			name = f.Name
		}
		if !reflect.DeepEqual(got[name], want[name]) {
			t.Errorf("%s: %s = %#v; Get reads %#v", what, name, got[name], want[name])
		}
	}
}

// testCreateRendersRecord: the receipt renders the record as a Get reads
// it afterwards, with the catalog's defaults and an assigned key; Create
// returns what the receipt rendered.
func testCreateRendersRecord(t *testing.T, s *suite) {
	sub := s.Subject
	name := kit.UniqueName("Rendered")
	in := sub.Input(name)
	if len(sub.Spare) > 0 {
		in.Values[sub.Spare[0]] = "given"
	}
	var c kit.Capture
	resp, err := s.Engine.Create(context.Background(), s.Company, sub.Reg.Name, in, c.Receipt(kit.NoClaim))
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	if c.Called != 1 {
		t.Fatalf("the receipt was rendered %d times; want once", c.Called)
	}
	if resp.Status != 201 || !strings.Contains(string(resp.Body), name) {
		t.Errorf("Create returned %d %s; want the response the receipt rendered", resp.Status, resp.Body)
	}
	key := s.KeyOf(t, c.Rec)
	read := s.Get(t, s.Company, sub.Reg.Name, key)
	s.sameFields(t, "the rendered record", c.Rec, read)
	kit.CheckTypes(t, "Get "+sub.Reg.Name, sub.Reg, read)
	if v := read.Text(sub.Name); v == nil || *v != name {
		t.Errorf("%s = %v; want %q as sent", sub.Name, read[sub.Name], name)
	}
	if len(sub.Spare) > 0 && read[sub.Spare[0]] != "given" {
		t.Errorf("%s = %v; want \"given\" as sent", sub.Spare[0], read[sub.Spare[0]])
	}
	s.modified(t, read)
	for field, def := range sub.Reg.Defaults {
		if _, sent := in.Values[field]; sent {
			continue
		}
		got := read[field]
		switch def {
		case "$sign":
			def = s.Company.Sign
		case "$today":
			if text, ok := got.(string); !ok || len(text) != len("2006-01-02") {
				t.Errorf("%s = %#v; want today's date, the catalog's default", field, got)
			}
			continue
		}
		if f := sub.Reg.Field(field); f != nil && kit.PlainTextType(f.Type) && got != def {
			t.Errorf("%s = %#v; want %q, the catalog's default for a create that omits it", field, got, def)
		}
	}
	other := s.MustCreate(t, s.Company, kit.UniqueName("Rendered"))
	if s.KeyOf(t, other) == key {
		t.Errorf("two creates got the same key %s", key)
	}
}

// testGivenKey: a key the client may choose is kept as given; a key in use
// is refused with an *engine.KeyTakenError (422 command_failed over HTTP; a lookup key taken is 409).
func testGivenKey(t *testing.T, s *suite) {
	sub := s.Subject
	if !sub.ChosenKey {
		t.Skipf("the key %s of %s is assigned by the engine", sub.Key, sub.Reg.Name)
	}
	key := strings.ReplaceAll(kit.UniqueName("K"), " ", "-")
	in := sub.Input(kit.UniqueName("Keyed"))
	in.Values[sub.Key] = key
	rec, err := s.Create(s.Company, in)
	if err != nil {
		t.Fatalf("Create with %s %q: %v", sub.Key, key, err)
	}
	if got := s.KeyOf(t, rec); got != key {
		t.Errorf("%s = %q; want %q as given", sub.Key, got, key)
	}
	in = sub.Input(kit.UniqueName("Keyed again"))
	in.Values[sub.Key] = key
	_, err = s.Create(s.Company, in)
	var taken *engine.KeyTakenError
	if !errors.As(err, &taken) || taken.Field != sub.Key || taken.Value != key {
		t.Errorf("Create with a key in use: %v; want an *engine.KeyTakenError naming %s %s (409)", err, sub.Key, key)
	}
}

// testLinesAllOrNothing: a create with lines writes the record and every
// line, or — when a line is refused — nothing, with the refusal naming the
// line as "<list>[<index>]: ".
func testLinesAllOrNothing(t *testing.T, s *suite) {
	sub := s.Subject
	ls := sub.Line
	if ls == nil {
		t.Skipf("%s has no line list the suite can fill", sub.Reg.Name)
	}
	if !ls.Required {
		t.Skipf("line list %s has no required field the suite can leave out to make a line fail", ls.List.Name)
	}
	name := kit.UniqueName("Lined")
	linesBefore := len(s.Walk(t, s.Company, ls.Reg.Name, 100))

	bad := sub.Input(name)
	bad.AddLine(ls.List.Name, ls.Input("first line"))
	missing := ls.Input("second line")
	delete(missing.Values, ls.Name)
	bad.AddLine(ls.List.Name, missing)
	_, err := s.Create(s.Company, bad)
	detail := kit.RefusalDetail(t, err, "Create with a line that lacks a required field")
	if want := ls.List.Name + "[1]: "; !strings.HasPrefix(detail, want) {
		t.Errorf("refusal %q; want it to start with %q, naming the line", detail, want)
	}
	if n := len(s.Walk(t, s.Company, sub.Reg.Name, 100, s.Named(name))); n != 0 {
		t.Errorf("a refused create left %d %s behind", n, sub.Reg.Name)
	}
	if n := len(s.Walk(t, s.Company, ls.Reg.Name, 100)); n != linesBefore {
		t.Errorf("a refused create left %d %s behind", n-linesBefore, ls.Reg.Name)
	}

	good := sub.Input(name)
	good.AddLine(ls.List.Name, ls.Input("first line"))
	good.AddLine(ls.List.Name, ls.Input("second line"))
	rec, err := s.Create(s.Company, good)
	if err != nil {
		t.Fatalf("Create with two lines: %v", err)
	}
	key := s.KeyOf(t, rec)
	lines := rec.Lines(ls.List.ReadName)
	if len(lines) != 2 {
		t.Fatalf("the rendered record carries %d lines under %s; want the 2 created", len(lines), ls.List.ReadName)
	}
	for i, want := range []string{"first line", "second line"} {
		if lines[i][ls.Name] != want || lines[i][ls.List.Parent] != key {
			t.Errorf("line %d = %v; want %s %q and %s %q (the owner's key)", i, lines[i], ls.Name, want, ls.List.Parent, key)
		}
		for field, value := range ls.List.Set {
			if got := lines[i][field]; got != value {
				t.Errorf("line %d: %s = %#v; want %q, set by the line list", i, field, got, value)
			}
		}
		kit.CheckTypes(t, "line "+ls.List.Name, ls.Reg, lines[i])
		lineKey := kit.KeyIn(t, lines[i], ls.Reg.Key)
		if got := s.Get(t, s.Company, ls.Reg.Name, lineKey); got[ls.Name] != want {
			t.Errorf("Get %s %s: %s = %v; want %q", ls.Reg.Name, lineKey, ls.Name, got[ls.Name], want)
		}
	}
	if ls.List.Read {
		if got := s.Get(t, s.Company, sub.Reg.Name, key).Lines(ls.List.ReadName); len(got) != 2 {
			t.Errorf("Get %s %s carries %d lines under %s; want the 2 created (the catalog marks the list read)", sub.Reg.Name, key, len(got), ls.List.ReadName)
		}
	}
	owned := s.Walk(t, s.Company, ls.Reg.Name, 100, engine.Condition{Field: ls.List.Parent, Op: engine.OpEquals, Values: []any{key}})
	if len(owned) != 2 {
		t.Errorf("%s listed with %s = %s: %d; want 2", ls.Reg.Name, ls.List.Parent, key, len(owned))
	}
}

// testUpdateOnlySent: an update changes the fields present in the input
// (nil clears one) and nothing else, and renders the whole record.
func testUpdateOnlySent(t *testing.T, s *suite) {
	sub := s.Subject
	if len(sub.Spare) < 2 {
		t.Skipf("%s has fewer than two plain writable text fields besides %s", sub.Reg.Name, sub.Name)
	}
	a, b := sub.Spare[0], sub.Spare[1]
	name := kit.UniqueName("Updated")
	in := sub.Input(name)
	in.Values[a], in.Values[b] = "one", "two"
	rec, err := s.Create(s.Company, in)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	key := s.KeyOf(t, rec)
	created := s.modified(t, rec)
	s.Clock.Advance(20 * time.Millisecond)

	update := func(values map[string]any) engine.Record {
		t.Helper()
		var c kit.Capture
		if _, err := s.Engine.Update(context.Background(), s.Company, sub.Reg.Name, key, engine.Input{Values: values}, c.Receipt(kit.NoClaim)); err != nil {
			t.Fatalf("Update %v: %v", values, err)
		}
		if c.Rec == nil {
			t.Fatalf("Update %v did not render its receipt", values)
		}
		read := s.Get(t, s.Company, sub.Reg.Name, key)
		s.sameFields(t, "the record the update rendered", c.Rec, read)
		return read
	}

	after := update(map[string]any{a: "uno"})
	if after[a] != "uno" || after[b] != "two" || after[sub.Name] != name {
		t.Errorf("after sending only %s: %s=%v %s=%v %s=%v; want uno, two (kept), %q (kept)", a, a, after[a], b, after[b], sub.Name, after[sub.Name], name)
	}
	if !s.modified(t, after).After(created) {
		t.Errorf("Modified did not move on with the update")
	}
	after = update(map[string]any{b: nil})
	if !kit.Cleared(after[b]) || after[a] != "uno" {
		t.Errorf("after sending %s: nil: %s=%#v %s=%v; want it cleared and %s kept", b, b, after[b], a, after[a], a)
	}
	after = update(map[string]any{})
	if after[a] != "uno" || after[sub.Name] != name {
		t.Errorf("an empty update changed the record: %v", after)
	}
}

// testNotFound: reads and writes of a key that does not exist in the
// caller's company answer engine.ErrNotFound, whatever the key looks like.
func testNotFound(t *testing.T, s *suite) {
	ctx := context.Background()
	sub := s.Subject
	keys := []string{"999999999", "no such key", "0", "-1", "%2F", ""}
	for _, key := range keys {
		if _, err := s.Engine.Get(ctx, s.Company, sub.Reg.Name, key); !errors.Is(err, engine.ErrNotFound) {
			t.Errorf("Get %s %q: %v; want engine.ErrNotFound", sub.Reg.Name, key, err)
		}
		in := engine.NewInput()
		in.Values[sub.Name] = "x"
		var c kit.Capture
		if _, err := s.Engine.Update(ctx, s.Company, sub.Reg.Name, key, in, c.Receipt(kit.NoClaim)); !errors.Is(err, engine.ErrNotFound) {
			t.Errorf("Update %s %q: %v; want engine.ErrNotFound", sub.Reg.Name, key, err)
		}
	}
	if ls := sub.Line; ls != nil {
		for _, key := range keys {
			if _, err := s.Engine.Get(ctx, s.Company, ls.Reg.Name, key); !errors.Is(err, engine.ErrNotFound) {
				t.Errorf("Get %s %q: %v; want engine.ErrNotFound", ls.Reg.Name, key, err)
			}
		}
	}
}

// testReceiptCommits: the response a write renders is stored with its
// idempotency claim in the write's own transaction — both commit or
// neither — and a write whose claim was taken over does not commit.
func testReceiptCommits(t *testing.T, s *suite) {
	ctx := context.Background()
	sub := s.Subject
	store := s.Engine.Idempotency()

	// Create and update: the stored response replays.
	for _, update := range []bool{false, true} {
		claim := s.Claim(t, "receipt", "fp")
		var c kit.Capture
		var resp engine.Response
		var err error
		if update {
			key := s.KeyOf(t, s.MustCreate(t, s.Company, kit.UniqueName("Receipted")))
			in := engine.NewInput()
			in.Values[sub.Name] = kit.UniqueName("Receipted again")
			resp, err = s.Engine.Update(ctx, s.Company, sub.Reg.Name, key, in, c.Receipt(claim))
		} else {
			resp, err = s.Engine.Create(ctx, s.Company, sub.Reg.Name, sub.Input(kit.UniqueName("Receipted")), c.Receipt(claim))
		}
		if err != nil {
			t.Fatalf("write with a claim (update %v): %v", update, err)
		}
		res := s.ClaimAgain(t, claim)
		if res.State != engine.Replay || res.Response.Status != resp.Status || string(res.Response.Body) != string(resp.Body) {
			t.Errorf("Claim after the write (update %v) = %v %d %s; want Replay of the response the write returned, %d %s",
				update, res.State, res.Response.Status, res.Response.Body, resp.Status, resp.Body)
		}
		if want := []kit.LogEntry{{Action: "create"}}; update {
			s.ExpectLog(t, s.Company, sub.Reg.Name, s.KeyOf(t, c.Rec), append(want, kit.LogEntry{Action: "update", Detail: sub.Name})...)
		} else {
			s.ExpectLog(t, s.Company, sub.Reg.Name, s.KeyOf(t, c.Rec), want...)
		}
	}

	// The writes that fail below leave no record and no event.
	records := len(s.Walk(t, s.Company, sub.Reg.Name, 500))
	feed, _ := s.Engine.(engine.Events)
	var events int64
	if feed != nil {
		events = s.FeedEnd(t, feed, s.Company)
	}

	// A receipt that cannot be rendered: nothing is written.
	name := kit.UniqueName("Unrendered")
	failing := engine.Receipt{Claim: s.Claim(t, "failing", "fp"), Render: func(engine.Record) (engine.Response, error) {
		return engine.Response{}, errors.New("render failed")
	}}
	if _, err := s.Engine.Create(ctx, s.Company, sub.Reg.Name, sub.Input(name), failing); err == nil {
		t.Error("Create whose receipt failed to render succeeded; want its error")
	}
	if n := len(s.Walk(t, s.Company, sub.Reg.Name, 10, s.Named(name))); n != 0 {
		t.Errorf("Create whose receipt failed to render left %d records; want none", n)
	}

	// A key another execution answered meanwhile: the write must not commit.
	name = kit.UniqueName("Lost")
	lost := s.Claim(t, "lost", "fp")
	if err := store.Complete(ctx, lost, engine.Response{Status: 422, Body: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	var c kit.Capture
	if _, err := s.Engine.Create(ctx, s.Company, sub.Reg.Name, sub.Input(name), c.Receipt(lost)); !errors.Is(err, engine.ErrClaimLost) {
		t.Errorf("Create under a key another execution answered: %v; want engine.ErrClaimLost (409, never 500)", err)
	}
	if n := len(s.Walk(t, s.Company, sub.Reg.Name, 10, s.Named(name))); n != 0 {
		t.Errorf("Create under a lost claim left %d records; want none", n)
	}
	if n := len(s.Walk(t, s.Company, sub.Reg.Name, 500)); n != records {
		t.Errorf("%d %s after the failed writes; want %d as before", n, sub.Reg.Name, records)
	}
	if feed != nil {
		if evs := s.EventsAfter(t, feed, s.Company, events); len(evs) != 0 {
			t.Errorf("the failed writes recorded %d events; want none", len(evs))
		}
	}

	// A refused write stores nothing: the key stays free for the HTTP
	// layer to complete with the refusal.
	if ls := sub.Line; ls != nil && ls.Required {
		refused := s.Claim(t, "refused", "fp")
		in := sub.Input(kit.UniqueName("Refused"))
		in.AddLine(ls.List.Name, engine.NewInput())
		_, err := s.Engine.Create(ctx, s.Company, sub.Reg.Name, in, c.Receipt(refused))
		kit.RefusalDetail(t, err, "Create with an empty line")
		stored := engine.Response{Status: 422, Body: []byte(`{"title":"command_failed"}`)}
		if err := store.Complete(ctx, refused, stored); err != nil {
			t.Fatalf("Complete after a refused write: %v; want the key still free", err)
		}
		if res := s.ClaimAgain(t, refused); res.State != engine.Replay || res.Response.Status != 422 {
			t.Errorf("Claim after Complete = %v %d; want Replay of the 422", res.State, res.Response.Status)
		}
	}
}

// testUpdateIfMatch: the version of a record is the same whether the
// create's receipt, a Get or an update's receipt sees it; an update naming
// the current version (Input.IfMatch) goes ahead, one naming an older one
// is ErrPreconditionFailed and changes nothing.
func testUpdateIfMatch(t *testing.T, s *suite) {
	sub := s.Subject
	if len(sub.Spare) < 1 {
		t.Skipf("%s has no plain writable text field besides %s", sub.Reg.Name, sub.Name)
	}
	field := sub.Spare[0]
	rec := s.MustCreate(t, s.Company, kit.UniqueName("Versioned"))
	key := s.KeyOf(t, rec)
	v1 := s.Get(t, s.Company, sub.Reg.Name, key).Version()
	if rec.Version() != v1 {
		t.Errorf("the create's receipt has version %q, a Get %q: a client could not use the create's ETag", rec.Version(), v1)
	}
	s.Clock.Advance(2 * time.Millisecond) // a new Modified, however coarse the engine's clock

	var c kit.Capture
	_, err := s.Engine.Update(context.Background(), s.Company, sub.Reg.Name, key,
		engine.Input{Values: map[string]any{field: "first"}, IfMatch: []string{"not-a-version", v1}}, c.Receipt(kit.NoClaim))
	if err != nil {
		t.Fatalf("Update with the current version: %v", err)
	}
	v2 := s.Get(t, s.Company, sub.Reg.Name, key).Version()
	if v2 == v1 {
		t.Fatalf("the version did not change with the update")
	}
	if c.Rec.Version() != v2 {
		t.Errorf("the update's receipt has version %q, a Get %q", c.Rec.Version(), v2)
	}

	c = kit.Capture{}
	_, err = s.Engine.Update(context.Background(), s.Company, sub.Reg.Name, key,
		engine.Input{Values: map[string]any{field: "second"}, IfMatch: []string{v1}}, c.Receipt(kit.NoClaim))
	if !errors.Is(err, engine.ErrPreconditionFailed) {
		t.Fatalf("Update with a stale version: %v, want ErrPreconditionFailed", err)
	}
	after := s.Get(t, s.Company, sub.Reg.Name, key)
	if after[field] != "first" || after.Version() != v2 || c.Called != 0 {
		t.Errorf("a refused update changed the record (%s = %v) or rendered its receipt (%d)", field, after[field], c.Called)
	}
}
