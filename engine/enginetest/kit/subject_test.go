package kit

import (
	"strings"
	"testing"

	"github.com/matryer/is"

	"fieldapi/catalog"
)

// TestPickSubject: the suite finds its subject in the builtin catalog —
// customers, named by Name, filtered by Category, with contacts lines
// that require a Name — or uses the register named, or says why not.
func TestPickSubject(t *testing.T) {
	is := is.New(t)
	cat, err := catalog.Builtin()
	is.NoErr(err)

	sub, err := pickSubject(cat, "")
	is.NoErr(err)
	is.Equal(sub.Reg.Name, "customers")
	is.Equal(sub.Name, "Name")
	is.Equal(sub.Equals, "Category")
	is.Equal(len(sub.Spare), 2)
	is.True(sub.ChosenKey)
	is.Equal(sub.Line.List.Name, "contacts")
	is.Equal(sub.Line.Name, "Name")
	is.True(sub.Line.Required)

	sub, err = pickSubject(cat, "products")
	is.NoErr(err)
	is.Equal(sub.Reg.Name, "products")
	is.Equal(sub.Line, nil)

	_, err = pickSubject(cat, "contacts") // its required CustomerNr is a reference
	is.True(err != nil && strings.Contains(err.Error(), "CustomerNr"))
	_, err = pickSubject(cat, "users") // read only
	is.True(err != nil && strings.Contains(err.Error(), "create and update"))
	_, err = pickSubject(cat, "nosuch")
	is.True(err != nil)
}
