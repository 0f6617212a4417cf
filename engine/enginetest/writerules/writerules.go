// Package writerules is the write half of engine/enginetest's rules
// group: the reference engine's business rules and catalog semantics
// (engine/rules and the builtin catalog) on the demo companies of
// engine/demo, as writes meet them: number series, references and
// lookups, required fields, lines all or nothing, updates, extra fields,
// orders, the company calendar, locations and imports. Package readrules
// is the read half; enginetest.Run runs both as the group "rules".
//
// It asserts what the demo data holds and the engine's own refusal texts,
// so it fits an engine that serves the builtin catalog's registers with
// the reference engine's rules: each test names the registers and fields
// it needs (kit.Suite.Demo) and skips, saying which, when the catalog
// lacks them. The demo companies are loaded through the engine's import
// path, Import(ctx, dataset.Company); an engine without one skips the
// tests. Everything else goes through the port (engine.Engine and its
// capabilities): the same tests run on every storage.
package writerules

import (
	"errors"
	"testing"

	"fieldapi/engine"
	"fieldapi/engine/enginetest/kit"
)

// refused returns err as the engine's refusal, failing the test when it
// is anything else.
func refused(t *testing.T, err error, doing string) *engine.CommandError {
	t.Helper()
	var ce *engine.CommandError
	if !errors.As(err, &ce) {
		t.Fatalf("%s: want an *engine.CommandError (a refusal), got %T: %v", doing, err, err)
	}
	return ce
}

// refusedWith checks err is a refusal with exactly the detail given.
func refusedWith(t *testing.T, err error, doing, detail string) *engine.CommandError {
	t.Helper()
	ce := refused(t, err, doing)
	if ce.Detail != detail {
		t.Errorf("%s: refused with %q; want %q", doing, ce.Detail, detail)
	}
	return ce
}

// Tests are the rules on writes, in the order Run starts them.
var Tests = []kit.Test{
	test("number series", testNumberSeries),
	test("number series under concurrency", testNumberSeriesConcurrency),
	test("references and lookups", testReferencesAndLookups),
	test("required and requireOneOf", testRequired),
	test("lines are all or nothing", testDemoLinesAllOrNothing),
	test("refused order and quote lines leave nothing", testRefusedLinesLeaveNothing),
	test("line writes and their owners on the feed", testLineWritesOnTheFeed),
	test("update changes only the fields sent", testDemoUpdate),
	test("extra fields are checked on write", testExtraFieldWrites),
	test("extra fields on read", testExtraFieldsOnRead),
	test("computed extra fields in a create's answer", testComputedInCreateAnswer),
	test("computed extra fields in an update's answer", testComputedInUpdateAnswer),
	test("computed extra fields the engine reads back", testComputedReadBack),
	test("extra field definitions and field names", testExtraFieldDefs),
	test("orders and their lines", testOrders),
	test("company calendar settings", testCalendarSettings),
	test("locations", testDemoLocations),
	test("import", testImport),
}

// suite is one subtest's engine, with this package's helpers.
type suite struct{ *kit.Suite }

// test makes a test of this package, written on its suite, a kit.Test.
var test = kit.With(func(s *kit.Suite) *suite { return &suite{s} })
