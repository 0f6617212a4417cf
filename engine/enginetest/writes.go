package enginetest

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"fieldapi/catalog"
	"fieldapi/engine"
)

var writeTests = []test{
	{"create renders the record as read", testCreateRendersRecord},
	{"a key given is kept and a taken key refused", testGivenKey},
	{"create with lines is all or nothing", testLinesAllOrNothing},
	{"update changes only the fields sent", testUpdateOnlySent},
	{"not found", testNotFound},
	{"the receipt commits with the write", testReceiptCommits},
	{"an update with a stale version is refused and changes nothing", testUpdateIfMatch},
}

// sameFields checks that two reads of a record agree on every catalog
// field and Modified.
func (s *suite) sameFields(t *testing.T, what string, got, want engine.Record) {
	t.Helper()
	for _, f := range append(s.subject.reg.Fields, nil) {
		name := "Modified"
		if f != nil {
			name = f.Name
		}
		if !reflect.DeepEqual(got[name], want[name]) {
			t.Errorf("%s: %s = %#v; Get reads %#v", what, name, got[name], want[name])
		}
	}
}

// checkTypes checks every catalog field of a record holds nil or the
// value type the port names for its catalog type: the generated mappers
// read any other type as absent.
func checkTypes(t *testing.T, what string, reg *catalog.Register, rec engine.Record) {
	t.Helper()
	for _, f := range reg.Fields {
		v := rec[f.Name]
		if v == nil {
			continue
		}
		var ok bool
		switch f.Type {
		case catalog.Number:
			_, ok = v.(float64)
		case catalog.Bool:
			_, ok = v.(bool)
		case catalog.List:
			_, ok = v.([]string)
		case catalog.Object:
			_, ok = v.(map[string]string)
		default: // text and date
			_, ok = v.(string)
		}
		if !ok {
			t.Errorf("%s: %s (%s) holds a %T; the port's types are string, float64, bool, []string and map[string]string", what, f.Name, f.Type, v)
		}
	}
}

func (s *suite) get(t *testing.T, sess engine.Session, register, key string) engine.Record {
	t.Helper()
	rec, err := s.Engine.Get(context.Background(), sess, register, key)
	if err != nil {
		t.Fatalf("Get %s %s: %v", register, key, err)
	}
	return rec
}

// testCreateRendersRecord: the receipt renders the record as a Get reads
// it afterwards, with the catalog's defaults and an assigned key; Create
// returns what the receipt rendered.
func testCreateRendersRecord(t *testing.T, s *suite) {
	sub := s.subject
	name := uniqueName("Rendered")
	in := sub.input(name)
	if len(sub.spare) > 0 {
		in.Values[sub.spare[0]] = "given"
	}
	var c capture
	resp, err := s.Engine.Create(context.Background(), s.Company, sub.reg.Name, in, c.receipt(noClaim))
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	if c.called != 1 {
		t.Fatalf("the receipt was rendered %d times; want once", c.called)
	}
	if resp.Status != 201 || !strings.Contains(string(resp.Body), name) {
		t.Errorf("Create returned %d %s; want the response the receipt rendered", resp.Status, resp.Body)
	}
	key := s.keyOf(t, c.rec)
	read := s.get(t, s.Company, sub.reg.Name, key)
	s.sameFields(t, "the rendered record", c.rec, read)
	checkTypes(t, "Get "+sub.reg.Name, sub.reg, read)
	if v := read.Text(sub.name); v == nil || *v != name {
		t.Errorf("%s = %v; want %q as sent", sub.name, read[sub.name], name)
	}
	if len(sub.spare) > 0 && read[sub.spare[0]] != "given" {
		t.Errorf("%s = %v; want \"given\" as sent", sub.spare[0], read[sub.spare[0]])
	}
	s.modified(t, read)
	for field, def := range sub.reg.Defaults {
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
		if f := sub.reg.Field(field); f != nil && plainTextType(f.Type) && got != def {
			t.Errorf("%s = %#v; want %q, the catalog's default for a create that omits it", field, got, def)
		}
	}
	other := s.mustCreate(t, s.Company, uniqueName("Rendered"))
	if s.keyOf(t, other) == key {
		t.Errorf("two creates got the same key %s", key)
	}
}

