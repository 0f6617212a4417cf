package enginetest

var readRuleTests = []Test{
	{"signature permissions", testSignaturePermissions},
	{"company isolation", testDemoIsolation},
	{"cursor walk", testDemoCursorWalk},
	{"page paging", testDemoPagePaging},
	{"filters", testDemoFilters},
	{"lines in the read shape", testLinesInReadShape},
	{"fields and expansions", testShapedReads},
	{"record counts stay exact", testRecordCounts},
	{"demo data", testDemoContent},
	{"keys of demo signatures", testDemoKeys},
}
