package catalog

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/matryer/is"
)

func TestBuiltinLoads(t *testing.T) {
	is := is.New(t)
	c, err := Builtin()
	is.NoErr(err)
	is.True(c.Register("customers") != nil)
	f := c.Register("customers").Field("AddressLine1")
	is.Equal(f.WriteName, "addressLine1")
	is.Equal(f.Column, "address_line1")
	is.Equal(c.Register("contacts").EngineKeyed(), true)
	is.Equal(c.Register("customers").EngineKeyed(), false)
	is.Equal(c.Register("users").EngineKeyed(), false) // read only: keys given in the engine's administration
}

// load loads a catalog of the given files (name → YAML text).
func load(files map[string]string) (*Catalog, error) {
	fsys := fstest.MapFS{}
	for name, text := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(text)}
	}
	return LoadFS(fsys)
}

const minimal = `register: things
record: Thing
key: Nr
fields:
  - {name: Nr, writable: true}
`

// things is a catalog of one register: minimal followed by more.
func things(more string) map[string]string { return map[string]string{"things.yaml": minimal + more} }

// plus adds files to a catalog.
func plus(files map[string]string, more ...string) map[string]string {
	for i := 0; i+1 < len(more); i += 2 {
		files[more[i]] = more[i+1]
	}
	return files
}

// parts is a register other registers extend in the tests.
const parts = `register: parts
record: Part
description: Parts.
key: Nr
numberSeries: true
methods: [create, update]
defaults: {Status: Active, Kind: part}
fields:
  - {name: Nr, createOnly: true, description: Part number.}
  - {name: Status}
  - {name: Kind}
  - {name: ParentNr, writable: true}
filters:
  - {param: kind, field: Kind}
`

// spares extends parts; the test cases add to it.
const spares = `register: spares
extends: parts
record: Spare
`

// owners is a register that things may reference and look up.
const owners = `register: owners
record: Owner
key: Nr
fields:
  - {name: Nr}
  - {name: Name}
`

// dated is a field set: a date and who set it.
const dated = `fieldset: dated
description: When and by whom.
fields:
  - {name: SetBy}
  - {name: SetDate, type: date}
`