// testGivenKey: a key the client may choose is kept as given; a key in use
// is refused with an *engine.KeyTakenError (422 command_failed over HTTP; a lookup key taken is 409).
func testGivenKey(t *testing.T, s *suite) {
	sub := s.subject
	if !sub.chosenKey {
		t.Skipf("the key %s of %s is assigned by the engine", sub.key, sub.reg.Name)
	}
	key := strings.ReplaceAll(uniqueName("K"), " ", "-")
	in := sub.input(uniqueName("Keyed"))
	in.Values[sub.key] = key
	rec, err := s.create(s.Company, in)
	if err != nil {
		t.Fatalf("Create with %s %q: %v", sub.key, key, err)
	}
	if got := s.keyOf(t, rec); got != key {
		t.Errorf("%s = %q; want %q as given", sub.key, got, key)
	}
	in = sub.input(uniqueName("Keyed again"))
	in.Values[sub.key] = key
	_, err = s.create(s.Company, in)
	var taken *engine.KeyTakenError
	if !errors.As(err, &taken) || taken.Field != sub.key || taken.Value != key {
		t.Errorf("Create with a key in use: %v; want an *engine.KeyTakenError naming %s %s (409)", err, sub.key, key)
	}
}

// testLinesAllOrNothing: a create with lines writes the record and every
// line, or — when a line is refused — nothing, with the refusal naming the
// line as "<list>[<index>]: ".
func testLinesAllOrNothing(t *testing.T, s *suite) {
	sub := s.subject
	ls := sub.line
	if ls == nil {
		t.Skipf("%s has no line list the suite can fill", sub.reg.Name)
	}
	if !ls.required {
		t.Skipf("line list %s has no required field the suite can leave out to make a line fail", ls.list.Name)
	}
	name := uniqueName("Lined")
	linesBefore := len(s.walk(t, s.Company, ls.reg.Name, 100))

	bad := sub.input(name)
	bad.AddLine(ls.list.Name, ls.input("first line"))
	missing := ls.input("second line")
	delete(missing.Values, ls.name)
	bad.AddLine(ls.list.Name, missing)
	_, err := s.create(s.Company, bad)
	detail := refusalDetail(t, err, "Create with a line that lacks a required field")
	if want := ls.list.Name + "[1]: "; !strings.HasPrefix(detail, want) {
		t.Errorf("refusal %q; want it to start with %q, naming the line", detail, want)
	}
	if n := len(s.walk(t, s.Company, sub.reg.Name, 100, s.named(name))); n != 0 {
		t.Errorf("a refused create left %d %s behind", n, sub.reg.Name)
	}
	if n := len(s.walk(t, s.Company, ls.reg.Name, 100)); n != linesBefore {
		t.Errorf("a refused create left %d %s behind", n-linesBefore, ls.reg.Name)
	}

	good := sub.input(name)
	good.AddLine(ls.list.Name, ls.input("first line"))
	good.AddLine(ls.list.Name, ls.input("second line"))
	rec, err := s.create(s.Company, good)
	if err != nil {
		t.Fatalf("Create with two lines: %v", err)
	}
	key := s.keyOf(t, rec)
	lines := rec.Lines(ls.list.ReadName)
	if len(lines) != 2 {
		t.Fatalf("the rendered record carries %d lines under %s; want the 2 created", len(lines), ls.list.ReadName)
	}
	for i, want := range []string{"first line", "second line"} {
		if lines[i][ls.name] != want || lines[i][ls.list.Parent] != key {
			t.Errorf("line %d = %v; want %s %q and %s %q (the owner's key)", i, lines[i], ls.name, want, ls.list.Parent, key)
		}
		for field, value := range ls.list.Set {
			if got := lines[i][field]; got != value {
				t.Errorf("line %d: %s = %#v; want %q, set by the line list", i, field, got, value)
			}
		}
		checkTypes(t, "line "+ls.list.Name, ls.reg, lines[i])
		lineKey := keyIn(t, lines[i], ls.reg.Key)
		if got := s.get(t, s.Company, ls.reg.Name, lineKey); got[ls.name] != want {
			t.Errorf("Get %s %s: %s = %v; want %q", ls.reg.Name, lineKey, ls.name, got[ls.name], want)
		}
	}
	if ls.list.Read {
		if got := s.get(t, s.Company, sub.reg.Name, key).Lines(ls.list.ReadName); len(got) != 2 {
			t.Errorf("Get %s %s carries %d lines under %s; want the 2 created (the catalog marks the list read)", sub.reg.Name, key, len(got), ls.list.ReadName)
		}
	}
	owned := s.walk(t, s.Company, ls.reg.Name, 100, engine.Condition{Field: ls.list.Parent, Op: engine.OpEquals, Values: []any{key}})
	if len(owned) != 2 {
		t.Errorf("%s listed with %s = %s: %d; want 2", ls.reg.Name, ls.list.Parent, key, len(owned))
	}
}

