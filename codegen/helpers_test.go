package codegen

import (
	"io/fs"
	"testing"
	"testing/fstest"

	"fieldapi/catalog"
)

// modelOf loads a catalog held in memory (file name → YAML) with the real
// loader and builds its model.
func modelOf(t *testing.T, files map[string]string) *Model {
	t.Helper()
	fsys := fstest.MapFS{}
	for name, yaml := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(yaml)}
	}
	return modelOfFS(t, fsys)
}

func modelOfFS(t *testing.T, fsys fs.FS) *Model {
	t.Helper()
	cat, err := catalog.LoadFS(fsys)
	return mustModel(t, cat, err)
}

// generate renders a model as the generated package fieldapi/generated.
func generate(t *testing.T, m *Model) map[string][]byte {
	t.Helper()
	files, err := Generate(m, Options{PkgPath: "fieldapi/generated"})
	if err != nil {
		t.Fatal("Generate:", err)
	}
	return files
}

// generateNames renders a model's names package as fieldapi/engine/names.
func generateNames(t *testing.T, m *Model) map[string][]byte {
	t.Helper()
	files, err := GenerateNames(m, namesImportPath)
	if err != nil {
		t.Fatal("GenerateNames:", err)
	}
	return files
}

// A small catalog for the emitter and model tests: parts, with every kind
// of field and a line list of notes; notes, a line register without
// methods of its own.
const partsYAML = `register: parts
record: Part
description: Spare parts in stock.
key: Nr
numberSeries: true
extraFields: true
methods: [create, update]
fields:
  - {name: Nr, writable: true}
  - {name: Name, writable: true, required: true, description: What the part is called.}
  - {name: Price, type: number, writable: true}
  - {name: Serial, createOnly: true}
  - {name: Stocked, type: bool}
filters:
  - {param: name, field: Name, match: contains}
  - {param: outOfStock, field: Stocked, negate: true}
lines:
  - {name: notes, register: notes, parent: PartNr}
`

const notesYAML = `register: notes
record: Note
key: Id
fields:
  - {name: Id}
  - {name: PartNr, writable: true, references: parts}
  - {name: Text, writable: true}
`

// partsModel returns the parts and notes registers of the small catalog.
func partsModel(t *testing.T) (m *Model, parts, notes *Register) {
	m = modelOf(t, map[string]string{"parts.yaml": partsYAML, "notes.yaml": notesYAML})
	return m, m.Registers[1], m.Registers[0]
}

// builtinModel is the model of the catalog shipped in catalog/.
func builtinModel(t *testing.T) *Model {
	t.Helper()
	cat, err := catalog.Builtin()
	return mustModel(t, cat, err)
}

// mustModel is the model of a catalog just loaded, failing the test when
// loading or building failed.
func mustModel(t *testing.T, cat *catalog.Catalog, loadErr error) *Model {
	t.Helper()
	if loadErr != nil {
		t.Fatal("loading the catalog:", loadErr)
	}
	m, err := NewModel(cat)
	if err != nil {
		t.Fatal("building the model:", err)
	}
	return m
}
