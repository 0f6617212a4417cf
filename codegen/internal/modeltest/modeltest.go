// Package modeltest builds the models of the catalogs the generator's tests
// share, with the real loader: the shipped catalog, the fixture catalog the
// golden files are made from (codegen/testdata/catalog), the small parts and
// notes catalog, and a catalog of every combination the loader accepts.
package modeltest

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"fieldapi/catalog"
	"fieldapi/codegen/model"
)

// Of loads a catalog held in memory (file name → YAML) with the real
// loader and builds its model.
func Of(t testing.TB, files map[string]string) *model.Model {
	t.Helper()
	fsys := fstest.MapFS{}
	for name, yaml := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(yaml)}
	}
	return OfFS(t, fsys)
}

// OfFS loads the catalog in fsys with the real loader and builds its model.
func OfFS(t testing.TB, fsys fs.FS) *model.Model {
	t.Helper()
	cat, err := catalog.LoadFS(fsys)
	return mustModel(t, cat, err)
}

// FixtureDir is the directory of the fixture catalog,
// codegen/testdata/catalog, found from the test's working directory.
func FixtureDir(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "codegen", "testdata", "catalog")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's working directory")
		}
		dir = parent
	}
}

// Fixture is the model of the fixture catalog.
func Fixture(t testing.TB) *model.Model {
	t.Helper()
	return OfFS(t, os.DirFS(FixtureDir(t)))
}

// PartsYAML and NotesYAML are a small catalog for the emitter and model
// tests: parts, with every kind of field and a line list of notes; notes,
// a line register without methods of its own.
const PartsYAML = `register: parts
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

// NotesYAML is the notes register of the small catalog (see PartsYAML).
const NotesYAML = `register: notes
record: Note
key: Id
fields:
  - {name: Id}
  - {name: PartNr, writable: true, references: parts}
  - {name: Text, writable: true}
`

// Parts returns the model of the small catalog (PartsYAML, NotesYAML) and
// its parts and notes registers.
func Parts(t testing.TB) (m *model.Model, parts, notes *model.Register) {
	t.Helper()
	m = Of(t, map[string]string{"parts.yaml": PartsYAML, "notes.yaml": NotesYAML})
	return m, m.Registers[1], m.Registers[0]
}

// Builtin is the model of the catalog shipped in catalog/.
func Builtin(t testing.TB) *model.Model {
	t.Helper()
	cat, err := catalog.Builtin()
	return mustModel(t, cat, err)
}

// mustModel is the model of a catalog just loaded, failing the test when
// loading or building failed.
func mustModel(t testing.TB, cat *catalog.Catalog, loadErr error) *model.Model {
	t.Helper()
	if loadErr != nil {
		t.Fatal("loading the catalog:", loadErr)
	}
	m, err := model.New(cat)
	if err != nil {
		t.Fatal("building the model:", err)
	}
	return m
}

// EveryCombination is a catalog that uses every field type with every
// access (read only, writable, create only, required), every filter match
// on every type it is valid for, references and a lookup, a line list with
// fixed values, an engine-keyed line register and a read-only register.
// The generator must accept all of it; TestGeneratedRegisterServesHTTP also
// compiles its output.
func EveryCombination() fstest.MapFS {
	types := []catalog.FieldType{catalog.Text, catalog.Number, catalog.Date, catalog.Bool, catalog.Object, catalog.List}
	access := []struct{ suffix, yaml string }{
		{"Ro", ""}, {"W", ", writable: true"}, {"Co", ", createOnly: true"}, {"Req", ", writable: true, required: true"},
	}
	var b strings.Builder
	b.WriteString("register: combos\nrecord: Combo\ndescription: Every combination the catalog allows.\nkey: Nr\nnumberSeries: true\nextraFields: true\nlocation: true\nuncounted: true\nmethods: [create, update]\n")
	b.WriteString("defaults: {TextRo: x}\nrequireOneOf: [TextW, NumberW]\nfields:\n  - {name: Nr, writable: true}\n")
	b.WriteString("  - {name: RefOne, writable: true, references: combolines}\n  - {name: RefMany, type: list, writable: true, references: readonlies}\n  - {name: RefName, lookup: RefOne.Note}\n")
	b.WriteString("filters:\n")
	var fields strings.Builder
	for _, ft := range types {
		tn := strings.ToUpper(string(ft[:1])) + string(ft[1:])
		for _, a := range access {
			fmt.Fprintf(&fields, "  - {name: %s%s, type: %s%s}\n", tn, a.suffix, ft, a.yaml)
		}
		field := tn + "Ro"
		param := strings.ToLower(tn)
		fmt.Fprintf(&b, "  - {param: %sEquals, field: %s}\n", param, field)
		fmt.Fprintf(&b, "  - {param: %sOneOf, field: %s, match: oneOf}\n", param, field)
		fmt.Fprintf(&b, "  - {param: %sHides, field: %s, match: hides, values: [a, b]}\n", param, field)
		fmt.Fprintf(&b, "  - {param: %sDefault, field: %s, default: \"1\"}\n", param, field)
		if ft == catalog.Text {
			fmt.Fprintf(&b, "  - {param: %sContains, field: %s, match: contains}\n", param, field)
		}
		if ft == catalog.Bool {
			fmt.Fprintf(&b, "  - {param: %sNegate, field: %s, negate: true}\n", param, field)
		}
	}
	b.WriteString("lines:\n  - {name: lines, register: combolines, parent: ComboNr, set: {Kind: fixed, Note: set}}\n")
	combos := strings.Replace(b.String(), "filters:\n", "FIELDS\nfilters:\n", 1)
	combos = strings.Replace(combos, "FIELDS\n", fields.String(), 1)
	return fstest.MapFS{
		"combos.yaml": {Data: []byte(combos)},
		"combolines.yaml": {Data: []byte(`register: combolines
record: ComboLine
key: Id
fields:
  - {name: Id}
  - {name: ComboNr, writable: true, required: true, references: combos}
  - {name: Kind, writable: true}
  - {name: Note, writable: true, required: true}
  - {name: Amount, type: number, writable: true}
`)},
		"readonlies.yaml": {Data: []byte(`register: readonlies
record: ReadOnly
key: Name
fields:
  - {name: Name}
  - {name: Input}
  - {name: Tags, type: list}
`)},
	}
}