// testUpdateOnlySent: an update changes the fields present in the input
// (nil clears one) and nothing else, and renders the whole record.
func testUpdateOnlySent(t *testing.T, s *suite) {
	sub := s.subject
	if len(sub.spare) < 2 {
		t.Skipf("%s has fewer than two plain writable text fields besides %s", sub.reg.Name, sub.name)
	}
	a, b := sub.spare[0], sub.spare[1]
	name := uniqueName("Updated")
	in := sub.input(name)
	in.Values[a], in.Values[b] = "one", "two"
	rec, err := s.create(s.Company, in)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	key := s.keyOf(t, rec)
	created := s.modified(t, rec)
	s.Clock.Advance(20 * time.Millisecond)

	update := func(values map[string]any) engine.Record {
		t.Helper()
		var c capture
		if _, err := s.Engine.Update(context.Background(), s.Company, sub.reg.Name, key, engine.Input{Values: values}, c.receipt(noClaim)); err != nil {
			t.Fatalf("Update %v: %v", values, err)
		}
		if c.rec == nil {
			t.Fatalf("Update %v did not render its receipt", values)
		}
		read := s.get(t, s.Company, sub.reg.Name, key)
		s.sameFields(t, "the record the update rendered", c.rec, read)
		return read
	}

	after := update(map[string]any{a: "uno"})
	if after[a] != "uno" || after[b] != "two" || after[sub.name] != name {
		t.Errorf("after sending only %s: %s=%v %s=%v %s=%v; want uno, two (kept), %q (kept)", a, a, after[a], b, after[b], sub.name, after[sub.name], name)
	}
	if !s.modified(t, after).After(created) {
		t.Errorf("Modified did not move on with the update")
	}
	after = update(map[string]any{b: nil})
	if !cleared(after[b]) || after[a] != "uno" {
		t.Errorf("after sending %s: nil: %s=%#v %s=%v; want it cleared and %s kept", b, b, after[b], a, after[a], a)
	}
	after = update(map[string]any{})
	if after[a] != "uno" || after[sub.name] != name {
		t.Errorf("an empty update changed the record: %v", after)
	}
}

