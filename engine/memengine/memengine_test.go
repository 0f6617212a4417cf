package memengine_test

import (
	"testing"

	"fieldapi/catalog"
	"fieldapi/engine"
	"fieldapi/engine/enginetest"
	"fieldapi/engine/memengine"
)

// TestConformance runs the port's conformance suite against the memory
// engine, with the builtin catalog.
func TestConformance(t *testing.T) {
	cat, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	enginetest.Run(t, harness(cat))
}

// TestConformanceOtherCatalog runs the suite on a catalog of other shapes
// (an engine-assigned key, lines read with their owner, no equals filter):
// the suite reads what it exercises from the catalog it is given.
func TestConformanceOtherCatalog(t *testing.T) {
	cat, err := catalog.LoadDir("testdata/catalog")
	if err != nil {
		t.Fatal(err)
	}
	enginetest.Run(t, harness(cat))
}

// harness makes a fresh memory engine with two companies, a reader, and
// faults switched on and off by hand.
func harness(cat *catalog.Catalog) func(t *testing.T) enginetest.Harness {
	return func(t *testing.T) enginetest.Harness {
		e := memengine.New(cat)
		company := engine.Session{Company: "mem1", Sign: "API", ClientID: "enginetest"}
		other := engine.Session{Company: "mem2", Sign: "API", ClientID: "enginetest"}
		reader := engine.Session{Company: "mem1", Sign: "READER", ClientID: "enginetest"}
		e.AddUser(company.Company, company.Sign, "*")
		e.AddUser(other.Company, other.Sign, "*")
		var reads []string
		for _, r := range cat.Registers {
			reads = append(reads, r.ReadScope)
		}
		e.AddUser(reader.Company, reader.Sign, reads...)
		return enginetest.Harness{
			Engine: e, Catalog: cat, Company: company, Other: other, ReadOnly: reader,
			Fault: func(t *testing.T, kind error) (engine.Engine, func()) {
				e.Fail(kind)
				return e, func() { e.Fail(nil) }
			},
		}
	}
}
