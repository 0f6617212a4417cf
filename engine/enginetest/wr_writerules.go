package enginetest

import (
	"errors"
	"testing"

	"fieldapi/engine"
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

var writeRuleTests = []Test{
	{"number series", testNumberSeries},
	{"number series under concurrency", testNumberSeriesConcurrency},
	{"references and lookups", testReferencesAndLookups},
	{"required and requireOneOf", testRequired},
	{"lines are all or nothing", testDemoLinesAllOrNothing},
	{"refused order and quote lines leave nothing", testRefusedLinesLeaveNothing},
	{"line writes and their owners on the feed", testLineWritesOnTheFeed},
	{"update changes only the fields sent", testDemoUpdate},
	{"extra fields are checked on write", testExtraFieldWrites},
	{"extra fields on read", testExtraFieldsOnRead},
	{"extra field definitions and field names", testExtraFieldDefs},
	{"orders and their lines", testOrders},
	{"company calendar settings", testCalendarSettings},
	{"locations", testDemoLocations},
	{"import", testImport},
}