// testNotFound: reads and writes of a key that does not exist in the
// caller's company answer engine.ErrNotFound, whatever the key looks like.
func testNotFound(t *testing.T, s *suite) {
	ctx := context.Background()
	sub := s.subject
	keys := []string{"999999999", "no such key", "0", "-1", "%2F", ""}
	for _, key := range keys {
		if _, err := s.Engine.Get(ctx, s.Company, sub.reg.Name, key); !errors.Is(err, engine.ErrNotFound) {
			t.Errorf("Get %s %q: %v; want engine.ErrNotFound", sub.reg.Name, key, err)
		}
		in := engine.NewInput()
		in.Values[sub.name] = "x"
		var c capture
		if _, err := s.Engine.Update(ctx, s.Company, sub.reg.Name, key, in, c.receipt(noClaim)); !errors.Is(err, engine.ErrNotFound) {
			t.Errorf("Update %s %q: %v; want engine.ErrNotFound", sub.reg.Name, key, err)
		}
	}
	if ls := sub.line; ls != nil {
		for _, key := range keys {
			if _, err := s.Engine.Get(ctx, s.Company, ls.reg.Name, key); !errors.Is(err, engine.ErrNotFound) {
				t.Errorf("Get %s %q: %v; want engine.ErrNotFound", ls.reg.Name, key, err)
			}
		}
	}
}

