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
