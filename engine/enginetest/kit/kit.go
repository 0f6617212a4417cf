// Package kit is what the suites of engine/enginetest are written with:
// the Harness a caller gives for one fresh engine, the Clock that engine
// reads, and one subtest's Suite: the harness with its subject register,
// picked from the catalog (Subject), and the helpers that work through
// the port. They create, read, walk and count records of any register,
// take and check idempotency claims, read the event feed and the change
// log a write leaves, fill a record of any register from the catalog,
// and load the demo companies the rules suites run on. A suite package
// writes each behaviour as a Test; enginetest.Run runs them.
package kit

import (
	"errors"
	"testing"

	"fieldapi/catalog"
	"fieldapi/engine"
)

// Harness is one fresh engine under test and what the suite needs to know
// about it.
type Harness struct {
	// Engine is the engine under test.
	Engine engine.Engine
	// Clock is the engine's clock (its Now reads it).
	Clock *Clock
	// Catalog is the catalog the engine serves.
	Catalog *catalog.Catalog
	// Company and Other are sessions of two different companies, each with
	// a signature that may read and write every register.
	Company, Other engine.Session
	// ReadOnly, when set, is a session of Company's company whose signature
	// may read but not write; the suite then checks writes are denied with
	// an engine.PermissionError.
	ReadOnly engine.Session
	// Register names the subject register the suite seeds; empty picks the
	// first suitable register of the catalog.
	Register string
	// Fault, when set, makes the engine suffer one fault — engine.ErrBusy,
	// engine.ErrUnreachable or engine.ErrTimeout — and returns the engine
	// to call while it lasts (Engine itself, or another handle on the same
	// data) and a function that ends it. It returns a nil engine when this
	// engine cannot be brought into that fault; that subtest is skipped.
	Fault func(t *testing.T, kind error) (faulty engine.Engine, end func())
	// NumbersMayGap says a create that rolls back may use up the number it
	// took (the store's number series are not transactional, as
	// PostgreSQL's sequences); the suite then checks numbers increase
	// rather than that they follow without a gap.
	NumbersMayGap bool
}

// Test is one behaviour of the contract.
type Test struct {
	Name string
	Run  func(t *testing.T, s *Suite)
}

// Suite is one subtest's engine with the registers it exercises.
type Suite struct {
	Harness
	Subject *Subject
}

// With is how a suite package that adds helpers of its own writes its
// tests: on its own type S, which embeds the *Suite each subtest gets
// (wrap makes one). It returns what makes each such test a Test.
func With[S any](wrap func(*Suite) S) func(name string, run func(t *testing.T, s S)) Test {
	return func(name string, run func(t *testing.T, s S)) Test {
		return Test{Name: name, Run: func(t *testing.T, s *Suite) { run(t, wrap(s)) }}
	}
}

// NewSuite checks the harness h and picks its subject register.
func NewSuite(t *testing.T, h Harness) *Suite {
	t.Helper()
	if h.Engine == nil || h.Catalog == nil || h.Clock == nil {
		t.Fatal("enginetest: the harness must give Engine, Catalog and the engine's Clock")
	}
	if h.Company.Company == "" || h.Other.Company == "" || h.Company.Company == h.Other.Company {
		t.Fatal("enginetest: the harness must give sessions of two different companies (Company, Other)")
	}
	sub, err := pickSubject(h.Catalog, h.Register)
	if err != nil {
		t.Fatal("enginetest: ", err)
	}
	return &Suite{Harness: h, Subject: sub}
}

// IsRefusal reports whether err is the engine refusing a call (422).
func IsRefusal(err error) bool {
	var ce *engine.CommandError
	return errors.As(err, &ce)
}
