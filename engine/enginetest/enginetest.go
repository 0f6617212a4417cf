// Package enginetest is the conformance suite of the engine port: what any
// engine.Engine must do for the HTTP layer to serve it correctly. An
// adapter for a business system proves itself with one test:
//
//	func TestConformance(t *testing.T) {
//		enginetest.Run(t, func(t *testing.T) enginetest.Harness {
//			cat, _ := catalog.Builtin()
//			clock := enginetest.NewClock()
//			e := myadapter.Open(t, fresh test tenant ..., clock.Now)
//			return enginetest.Harness{Engine: e, Clock: clock, Catalog: cat,
//				Company: engine.Session{Company: "t1", Sign: "API", ClientID: "enginetest"},
//				Other:   engine.Session{Company: "t2", Sign: "API", ClientID: "enginetest"}}
//		})
//	}
//
// The suite states the contract as tests, one subtest per behaviour, in
// groups:
//
//   - lists: newest first, limit, page and cursor paging, cursors stable
//     under concurrent inserts, modifiedSince/modifiedBefore, every
//     Condition operator;
//   - writes: reads and not-found, creates with lines all or nothing and
//     "list[i]: " refusals, updates of only the fields sent, receipts
//     rendered and committed with the write, versions (If-Match);
//   - idempotency: every claim state, concurrent executions of one key,
//     pruning;
//   - isolation: companies apart;
//   - errors: the error kinds (busy, unreachable, timeout, refused, denied);
//   - keys: the key and token store;
//   - capabilities: the optional engine.Commands, engine.Locations,
//     engine.Documents, engine.Events and engine.Upserts (PUT by key,
//     exactly once under parallel calls), when the engine offers them;
//   - atomic: the optional engine.Atomic, writes that commit together
//     with the claim's response or roll back together;
//   - rules: the reference engine's business rules and catalog semantics
//     on the demo companies (number series, references and lookups,
//     required fields, lines, updates, extra fields, permissions,
//     isolation, lists and filters, orders, the company calendar,
//     locations, imports, record counts, the change log): see "The rules
//     group" below.
//
// Where the engine offers engine.Events and engine.ChangeLog, the groups
// also check the feed and the change log a write leaves; an engine without
// them has those checks skipped, logged.
//
// # Packages
//
// The suite is written in packages of one job each, which Run joins:
//
//   - kit: the Harness, the Clock, one subtest's Suite with its subject
//     register, and the helpers every suite works through the port with;
//   - contract: what every engine must do: lists, writes, idempotency,
//     isolation, errors and keys;
//   - capabilities: the optional interfaces: capabilities and atomic;
//   - writerules and readrules: the rules group, on writes and on reads.
//
// A new behaviour is a kit.Test in the package of its concern, in the
// list Run runs for its group.
//
// # The catalog
//
// The suite runs on the catalog the engine serves (Harness.Catalog), so an
// adapter is tested on the registers it will serve: normally
// catalog.Builtin(). It seeds its data itself, through the port's own
// Create, into a subject register it picks from that catalog (or the one
// Harness.Register names): a register with create and update, whose create
// the suite can fill (every required field is text without a reference),
// with a writable text field that has a contains filter. In the builtin
// catalog that is customers, with its contacts line list. What the subject
// lacks (an equals filter, a line list, a key the client may choose) only
// skips the subtests that need it, with the reason.
//
// # The rules group
//
// The rules group asserts what the reference engine's rules (engine/rules)
// and the builtin catalog do on the demo companies of engine/demo ("demo"
// and "demo2", signature API), with the engine's own refusal texts: it
// fits an engine that serves the builtin catalog's registers with those
// rules. Each of its tests names the registers, fields and line lists it
// needs and skips, saying which, when Harness.Catalog lacks them. It loads
// the demo companies into each fresh engine with demo.Load, through the
// engine's import path: the engine must implement
// Import(ctx, dataset.Company) error, or the group is skipped. Apart from
// that (and Import of a setting and of a test company) it works through
// the port only, so it runs alike on every storage. Positions are compared
// with the offline gazetteer's (geocode.Gazetteer) when the engine locates
// with it. Tests that depend on "today" set the Clock.
//
// # Fresh engines
//
// newEngine is called once per subtest and must return an engine whose two
// companies hold no records of the registers the suite writes (a new
// database, or a new test tenant of the business system), with one
// signature in each that may read and write every register. Its clock is
// the Harness's Clock: the suite moves it on instead of waiting for time
// to pass (Modified, leases, "today"); it never sleeps.
//
// # What the suite requires beyond the port's comments
//
// The reference engine (engine/reference) behaves so, the HTTP layer relies
// on it, and engine/engine.go does not say it; the suite does:
//
//   - Newest first means most recently created: an update does not move a
//     record, so a cursor walk is stable under updates as well as creates.
//   - Page.Next is set exactly when more records follow, in page paging
//     too; Query.After continues strictly after it, and never repeats or
//     skips a record that existed when the walk began.
//   - Total counts the records matching the query on a counted register;
//     with KnownTotal the engine may leave it nil.
//   - Every record carries Modified, RFC 3339 text, and every write
//     moves it on; OpContains folds case beyond ASCII and takes % and _
//     literally; OpNotIn counts a field without value as none of them.
//   - Get, Update (and the capabilities) answer engine.ErrNotFound for any
//     key not in the caller's company, however malformed ("", "-1", "x" for
//     a numeric Id): never another error, which would be a 500.
//   - A condition on a field the register lacks is a plain error (500),
//     not a CommandError: the HTTP layer only sends declared filters.
//   - The record a create's receipt renders carries the lines created with
//     it under the line list's ReadName, each with the owner's key in the
//     line's parent field and the list's set values.
//   - A write stores its Idempotency-Key with its response in its own
//     transaction; one whose key another execution answered first must
//     fail with engine.ErrClaimLost and write nothing, nor record an
//     event; a refused write (CommandError) leaves its key free, for the
//     HTTP layer to Complete with the 422.
//   - A fault before a write's transaction began (its permission check
//     timing out) is busy or unreachable: errors.Is never finds
//     engine.ErrTimeout, which says the engine may have written.
//   - A text field cleared with nil reads as nil or "".
package enginetest

