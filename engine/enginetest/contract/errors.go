package contract

import (
	"context"
	"errors"
	"testing"

	"fieldapi/engine"
	"fieldapi/engine/enginetest/kit"
)

// How each kind of failure reaches the HTTP layer (runtime.AsProblem):
//
//	*engine.CommandError    422 command_failed: the engine refused the call
//	*engine.PermissionError 403 permission_denied: the signature may not
//	engine.ErrNotFound      404 not_found
//	engine.ErrBusy          503 engine_busy: the engine did not take the call
//	engine.ErrUnreachable   503 engine_unreachable: the engine did not get the call
//	engine.ErrTimeout       504 engine_timeout: the engine may have written
//	anything else           500 internal_error
//
// Faults may wrap the underlying error, but errors.Is must find the kind.
var Errors = []kit.Test{
	test("a refusal is a CommandError", testRefusal),
	test("a signature without write permission is denied", testDenied),
	test("busy", testFault(engine.ErrBusy)),
	test("unreachable", testFault(engine.ErrUnreachable)),
	test("timeout", testFault(engine.ErrTimeout)),
}

// testRefusal: a call the engine refuses answers a CommandError, never a
// fault or not-found, so the client gets 422 with the engine's text.
func testRefusal(t *testing.T, s *suite) {
	sub := s.Subject
	var err error
	switch {
	case sub.Line != nil && sub.Line.Required:
		in := sub.Input(kit.UniqueName("Refused"))
		in.AddLine(sub.Line.List.Name, engine.NewInput())
		_, err = s.Create(s.Company, in)
	case sub.ChosenKey:
		first := s.MustCreate(t, s.Company, kit.UniqueName("Taken"))
		in := sub.Input(kit.UniqueName("Refused"))
		in.Values[sub.Key] = s.KeyOf(t, first)
		_, err = s.Create(s.Company, in)
	default:
		t.Skipf("the suite knows no write %s refuses: no line with a required field, no key the client gives", sub.Reg.Name)
	}
	kit.RefusalDetail(t, err, "a refused create")
	for _, fault := range []error{engine.ErrNotFound, engine.ErrBusy, engine.ErrUnreachable, engine.ErrTimeout} {
		if errors.Is(err, fault) {
			t.Errorf("the refusal %v is also %v; want only a CommandError", err, fault)
		}
	}
}

// testDenied: a signature the engine lets read but not write is denied
// writes with a PermissionError, and nothing is written.
func testDenied(t *testing.T, s *suite) {
	if s.ReadOnly.Company == "" {
		t.Skip("the harness gives no ReadOnly session")
	}
	if s.ReadOnly.Company != s.Company.Company {
		t.Fatal("the ReadOnly session must be of Company's company")
	}
	ctx := context.Background()
	sub := s.Subject
	key := s.KeyOf(t, s.MustCreate(t, s.Company, kit.UniqueName("Guarded")))
	if _, err := s.Engine.Get(ctx, s.ReadOnly, sub.Reg.Name, key); err != nil {
		t.Fatalf("Get as a signature that may read: %v", err)
	}
	name := kit.UniqueName("Denied")
	var denied *engine.PermissionError
	_, err := s.Create(s.ReadOnly, sub.Input(name))
	if !errors.As(err, &denied) {
		t.Errorf("Create as a signature that may not write: %v (%T); want an *engine.PermissionError", err, err)
	}
	in := engine.NewInput()
	in.Values[sub.Name] = name
	var c kit.Capture
	_, err = s.Engine.Update(ctx, s.ReadOnly, sub.Reg.Name, key, in, c.Receipt(kit.NoClaim))
	if !errors.As(err, &denied) {
		t.Errorf("Update as a signature that may not write: %v (%T); want an *engine.PermissionError", err, err)
	}
	if n := len(s.Walk(t, s.Company, sub.Reg.Name, 10, s.Named(name))); n != 0 {
		t.Errorf("denied writes left %d records", n)
	}
}

// notTaken reports whether err says the engine did not take the call. A
// write that timed out before it committed may say so (busy, unreachable)
// rather than "may have written".
func notTaken(err error) bool {
	return errors.Is(err, engine.ErrBusy) || errors.Is(err, engine.ErrUnreachable)
}

// testFault: while the engine suffers the fault, a write answers an error
// that errors.Is the fault's kind (and is no refusal); busy and
// unreachable mean the engine did not take the call, so nothing was
// written; once the fault ends the engine answers again.
func testFault(kind error) func(t *testing.T, s *suite) {
	return func(t *testing.T, s *suite) {
		if s.Fault == nil {
			t.Skip("the harness gives no Fault: how faults are reported is not checked")
		}
		faulty, end := s.Fault(t, kind)
		if faulty == nil {
			t.Skipf("the harness cannot bring this engine into %v", kind)
		}
		ended := false
		defer func() {
			if !ended {
				end()
			}
		}()
		ctx := context.Background()
		sub := s.Subject
		name := kit.UniqueName("Faulted")
		var c kit.Capture
		_, err := faulty.Create(ctx, s.Company, sub.Reg.Name, sub.Input(name), c.Receipt(kit.NoClaim))
		t.Logf("Create during %v: %v", kind, err)
		var denied *engine.PermissionError
		switch {
		case err == nil:
			t.Errorf("Create during %v succeeded; want an error that errors.Is %v", kind, kind)
		case !errors.Is(err, kind) && !(kind == engine.ErrTimeout && notTaken(err)):
			t.Errorf("Create during %v: %v (%T); want an error that errors.Is %v", kind, err, err, kind)
		case kit.IsRefusal(err), errors.As(err, &denied), errors.Is(err, engine.ErrNotFound):
			t.Errorf("Create during %v: %v; a fault must not also be a refusal, a denial or not-found", kind, err)
		case notTaken(err) && errors.Is(err, engine.ErrTimeout):
			t.Errorf("Create during %v: %v says both that the engine did not take the call and that it may have written (engine.ErrTimeout)", kind, err)
		}
		if kind == engine.ErrUnreachable {
			if err := faulty.Ping(ctx); !errors.Is(err, engine.ErrUnreachable) {
				t.Errorf("Ping while unreachable: %v; want engine.ErrUnreachable", err)
			}
			if _, err := faulty.Get(ctx, s.Company, sub.Reg.Name, "1"); !errors.Is(err, engine.ErrUnreachable) {
				t.Errorf("Get while unreachable: %v; want engine.ErrUnreachable", err)
			}
			if _, err := faulty.Idempotency().Claim(ctx, s.NewClaim("unreachable", "fp")); !errors.Is(err, engine.ErrUnreachable) {
				t.Errorf("Idempotency().Claim while unreachable: %v; want engine.ErrUnreachable", err)
			}
		}
		end()
		ended = true

		if err := s.Engine.Ping(ctx); err != nil {
			t.Fatalf("Ping after the fault ended: %v", err)
		}
		written := len(s.Walk(t, s.Company, sub.Reg.Name, 10, s.Named(name)))
		if (kind != engine.ErrTimeout || notTaken(err)) && written != 0 {
			t.Errorf("a Create that answered %v wrote its record; %v means the engine did not take the call", kind, kind)
		}
		if kind == engine.ErrTimeout {
			t.Logf("the Create that timed out wrote %d records (either is allowed: a timeout may have written)", written)
		}
		s.MustCreate(t, s.Company, kit.UniqueName("After the fault"))
	}
}