// loaderErrors has one case for every error the loader reports: each
// names the file at fault and, where there is one, the field.
var loaderErrors = []struct {
	name  string
	files map[string]string
	want  string
}{
	// Reading the files.
	{"unreadable file", map[string]string{"things.yaml/x": ""}, "catalog/things.yaml: read things.yaml"},
	{"yaml syntax", things("fields: [\n"), "catalog/things.yaml: yaml: line"},
	{"unknown yaml key", things("colour: red\n"), `catalog/things.yaml: line 6: unknown key "colour"`},
	{"unknown field key", things("  - {name: Size, kind: text}\n"), `catalog/things.yaml: line 6: unknown key "kind"`},
	{"value of the wrong type", things("numberSeries: maybe\n"), "cannot unmarshal !!str `maybe` into bool"},
	{"empty file", map[string]string{"things.yaml": "# nothing yet\n"}, "catalog/things.yaml: the file is empty"},
	{"empty field entry", things("  -\n"), "catalog/things.yaml: fields[1]: empty entry"},
	{"empty filter entry", things("filters:\n  -\n"), "catalog/things.yaml: filters[0]: empty entry"},
	{"empty line entry", things("lines:\n  -\n"), "catalog/things.yaml: lines[0]: empty entry"},
	{"empty action entry", things("actions:\n  -\n"), "catalog/things.yaml: actions[0]: empty entry"},
	{"lookup key on the key", map[string]string{"things.yaml": "register: things\nrecord: Thing\nkey: Nr\nfields:\n  - {name: Nr, writable: true, lookupKey: true}\n"}, "field Nr: the key is a key already"},
	{"referencesBy without references", things("  - {name: Size, writable: true, referencesBy: Nr}\n"), "field Size: referencesBy names a lookup key"},
	{"referencesBy not a lookup key", things("  - {name: Other, writable: true, references: things, referencesBy: Nr}\n"), `field Other: referencesBy "Nr": things has no lookup key Nr`},
	{"lookup: true for a lookup key", things("  - {name: Code, writable: true, lookup: true}\n"), `field Code: lookup "true" must be Ref.Field where Ref is a reference field declared with it (a lookup key is declared lookupKey: true)`},
	{"lookup key not text", things("  - {name: Weight, type: number, writable: true, lookupKey: true}\n"), "field Weight: a lookup key must be text without enum"},
	{"empty action field entry", things("actions:\n  - {name: close, fields: [~]}\n"), "catalog/things.yaml: actions[0]: fields[0]: empty entry"},
	{"no register files", map[string]string{"fieldsets/dated.yaml": dated}, "catalog: no *.yaml register files found"},

	// The register.
	{"register name", map[string]string{"things.yaml": strings.Replace(minimal, "things", "Things", 1)}, `catalog/things.yaml: register: "Things" must be lower-case letters and digits`},
	{"register in another file", map[string]string{"stuff.yaml": minimal}, `catalog/stuff.yaml: register "things" must be declared in things.yaml`},
	{"record name", map[string]string{"things.yaml": strings.Replace(minimal, "Thing", "thing", 1)}, `catalog/things.yaml: record: "thing" must be a PascalCase Go name`},
	{"missing key", map[string]string{"things.yaml": strings.Replace(minimal, "key: Nr", "key: Id", 1)}, `catalog/things.yaml: key: field "Id" is not declared`},
	{"key not text", map[string]string{"things.yaml": strings.Replace(minimal, "{name: Nr, writable: true}", "{name: Nr, type: number}", 1)}, "catalog/things.yaml: key: field Nr must be text"},
	{"numbered key not writable", map[string]string{"things.yaml": strings.Replace(minimal, "{name: Nr, writable: true}", "{name: Nr}", 1) + "numberSeries: true\n"}, "catalog/things.yaml: numberSeries: key Nr must be writable"},
	{"unknown method", things("methods: [delete]\n"), `catalog/things.yaml: methods: unknown method "delete"`},
	{"default of a missing field", things("defaults: {Size: '1'}\n"), `catalog/things.yaml: defaults: field "Size" is not declared`},
	{"requireOneOf a missing field", things("requireOneOf: [Size]\n"), `catalog/things.yaml: requireOneOf: field "Size" is not declared`},

	// Declarative rule keys (rulekeys.go).
	{"defaultFrom with lookup", plus(things("  - {name: OwnerNr, writable: true, references: owners}\n  - {name: OwnerName, writable: true, lookup: OwnerNr.Name, defaultFrom: OwnerNr.Name}\n"), "owners.yaml", owners), "catalog/things.yaml: field OwnerName: lookup and defaultFrom exclude each other"},
	{"defaultFrom read only", plus(things("  - {name: OwnerNr, writable: true, references: owners}\n  - {name: OwnerName, defaultFrom: OwnerNr.Name}\n"), "owners.yaml", owners), "catalog/things.yaml: field OwnerName: defaultFrom needs a writable field; a read-only copy is a lookup"},
	{"defaultFrom not from a reference", things("  - {name: Size, writable: true}\n  - {name: Label, writable: true, defaultFrom: Size.Name}\n"), `catalog/things.yaml: field Label: defaultFrom "Size.Name" must be Ref.Field where Ref is a text reference field of this register`},
	{"defaultFrom of a missing field", plus(things("  - {name: OwnerNr, writable: true, references: owners}\n  - {name: Label, writable: true, defaultFrom: OwnerNr.Colour}\n"), "owners.yaml", owners), `catalog/things.yaml: field Label: defaultFrom "OwnerNr.Colour": owners has no field Colour`},
	{"inherit a field the owner lacks", plus(things("lines:\n  - {name: notes, register: owners, parent: Nr, inherit: [Name]}\n"), "owners.yaml", owners), `catalog/things.yaml: line notes: inherit field "Name" is not declared in things.yaml`},
	{"inherit a field the line lacks", plus(things("  - {name: Size, writable: true}\nlines:\n  - {name: notes, register: owners, parent: Nr, inherit: [Size]}\n"), "owners.yaml", owners), `catalog/things.yaml: line notes: inherit field "Size" is not declared in owners.yaml`},
	{"inherit the parent", plus(things("lines:\n  - {name: notes, register: owners, parent: Nr, inherit: [Nr]}\n"), "owners.yaml", owners), `catalog/things.yaml: line notes: inherit field "Nr" is set by the owner already (parent or set)`},
	{"locateFrom a missing field", things("locateFrom: [Place]\n"), `catalog/things.yaml: locateFrom: field "Place" is not declared`},
	{"locateFrom a field that is no reference", things("locateFrom: [Nr]\n"), "catalog/things.yaml: locateFrom: field Nr is not a text reference field"},

	// Fields.
	{"field name", things("  - {name: size}\n"), `catalog/things.yaml: fields[1]: name "size" must be PascalCase`},
	{"reserved field", things("  - {name: Modified, type: date}\n"), "catalog/things.yaml: field Modified: Modified is added by the service"},
	{"duplicate field", things("  - {name: Nr}\n"), "catalog/things.yaml: field Nr: declared twice"},
	{"unknown type", things("  - {name: Size, type: integer}\n"), `catalog/things.yaml: field Size: unknown type "integer"`},
	{"required but read only", things("  - {name: Size, required: true}\n"), "catalog/things.yaml: field Size: required but not writable"},
	{"reference to missing register", things("  - {name: OwnerNr, references: owners}\n"), `catalog/things.yaml: field OwnerNr: references unknown register "owners"`},
	{"reference not text", plus(things("  - {name: OwnerNr, type: number, references: owners}\n"), "owners.yaml", owners), "catalog/things.yaml: field OwnerNr: a reference must be text"},
	{"lookup through no reference", things("  - {name: OwnerName, lookup: OwnerNr.Name}\n"), `catalog/things.yaml: field OwnerName: lookup "OwnerNr.Name" must be Ref.Field`},
	{"rowNumber not text", things("  - {name: Row, type: number, rowNumber: true}\n"), "catalog/things.yaml: field Row: rowNumber needs a plain text field: no enum, references or lookup"},
	{"rowNumber a lookup", plus(things("  - {name: OwnerNr, references: owners}\n  - {name: OwnerName, lookup: OwnerNr.Name, rowNumber: true}\n"), "owners.yaml", owners), "catalog/things.yaml: field OwnerName: rowNumber needs a plain text field"},
	{"rowNumber writable", things("  - {name: Row, writable: true, rowNumber: true}\n"), "catalog/things.yaml: field Row: rowNumber: the engine assigns it; it cannot be writable or createOnly"},
	{"rowNumber createOnly", things("  - {name: Row, createOnly: true, rowNumber: true}\n"), "catalog/things.yaml: field Row: rowNumber: the engine assigns it; it cannot be writable or createOnly"},
	{"rowNumber twice", things("  - {name: Row, rowNumber: true}\n  - {name: Number, rowNumber: true}\n"), "catalog/things.yaml: fields Row and Number: rowNumber: a register has one row number"},
	{"rowNumber on the key", map[string]string{"things.yaml": "register: things\nrecord: Thing\nkey: Id\nmethods: [create]\nfields:\n  - {name: Id, rowNumber: true}\n"}, "catalog/things.yaml: field Id: rowNumber: the key cannot be the row number"},
	{"rowNumber with a default", things("  - {name: Row, rowNumber: true}\ndefaults: {Row: '1'}\n"), "catalog/things.yaml: field Row: rowNumber: the engine assigns it; defaults cannot give it a value"},
	{"rowNumber of a line set by its owner", plus(things("lines:\n  - {name: owners, register: owners, parent: Nr, set: {Row: x}}\n"), "owners.yaml", owners+"  - {name: Row, rowNumber: true}\n"), "catalog/things.yaml: line owners: field Row of owners.yaml is its row number"},
	{"rowNumber of a line inherited from its owner", plus(things("  - {name: Row}\nlines:\n  - {name: owners, register: owners, parent: Nr, inherit: [Row]}\n"), "owners.yaml", owners+"  - {name: Row, rowNumber: true}\n"), "catalog/things.yaml: line owners: field Row of owners.yaml is its row number"},
	{"rowNumber on an action field", things("actions:\n  - {name: close, fields: [{name: Row, rowNumber: true}]}\n"), "catalog/things.yaml: action close: field Row: rowNumber is for a register's stored fields"},
	{"lookup of a missing field", plus(things("  - {name: OwnerNr, references: owners}\n  - {name: OwnerCity, lookup: OwnerNr.City}\n"), "owners.yaml", owners), `catalog/things.yaml: field OwnerCity: lookup "OwnerNr.City": owners has no field City`},

	// Evolution: renames and removals.
	{"renamedFrom not a name", things("  - {name: Size, renamedFrom: size}\n"), `catalog/things.yaml: field Size: renamedFrom "size" must be the field's former PascalCase name`},
	{"renamedFrom a current field", things("  - {name: Size, renamedFrom: Nr}\n"), "catalog/things.yaml: field Size: renamedFrom Nr: Nr is still a field of this register; a rename's former name must be gone"},
	{"renamedFrom claimed twice", things("  - {name: Size, renamedFrom: Length}\n  - {name: Width, renamedFrom: Length}\n"), "catalog/things.yaml: field Width: renamedFrom Length: field Size is renamed from Length already; one field takes its values"},
	{"renamedFrom a service field", things("  - {name: Changed, renamedFrom: Modified}\n"), "catalog/things.yaml: field Changed: renamedFrom Modified: Modified is added by the service, never a field of the catalog"},
	{"renamedFrom on an action field", things("actions:\n  - {name: close, fields: [{name: Reason, renamedFrom: Why}]}\n"), "catalog/things.yaml: action close: field Reason: renamedFrom is for a register's stored fields"},
	{"removedFields not a name", things("removedFields: [size]\n"), `catalog/things.yaml: removedFields[0]: "size" must be the removed field's PascalCase name`},
	{"removedFields a service field", things("removedFields: [Modified]\n"), "catalog/things.yaml: removedFields: Modified is added by the service, never a field of the catalog"},
	{"removedFields a current field", things("removedFields: [Nr]\n"), "catalog/things.yaml: removedFields: Nr is still a field of this register; delete it from fields too"},
	{"removedFields renamed", things("  - {name: Size, renamedFrom: Length}\nremovedFields: [Length]\n"), "catalog/things.yaml: removedFields: Length is the renamedFrom of field Size, which keeps its values; give one of the two"},
	{"removedFields twice", things("removedFields: [Length, Length]\n"), "catalog/things.yaml: removedFields: Length is listed twice"},

	// Filters.
	{"filter param", things("filters:\n  - {param: Size, field: Nr}\n"), `catalog/things.yaml: filters[0]: param "Size" must be camelCase`},
	{"filter param taken", things("filters:\n  - {param: limit, field: Nr}\n"), "catalog/things.yaml: filter limit: parameter name is taken"},
	{"filter on missing field", things("filters:\n  - {param: size, field: Size}\n"), `catalog/things.yaml: filter size: field "Size" is not declared`},
	{"unknown match", things("filters:\n  - {param: nr, field: Nr, match: like}\n"), `catalog/things.yaml: filter nr: unknown match "like"`},
	{"contains on a number", things("  - {name: Size, type: number}\nfilters:\n  - {param: size, field: Size, match: contains}\n"), "catalog/things.yaml: filter size: contains needs a text field, Size is number"},
	{"hides without values", things("filters:\n  - {param: all, field: Nr, match: hides}\n"), "catalog/things.yaml: filter all: hides needs values"},
	{"negate on text", things("filters:\n  - {param: nr, field: Nr, negate: true}\n"), "catalog/things.yaml: filter nr: negate needs a bool field"},
	{"ops on a switch", things("filters:\n  - {param: all, field: Nr, match: hides, values: [x], ops: [gte]}\n"), "catalog/things.yaml: filter all: ops need a filter that compares the field (not hides or negate)"},
	{"unknown op", things("filters:\n  - {param: nr, field: Nr, ops: [between]}\n"), `catalog/things.yaml: filter nr: unknown op "between" (want one of gt, gte, lt, lte, in, isnull, prefix)`},
	{"op twice", things("filters:\n  - {param: nr, field: Nr, ops: [gte, gte]}\n"), "catalog/things.yaml: filter nr: op gte is given twice"},
	{"prefix on a number", things("  - {name: Size, type: number}\nfilters:\n  - {param: size, field: Size, ops: [prefix]}\n"), "catalog/things.yaml: filter size: op prefix needs a field of type text, date, Size is number"},
	{"sortable list", things("  - {name: Tags, type: list, sortable: true}\n"), "catalog/things.yaml: field Tags: sortable needs a field of type text, number, date, bool, not list"},
	{"filter param count", things("filters:\n  - {param: count, field: Nr}\n"), "catalog/things.yaml: filter count: parameter name is taken"},

	// Lines.
	{"expand on a plain field", things("  - {name: Size, writable: true, expand: Big}\n"), `catalog/things.yaml: field Size: expand needs a reference field (references: <register>)`},
	{"expand on a list reference", things("  - {name: Others, type: list, writable: true, references: things, expand: Other}\n"), `catalog/things.yaml: field Others: expand needs a reference to one record; Others is list`},
	{"expand name not PascalCase", things("  - {name: OtherNr, writable: true, references: things, expand: other}\n"), `catalog/things.yaml: field OtherNr: expand "other" must be a PascalCase name, such as Thing`},
	{"expand name taken by a field", things("  - {name: OtherNr, writable: true, references: things, expand: Nr}\n"), `catalog/things.yaml: field OtherNr: expand "Nr" is the name of field Nr`},
	{"expand a read line list", things("lines:\n  - {name: parts, register: things, parent: Nr, read: true, expand: true}\n"), `catalog/things.yaml: line parts: expand: the read shape carries the lines already (read: true)`},
	{"filter on the fields parameter", things("filters:\n  - {param: fields, field: Nr}\n"), `catalog/things.yaml: filter fields: parameter name is taken`},
	{"line name", things("lines:\n  - {name: Parts, register: things, parent: Nr}\n"), `catalog/things.yaml: lines[0]: name "Parts" must be camelCase`},
	{"line name used by a field", things("lines:\n  - {name: nr, register: things, parent: Nr}\n"), "catalog/things.yaml: line nr: name is already used"},
	{"line without a name", things("lines:\n  - {register: things, parent: Nr}\n"), `catalog/things.yaml: lines[0]: name "" must be camelCase`},
	{"line of unknown register", things("lines:\n  - {name: parts, register: parts, parent: ThingNr}\n"), `catalog/things.yaml: line parts: unknown register "parts"`},
	{"line parent missing", plus(things("lines:\n  - {name: owners, register: owners, parent: ThingNr}\n"), "owners.yaml", owners), `catalog/things.yaml: line owners: parent field "ThingNr" is not declared in owners.yaml`},
	{"line set field missing", plus(things("lines:\n  - {name: owners, register: owners, parent: Nr, set: {Kind: x}}\n"), "owners.yaml", owners), `catalog/things.yaml: line owners: set field "Kind" is not declared in owners.yaml`},
	{"line postReply field missing", plus(things("lines:\n  - {name: owners, register: owners, parent: Nr, postReply: [Id]}\n"), "owners.yaml", owners), `catalog/things.yaml: line owners: postReply field "Id" is not declared in owners.yaml`},

	// Actions and the create reply.
	{"action name", things("actions:\n  - {name: location}\n"), `catalog/things.yaml: actions[0]: name "location" must be a camelCase name not used by a line or another path`},
	{"action event", things("actions:\n  - {name: close, event: Closed}\n"), `catalog/things.yaml: action close: event "Closed" must be a snake_case name such as status_changed`},
	{"action named changes", things("actions:\n  - {name: changes}\n"), `catalog/things.yaml: actions[0]: name "changes" must be a camelCase name not used by a line or another path`},
	{"action log", things("actions:\n  - {name: close, log: ' closed'}\n"), `catalog/things.yaml: action close: log " closed" must be the change-log action of its entries, such as note`},
	{"action field", things("actions:\n  - {name: close, fields: [{name: reason}]}\n"), "catalog/things.yaml: action close: fields[0]: needs a PascalCase name and a known type"},
	{"createReply field missing", things("createReply: {fields: [Id]}\n"), `catalog/things.yaml: createReply: field "Id" is not declared`},
	{"createReply without the key", things("  - {name: Name}\ncreateReply: {fields: [Name]}\n"), `catalog/things.yaml: createReply: fields must carry the key Nr`},
	{"createReply of no line list", things("createReply: {fields: [Nr], lines: {parts: [Nr]}}\n"), `catalog/things.yaml: createReply: "parts" is not a line list of this register`},
	{"createReply line field missing", plus(things("lines:\n  - {name: owners, register: owners, parent: Nr}\ncreateReply: {fields: [Nr], lines: {owners: [Id]}}\n"), "owners.yaml", owners), `catalog/things.yaml: createReply: line owners: field "Id" is not declared in owners`},
	{"postReply without the line's key", plus(things("lines:\n  - {name: owners, register: owners, parent: Nr, postReply: [Name]}\n"), "owners.yaml", owners), `catalog/things.yaml: line owners: postReply must carry the line's key Nr`},
	{"example of a missing field", things("example: {Nr: '1', Size: 2}\n"), `catalog/things.yaml: example: field "Size" is not declared`},
	{"enum on a number", things("  - {name: Size, type: number, enum: ['1']}\n"), `catalog/things.yaml: field Size: enum needs a text field, Size is number`},
	{"enum on an action's number", things("actions:\n  - {name: close, fields: [{name: Size, type: number, enum: ['1']}]}\n"), `catalog/things.yaml: action close: field Size: enum needs a text field`},

	// Extends and override.
	{"extends an unknown register", map[string]string{"spares.yaml": spares}, `catalog/spares.yaml: extends: unknown register "parts"`},
	{"extends itself", map[string]string{"spares.yaml": strings.Replace(spares, "extends: parts", "extends: spares", 1)}, "catalog/spares.yaml: extends: spares → spares is a cycle"},
	{"extends in a cycle", map[string]string{"parts.yaml": parts + "extends: spares\n", "spares.yaml": spares}, "catalog/spares.yaml: extends: parts → spares → parts is a cycle"},
	{"override without extends", things("override:\n  - {name: Nr, writable: false}\n"), "catalog/things.yaml: override: changes the fields of a base; give extends"},
	{"override of a missing field", map[string]string{"parts.yaml": parts, "spares.yaml": spares + "override:\n  - {name: Size, writable: true}\n"}, `catalog/spares.yaml: override[0]: field "Size" is not declared in parts.yaml`},
	{"override twice", map[string]string{"parts.yaml": parts, "spares.yaml": spares + "override:\n  - {name: Kind, writable: true}\n  - {name: Kind, required: true}\n"}, "catalog/spares.yaml: override[1]: field Kind is changed twice"},
	{"override with an unknown key", map[string]string{"parts.yaml": parts, "spares.yaml": spares + "override:\n  - {name: Kind, colour: red}\n"}, `catalog/spares.yaml: line 5: unknown key "colour"`},
	{"override that is invalid", map[string]string{"parts.yaml": parts, "spares.yaml": spares + "override:\n  - {name: Kind, type: integer}\n"}, `catalog/spares.yaml: field Kind: unknown type "integer"`},
	{"field of the base declared again", map[string]string{"parts.yaml": parts, "spares.yaml": spares + "fields:\n  - {name: Kind, writable: true}\n"}, "catalog/spares.yaml: field Kind: already declared in parts.yaml; change it under override"},
	{"record of the base", map[string]string{"parts.yaml": parts, "spares.yaml": strings.Replace(spares, "record: Spare\n", "", 1)}, `catalog/spares.yaml: record: "" must be a PascalCase Go name`},

	// Field sets.
	{"unknown field set", things("  - {use: dates}\n"), `catalog/things.yaml: fields[1]: unknown field set "dates" (no catalog/fieldsets/dates.yaml)`},
	{"use with other keys", plus(things("  - {use: dated, writable: true}\n"), "fieldsets/dated.yaml", dated), "catalog/things.yaml: fields[1]: use stands alone"},
	{"use in an override", map[string]string{"parts.yaml": parts, "spares.yaml": spares + "override:\n  - {name: Kind, use: dated}\n"}, "catalog/spares.yaml: field Kind: use stands alone in an entry of a register's fields"},
	{"field set used twice", plus(things("  - {use: dated}\n  - {use: dated}\n"), "fieldsets/dated.yaml", dated), "catalog/things.yaml: field SetBy: declared twice"},
	{"field set name", plus(things(""), "fieldsets/dates.yaml", dated), `catalog/fieldsets/dates.yaml: fieldset: "dated" must be the file's name, dates`},
	{"field set unknown key", plus(things(""), "fieldsets/dated.yaml", dated+"filters: []\n"), `catalog/fieldsets/dated.yaml: line 6: unknown key "filters"`},
	{"field set empty entry", plus(things(""), "fieldsets/dated.yaml", dated+"  -\n"), "catalog/fieldsets/dated.yaml: fields[2]: empty entry"},
	{"field set using another", plus(things(""), "fieldsets/dated.yaml", dated+"  - {use: other}\n"), "catalog/fieldsets/dated.yaml: fields[2]: a field set cannot use another (other)"},
	{"field set field invalid", plus(things(""), "fieldsets/dated.yaml", dated+"  - {name: SetTime, type: time}\n"), `catalog/fieldsets/dated.yaml: field SetTime: unknown type "time"`},
	{"field set lookup outside the set", plus(things("  - {name: OwnerNr, references: owners}\n  - {use: owned}\n"), "owners.yaml", owners, "fieldsets/owned.yaml", "fieldset: owned\nfields:\n  - {name: OwnerName, lookup: OwnerNr.Name}\n"), `catalog/fieldsets/owned.yaml: field OwnerName: lookup "OwnerNr.Name" must be Ref.Field where Ref is a reference field declared with it`},
}