// testReceiptCommits: the response a write renders is stored with its
// idempotency claim in the write's own transaction — both commit or
// neither — and a write whose claim was taken over does not commit.
func testReceiptCommits(t *testing.T, s *suite) {
	ctx := context.Background()
	sub := s.subject
	store := s.Engine.Idempotency()

	// Create and update: the stored response replays.
	for _, update := range []bool{false, true} {
		claim := s.claim(t, "receipt", "fp")
		var c capture
		var resp engine.Response
		var err error
		if update {
			key := s.keyOf(t, s.mustCreate(t, s.Company, uniqueName("Receipted")))
			in := engine.NewInput()
			in.Values[sub.name] = uniqueName("Receipted again")
			resp, err = s.Engine.Update(ctx, s.Company, sub.reg.Name, key, in, c.receipt(claim))
		} else {
			resp, err = s.Engine.Create(ctx, s.Company, sub.reg.Name, sub.input(uniqueName("Receipted")), c.receipt(claim))
		}
		if err != nil {
			t.Fatalf("write with a claim (update %v): %v", update, err)
		}
		res := s.claimAgain(t, claim)
		if res.State != engine.Replay || res.Response.Status != resp.Status || string(res.Response.Body) != string(resp.Body) {
			t.Errorf("Claim after the write (update %v) = %v %d %s; want Replay of the response the write returned, %d %s",
				update, res.State, res.Response.Status, res.Response.Body, resp.Status, resp.Body)
		}
		if want := []logEntry{{action: "create"}}; update {
			s.expectLog(t, s.Company, sub.reg.Name, s.keyOf(t, c.rec), append(want, logEntry{action: "update", detail: sub.name})...)
		} else {
			s.expectLog(t, s.Company, sub.reg.Name, s.keyOf(t, c.rec), want...)
		}
	}

	// The writes that fail below leave no record and no event.
	records := len(s.walk(t, s.Company, sub.reg.Name, 500))
	feed, _ := s.Engine.(engine.Events)
	var events int64
	if feed != nil {
		events = s.feedEnd(t, feed, s.Company)
	}

	// A receipt that cannot be rendered: nothing is written.
	name := uniqueName("Unrendered")
	failing := engine.Receipt{Claim: s.claim(t, "failing", "fp"), Render: func(engine.Record) (engine.Response, error) {
		return engine.Response{}, errors.New("render failed")
	}}
	if _, err := s.Engine.Create(ctx, s.Company, sub.reg.Name, sub.input(name), failing); err == nil {
		t.Error("Create whose receipt failed to render succeeded; want its error")
	}
	if n := len(s.walk(t, s.Company, sub.reg.Name, 10, s.named(name))); n != 0 {
		t.Errorf("Create whose receipt failed to render left %d records; want none", n)
	}

	// A key another execution answered meanwhile: the write must not commit.
	name = uniqueName("Lost")
	lost := s.claim(t, "lost", "fp")
	if err := store.Complete(ctx, lost, engine.Response{Status: 422, Body: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	var c capture
	if _, err := s.Engine.Create(ctx, s.Company, sub.reg.Name, sub.input(name), c.receipt(lost)); !errors.Is(err, engine.ErrClaimLost) {
		t.Errorf("Create under a key another execution answered: %v; want engine.ErrClaimLost (409, never 500)", err)
	}
	if n := len(s.walk(t, s.Company, sub.reg.Name, 10, s.named(name))); n != 0 {
		t.Errorf("Create under a lost claim left %d records; want none", n)
	}
	if n := len(s.walk(t, s.Company, sub.reg.Name, 500)); n != records {
		t.Errorf("%d %s after the failed writes; want %d as before", n, sub.reg.Name, records)
	}
	if feed != nil {
		if evs := s.eventsAfter(t, feed, s.Company, events); len(evs) != 0 {
			t.Errorf("the failed writes recorded %d events; want none", len(evs))
		}
	}

	// A refused write stores nothing: the key stays free for the HTTP
	// layer to complete with the refusal.
	if ls := sub.line; ls != nil && ls.required {
		refused := s.claim(t, "refused", "fp")
		in := sub.input(uniqueName("Refused"))
		in.AddLine(ls.list.Name, engine.NewInput())
		_, err := s.Engine.Create(ctx, s.Company, sub.reg.Name, in, c.receipt(refused))
		refusalDetail(t, err, "Create with an empty line")
		stored := engine.Response{Status: 422, Body: []byte(`{"title":"command_failed"}`)}
		if err := store.Complete(ctx, refused, stored); err != nil {
			t.Fatalf("Complete after a refused write: %v; want the key still free", err)
		}
		if res := s.claimAgain(t, refused); res.State != engine.Replay || res.Response.Status != 422 {
			t.Errorf("Claim after Complete = %v %d; want Replay of the 422", res.State, res.Response.Status)
		}
	}
}

// testUpdateIfMatch: the version of a record is the same whether the
// create's receipt, a Get or an update's receipt sees it; an update naming
// the current version (Input.IfMatch) goes ahead, one naming an older one
// is ErrPreconditionFailed and changes nothing.
func testUpdateIfMatch(t *testing.T, s *suite) {
	sub := s.subject
	if len(sub.spare) < 1 {
		t.Skipf("%s has no plain writable text field besides %s", sub.reg.Name, sub.name)
	}
	field := sub.spare[0]
	rec := s.mustCreate(t, s.Company, uniqueName("Versioned"))
	key := s.keyOf(t, rec)
	v1 := s.get(t, s.Company, sub.reg.Name, key).Version()
	if rec.Version() != v1 {
		t.Errorf("the create's receipt has version %q, a Get %q: a client could not use the create's ETag", rec.Version(), v1)
	}
	s.Clock.Advance(2 * time.Millisecond) // a new Modified, however coarse the engine's clock

	var c capture
	_, err := s.Engine.Update(context.Background(), s.Company, sub.reg.Name, key,
		engine.Input{Values: map[string]any{field: "first"}, IfMatch: []string{"not-a-version", v1}}, c.receipt(noClaim))
	if err != nil {
		t.Fatalf("Update with the current version: %v", err)
	}
	v2 := s.get(t, s.Company, sub.reg.Name, key).Version()
	if v2 == v1 {
		t.Fatalf("the version did not change with the update")
	}
	if c.rec.Version() != v2 {
		t.Errorf("the update's receipt has version %q, a Get %q", c.rec.Version(), v2)
	}

	c = capture{}
	_, err = s.Engine.Update(context.Background(), s.Company, sub.reg.Name, key,
		engine.Input{Values: map[string]any{field: "second"}, IfMatch: []string{v1}}, c.receipt(noClaim))
	if !errors.Is(err, engine.ErrPreconditionFailed) {
		t.Fatalf("Update with a stale version: %v, want ErrPreconditionFailed", err)
	}
	after := s.get(t, s.Company, sub.reg.Name, key)
	if after[field] != "first" || after.Version() != v2 || c.called != 0 {
		t.Errorf("a refused update changed the record (%s = %v) or rendered its receipt (%d)", field, after[field], c.called)
	}
}
