package enginetest

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
	is.Equal(sub.reg.Name, "customers")
	is.Equal(sub.name, "Name")
	is.Equal(sub.equals, "Category")
	is.Equal(len(sub.spare), 2)
	is.True(sub.chosenKey)
	is.Equal(sub.line.list.Name, "contacts")
	is.Equal(sub.line.name, "Name")
	is.True(sub.line.required)

	sub, err = pickSubject(cat, "products")
	is.NoErr(err)
	is.Equal(sub.reg.Name, "products")
	is.Equal(sub.line, nil)

	_, err = pickSubject(cat, "contacts") // its required CustomerNr is a reference
	is.True(err != nil && strings.Contains(err.Error(), "CustomerNr"))
	_, err = pickSubject(cat, "users") // read only
	is.True(err != nil && strings.Contains(err.Error(), "create and update"))
	_, err = pickSubject(cat, "nosuch")
	is.True(err != nil)
}
