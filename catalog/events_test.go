package catalog_test

import (
	"testing"

	"github.com/matryer/is"

	"fieldapi/catalog"
)

// The event types of the built-in catalog: named from records, line lists
// and actions, so a register added in YAML gets its own.
func TestEventTypesAreNamedFromTheCatalog(t *testing.T) {
	is := is.New(t)
	cat, err := catalog.Builtin()
	is.NoErr(err)
	var names []string
	for _, et := range cat.Register("tasks").EventTypes() {
		names = append(names, et.Name)
	}
	is.Equal(names, []string{"task.created", "task.updated", "task.material_added", "task.time_added",
		"task.status_changed", "task.note_added", "task.document_added", "task.location_changed"})
	is.Equal(cat.Register("orders").EventType(cat.Register("orders").Lines[0].LineEvent()), "order.line_added")
	is.Equal(cat.Register("orderlines").EventType(catalog.EventUpdated), "order_line.updated")
	is.Equal(len(cat.Register("users").EventTypes()), 0) // read-only: nothing happens through the API
}