// TestValidationNamesFileAndField checks each kind of catalog mistake is
// reported with the file and the field at fault.
func TestValidationNamesFileAndField(t *testing.T) {
	for _, tc := range loaderErrors {
		t.Run(tc.name, func(t *testing.T) {
			_, err := load(tc.files)
			if err == nil {
				t.Fatalf("loaded; want an error containing %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q\nwant it to contain %q", err, tc.want)
			}
			if goType := regexp.MustCompile(`\bcatalog\.[a-zA-Z]`).FindString(err.Error()); goType != "" {
				t.Fatalf("error %q names the loader's Go type %s", err, goType)
			}
		})
	}
}

// TestEveryLoaderErrorHasACase reads the loader's source: every error
// message it can build must be produced by a case of loaderErrors, so a
// new check comes with its test.
func TestEveryLoaderErrorHasACase(t *testing.T) {
	var messages []string
	for _, tc := range loaderErrors {
		if _, err := load(tc.files); err != nil {
			messages = append(messages, err.Error())
		}
	}
	sources, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	formats := 0
	for _, name := range sources {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || !isErrorf(call) || len(call.Args) == 0 {
				return true
			}
			lit, ok := call.Args[0].(*ast.BasicLit)
			if !ok {
				t.Errorf("%s: fmt.Errorf with a format that is not a literal", fset.Position(call.Pos()))
				return true
			}
			format, err := strconv.Unquote(lit.Value)
			if err != nil {
				t.Fatal(err)
			}
			formats++
			re := formatPattern(format)
			for _, m := range messages {
				if re.MatchString(m) {
					return true
				}
			}
			t.Errorf("%s: no case of loaderErrors reports %q", fset.Position(call.Pos()), format)
			return true
		})
	}
	if formats < 50 {
		t.Fatalf("found only %d error formats; is the source read?", formats)
	}
}