import (
	"slices"
	"testing"

	"fieldapi/engine/enginetest/capabilities"
	"fieldapi/engine/enginetest/contract"
	"fieldapi/engine/enginetest/kit"
	"fieldapi/engine/enginetest/readrules"
	"fieldapi/engine/enginetest/writerules"
)

// Harness is one fresh engine under test and what the suite needs to know
// about it; its fields are documented at kit.Harness.
type Harness = kit.Harness

// Clock is the engine's clock under test (kit.Clock): open the engine
// with Now: clock.Now and give the clock in the Harness.
type Clock = kit.Clock

// NewClock returns a clock at a fixed start.
func NewClock() *Clock { return kit.NewClock() }

// Run runs the conformance suite. newEngine is called once per subtest,
// which runs in parallel with the others.
func Run(t *testing.T, newEngine func(t *testing.T) Harness) {
	for _, group := range []struct {
		name  string
		tests []kit.Test
	}{
		{"lists", contract.Lists},
		{"writes", contract.Writes},
		{"idempotency", contract.Idempotency},
		{"isolation", contract.Isolation},
		{"errors", contract.Errors},
		{"keys", contract.Keys},
		{"capabilities", capabilities.Tests},
		{"atomic", capabilities.Atomic},
		{"rules", slices.Concat(writerules.Tests, readrules.Tests)},
	} {
		t.Run(group.name, func(t *testing.T) {
			for _, tc := range group.tests {
				t.Run(tc.Name, func(t *testing.T) {
					t.Parallel()
					tc.Run(t, kit.NewSuite(t, newEngine(t)))
				})
			}
		})
	}
}
