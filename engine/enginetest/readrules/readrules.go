// Package readrules is the read half of engine/enginetest's rules group:
// what the demo companies of engine/demo read as under the reference
// engine's business rules and the builtin catalog, and who may read or
// write them: the signature's permissions, company isolation, cursor and
// page paging, filters, lines and expansions in the read shape, record
// counts, the demo data itself and the keys of demo signatures. Like its
// write half, package writerules, it loads the demo companies through the
// engine's import path and skips what the catalog lacks (kit.Suite.Demo);
// enginetest.Run runs both as the group "rules".
package readrules

import (
	"fieldapi/engine/enginetest/kit"
)

// Tests are the rules on reads and access, in the order Run starts them.
var Tests = []kit.Test{
	test("signature permissions", testSignaturePermissions),
	test("company isolation", testDemoIsolation),
	test("cursor walk", testDemoCursorWalk),
	test("page paging", testDemoPagePaging),
	test("filters", testDemoFilters),
	test("lines in the read shape", testLinesInReadShape),
	test("fields and expansions", testShapedReads),
	test("fields of lines and the expanded line cap", testShapedLines),
	test("record counts stay exact", testRecordCounts),
	test("demo data", testDemoContent),
	test("keys of demo signatures", testDemoKeys),
}

// suite is one subtest's engine, with this package's helpers.
type suite struct{ *kit.Suite }

// test makes a test of this package, written on its suite, a kit.Test.
var test = kit.With(func(s *kit.Suite) *suite { return &suite{s} })