func isErrorf(call *ast.CallExpr) bool {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	return ok && pkg.Name == "fmt" && sel.Sel.Name == "Errorf"
}

// formatPattern matches what a fmt format can print: its text, with any
// value for each verb.
func formatPattern(format string) *regexp.Regexp {
	verb := regexp.MustCompile(`%[a-z]`)
	var b strings.Builder
	last := 0
	for _, loc := range verb.FindAllStringIndex(format, -1) {
		b.WriteString(regexp.QuoteMeta(format[last:loc[0]]))
		b.WriteString(`(?s:.*)`)
		last = loc[1]
	}
	b.WriteString(regexp.QuoteMeta(format[last:]))
	return regexp.MustCompile(b.String())
}

// fieldNames lists a register's field names in order.
func fieldNames(r *Register) []string {
	var names []string
	for _, f := range r.Fields {
		names = append(names, f.Name)
	}
	return names
}

// TestExtends: an extending register is its base with the file's keys
// replacing the base's, override changing only the keys it gives of a
// field, and its own fields added at the end.
func TestExtends(t *testing.T) {
	is := is.New(t)
	c, err := load(map[string]string{
		"parts.yaml": parts,
		"spares.yaml": spares + `description: Spare parts.
defaults: {Kind: spare}
override:
  - {name: Nr, description: Spare number.}
  - {name: ParentNr, references: parts}
fields:
  - {name: Weight, type: number, writable: true}
`,
		"minis.yaml": "register: minis\nextends: spares\nrecord: Mini\n",
	})
	is.NoErr(err)
	base, spare, mini := c.Register("parts"), c.Register("spares"), c.Register("minis")

	is.Equal(spare.File, "spares.yaml")
	is.Equal(spare.Record, "Spare")
	is.Equal(spare.Description, "Spare parts.")
	is.Equal(spare.Key, "Nr")                                    // inherited
	is.Equal(spare.NumberSeries, true)                           // inherited
	is.Equal(spare.Methods, []Method{Create, Update})            // inherited
	is.Equal(spare.Filters[0].Param, "kind")                     // inherited
	is.Equal(spare.Defaults, map[string]string{"Kind": "spare"}) // replaced whole

	// The base's fields, then its own.
	is.Equal(fieldNames(spare), []string{"Nr", "Status", "Kind", "ParentNr", "Weight"})
	is.Equal(spare.Field("Nr").CreateOnly, true)             // kept
	is.Equal(spare.Field("Nr").Description, "Spare number.") // overridden
	is.Equal(spare.Field("ParentNr").Writable, true)         // kept
	is.Equal(spare.Field("ParentNr").References, "parts")    // added
	is.Equal(spare.Field("Weight").Column, "weight")         // completed like any field
	is.Equal(spare.ReadScope, "spares:read")

	is.Equal(base.Field("ParentNr").References, "") // the base is not changed
	is.Equal(base.Field("Nr").Description, "Part number.")
	is.Equal(base.Defaults, map[string]string{"Status": "Active", "Kind": "part"})
	is.True(base.Field("Kind") != spare.Field("Kind")) // each register owns its fields

	is.Equal(mini.Description, "")                // never inherited
	is.Equal(fieldNames(mini), fieldNames(spare)) // through spares to parts
	is.Equal(mini.Field("ParentNr").References, "parts")
	is.Equal(mini.Defaults, map[string]string{"Kind": "spare"})
}

