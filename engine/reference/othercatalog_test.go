package reference_test

import (
	"testing"

	"fieldapi/catalog"
	"fieldapi/catalog/catalogtest"
	"fieldapi/engine/enginetest"
)

// Registers shaped unlike any builtin one, added to the builtin catalog
// (whose rules the reference engine needs): machines are keyed by the
// engine's Id, have no equals filter, and their parts are read with them,
// a line list with a fixed value.
const (
	machinesYAML = `register: machines
record: Machine
description: Machines at a site.
key: Id
methods: [create, update]
defaults: {State: Running}
fields:
  - {name: Id}
  - {name: Label, writable: true, required: true}
  - {name: State}
  - {name: Site, writable: true}
  - {name: Note, writable: true}
  - {name: Hours, type: number, writable: true}
filters:
  - {param: label, field: Label, match: contains}
lines:
  - {name: parts, register: parts, parent: MachineId, set: {Kind: spare}, read: true}
`
	partsYAML = `register: parts
record: Part
description: Spare parts of machines.
key: Id
methods: [update]
fields:
  - {name: Id}
  - {name: MachineId, writable: true, required: true, references: machines}
  - {name: Kind}
  - {name: PartName, writable: true, required: true}
filters:
  - {param: machineId, field: MachineId}
`
)

// machinesCatalog is the builtin catalog with machines and their parts.
func machinesCatalog(t *testing.T) *catalog.Catalog {
	t.Helper()
	cat, err := catalogtest.BuiltinWith(func(files map[string]string) {
		files["machines.yaml"], files["parts.yaml"] = machinesYAML, partsYAML
	})
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

// TestConformanceOtherCatalog runs the suite with machines as its subject
// (an engine-assigned key, lines read with their owner, no equals
// filter): the suite reads what it exercises from the catalog it is given.
func TestConformanceOtherCatalog(t *testing.T) {
	cat := machinesCatalog(t)
	for _, b := range backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			enginetest.Run(t, func(t *testing.T) enginetest.Harness {
				h := harnessOf(t, b.DSN(t), cat)
				h.Register = "machines"
				return h
			})
		})
	}
}
