package catalog

import (
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

const minimal = `register: things
record: Thing
key: Nr
fields:
  - {name: Nr, writable: true}
`

// TestValidationNamesFileAndField checks each kind of catalog mistake is
// reported with the file and the field at fault.
func TestValidationNamesFileAndField(t *testing.T) {
	cases := []struct {
		name, yaml, want string
	}{
		{"unknown type", minimal + "  - {name: Size, type: integer}\n", "catalog/things.yaml: field Size: unknown type \"integer\""},
		{"duplicate field", minimal + "  - {name: Nr}\n", "catalog/things.yaml: field Nr: declared twice"},
		{"filter on missing field", minimal + "filters:\n  - {param: size, field: Size}\n", "catalog/things.yaml: filter size: field \"Size\" is not declared"},
		{"reference to missing register", minimal + "  - {name: OwnerNr, references: owners}\n", "catalog/things.yaml: field OwnerNr: references unknown register \"owners\""},
		{"unknown yaml key", minimal + "colour: red\n", "catalog/things.yaml: yaml: unmarshal errors"},
		{"missing key", strings.Replace(minimal, "key: Nr", "key: Id", 1), "catalog/things.yaml: key: field \"Id\" is not declared"},
		{"reserved field", minimal + "  - {name: Modified, type: date}\n", "catalog/things.yaml: field Modified: Modified is added by the service"},
		{"line of unknown register", minimal + "lines:\n  - {name: parts, register: parts, parent: ThingNr}\n", "catalog/things.yaml: line parts: unknown register \"parts\""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			_, err := LoadFS(fstest.MapFS{"things.yaml": {Data: []byte(tc.yaml)}})
			is.True(err != nil)
			is.True(strings.Contains(err.Error(), tc.want)) // error names file and field
		})
	}
}

// withParts is a register with a reference and a line list, to hang the
// declarative rule keys (rulekeys.go) on.
const withParts = `register: things
record: Thing
key: Nr
fields:
  - {name: Nr, writable: true}
  - {name: PartNr, writable: true, references: parts}
  - {name: Colour, writable: true}
  - {name: Size, writable: true}
lines:
  - {name: parts, register: parts, parent: ThingNr
`

// TestRuleKeyValidation: one case per error the declarative rule keys
// (inherit, defaultFrom, locateFrom) report, naming the file and field.
func TestRuleKeyValidation(t *testing.T) {
	for _, tc := range ruleKeyCases {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			_, err := LoadFS(fstest.MapFS{"things.yaml": {Data: []byte(tc.yaml)}, "parts.yaml": {Data: []byte(parts)}})
			is.True(err != nil)
			is.True(strings.Contains(err.Error(), tc.want)) // error names file and field
		})
	}
	is := is.New(t)
	_, err := LoadFS(fstest.MapFS{"things.yaml": {Data: []byte(strings.Replace(withParts, "{name: Colour, writable: true}", "{name: Colour, writable: true, defaultFrom: PartNr.Colour}", 1) + ", inherit: [Colour]}\nlocateFrom: [PartNr]\n")}, "parts.yaml": {Data: []byte(parts)}})
	is.NoErr(err) // all three keys used correctly
}

// ruleKeyCases are one case per error the declarative rule keys report.
var ruleKeyCases = []struct{ name, yaml, want string }{
	{"defaultFrom with lookup", strings.Replace(withParts, "{name: Colour, writable: true}", "{name: Colour, writable: true, lookup: PartNr.Colour, defaultFrom: PartNr.Colour}", 1) + "}\n",
		"catalog/things.yaml: field Colour: lookup and defaultFrom exclude each other"},
	{"defaultFrom read only", strings.Replace(withParts, "{name: Colour, writable: true}", "{name: Colour, defaultFrom: PartNr.Colour}", 1) + "}\n",
		"catalog/things.yaml: field Colour: defaultFrom needs a writable field"},
	{"defaultFrom not a reference", strings.Replace(withParts, "{name: Colour, writable: true}", "{name: Colour, writable: true, defaultFrom: Size.Colour}", 1) + "}\n",
		"catalog/things.yaml: field Colour: defaultFrom \"Size.Colour\" must be Ref.Field"},
	{"defaultFrom unknown source", strings.Replace(withParts, "{name: Colour, writable: true}", "{name: Colour, writable: true, defaultFrom: PartNr.Hue}", 1) + "}\n",
		"catalog/things.yaml: field Colour: defaultFrom \"PartNr.Hue\": parts has no field Hue"},
	{"inherit missing on owner", withParts + ", inherit: [Weight]}\n",
		"catalog/things.yaml: line parts: inherit field \"Weight\" is not declared in things.yaml"},
	{"inherit missing on line", withParts + ", inherit: [Size]}\n",
		"catalog/things.yaml: line parts: inherit field \"Size\" is not declared in parts.yaml"},
	{"inherit the parent", strings.Replace(withParts, "  - {name: Size, writable: true}\n", "  - {name: Size, writable: true}\n  - {name: ThingNr, writable: true}\n", 1) + ", inherit: [ThingNr]}\n",
		"catalog/things.yaml: line parts: inherit field \"ThingNr\" is set by the owner already"},
	{"locateFrom unknown field", withParts + "}\nlocateFrom: [Place]\n",
		"catalog/things.yaml: locateFrom: field \"Place\" is not declared"},
	{"locateFrom not a reference", withParts + "}\nlocateFrom: [Colour]\n",
		"catalog/things.yaml: locateFrom: field Colour is not a text reference field"},
}

// parts is the register withParts references and carries as lines.
const parts = `register: parts
record: Part
key: Nr
fields:
  - {name: Nr, writable: true}
  - {name: ThingNr, writable: true}
  - {name: Colour, writable: true}
  - {name: Weight, type: number, writable: true}
`