// TestFieldSets: a {use: <set>} entry stands for the set's fields, in its
// place, in a register or in an extending register's own fields.
func TestFieldSets(t *testing.T) {
	is := is.New(t)
	c, err := load(map[string]string{
		"fieldsets/dated.yaml": dated,
		"things.yaml":          minimal + "  - {use: dated}\n  - {name: Size, type: number}\n",
		"parts.yaml":           parts,
		"spares.yaml":          spares + "fields:\n  - {use: dated}\n",
	})
	is.NoErr(err)
	thing, spare := c.Register("things"), c.Register("spares")
	is.Equal(fieldNames(thing), []string{"Nr", "SetBy", "SetDate", "Size"})
	is.Equal(thing.Field("SetDate").Type, Date)
	is.Equal(thing.Field("SetBy").Type, Text) // defaults filled in as for any field
	is.Equal(thing.Field("SetDate").WriteName, "setDate")
	is.Equal(fieldNames(spare), []string{"Nr", "Status", "Kind", "ParentNr", "SetBy", "SetDate"})
	is.True(thing.Field("SetBy") != spare.Field("SetBy")) // each register owns its fields
	for _, f := range append(thing.Fields, spare.Fields...) {
		is.Equal(f.Use, "") // resolved away
	}
}

// FuzzLoad: whatever a register file says, the loader answers with a
// catalog or an error, never a panic. The file may extend parts and use
// the field set dated.
func FuzzLoad(f *testing.F) {
	for _, tc := range loaderErrors {
		for name, text := range tc.files {
			if name == "things.yaml" || name == "spares.yaml" {
				f.Add(text)
			}
		}
	}
	f.Fuzz(func(t *testing.T, text string) {
		c, err := load(map[string]string{
			"things.yaml": text, "parts.yaml": parts, "owners.yaml": owners, "fieldsets/dated.yaml": dated,
		})
		if err == nil && c.Register("things") == nil {
			t.Fatal("loaded without error but without things")
		}
	})
}

// TestRuleKeys: the declarative rule keys, used as meant, load.
func TestRuleKeys(t *testing.T) {
	is := is.New(t)
	c, err := load(plus(things(`  - {name: OwnerNr, writable: true, references: owners}
  - {name: Name, writable: true, defaultFrom: OwnerNr.Name}
lines:
  - {name: notes, register: owners, parent: Nr, inherit: [Name]}
locateFrom: [OwnerNr]
`), "owners.yaml", owners))
	is.NoErr(err)
	things := c.Register("things")
	is.Equal(things.Field("Name").DefaultFrom, "OwnerNr.Name")
	is.Equal(things.Lines[0].Inherit, []string{"Name"})
	is.Equal(things.LocateFrom, []string{"OwnerNr"})
}

// TestRenamesAndRemovalsLoad: a field's renamedFrom and a register's
// removedFields are kept for the migration; an extending register
// inherits the removals of its base, whose fields it had too.
func TestRenamesAndRemovalsLoad(t *testing.T) {
	cat, err := load(map[string]string{
		"parts.yaml":  strings.Replace(parts, "fields:\n", "removedFields: [Colour]\nfields:\n  - {name: Weight, type: number, renamedFrom: Mass}\n", 1),
		"spares.yaml": spares,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"parts", "spares"} {
		r := cat.Register(name)
		if w := r.Field("Weight"); w == nil || w.RenamedFrom != "Mass" || !slices.Equal(r.RemovedFields, []string{"Colour"}) {
			t.Errorf("%s: Weight %+v, removedFields %v; want Weight renamed from Mass and Colour removed", name, w, r.RemovedFields)
		}
	}
}

// TestFieldNameIsTheInverseOfColumn: a column names its field back; a
// column no field name gives names none.
func TestFieldNameIsTheInverseOfColumn(t *testing.T) {
	for _, name := range []string{"Custom4", "AddressLine1", "CustomerNr", "ABC", "X"} {
		if got, ok := FieldName(Column(name)); !ok || got != name {
			t.Errorf("FieldName(%q) = %q, %v; want %q", Column(name), got, ok, name)
		}
	}
	for _, column := range []string{"", "_a", "a_", "a__b", "a_1", "1a", "Custom4", "a-b", "seq_"} {
		if got, ok := FieldName(column); ok {
			t.Errorf("FieldName(%q) = %q; want none", column, got)
		}
	}
}
