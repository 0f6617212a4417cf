package catalog

import (
	"regexp"
	"strings"
)

// Event types are named from the catalog, so a register declared in YAML
// alone emits its own: <record>.<what>, the record's name in snake_case
// (Task → task, OrderLine → order_line) and what happened:
//
//	created                   a create (the record with the lines sent with it)
//	updated                   a PATCH that changed something
//	<line>_added              POST …/{key}/<lines>: one line (task.material_added, order.line_added)
//	<action event>            a named action (task.status_changed, task.note_added)
//	document_added            an uploaded document
//	location_changed          a pinned or recalculated position
//
// The engine records them; the generator documents them; both call
// EventTypes, so the two can never disagree.

// What happened to a record, the part of an event type after the prefix.
const (
	EventCreated         = "created"
	EventUpdated         = "updated"
	EventDocumentAdded   = "document_added"
	EventLocationChanged = "location_changed"
)

var eventName = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// EventType is one event a register emits.
type EventType struct {
	Name        string // task.status_changed
	Description string // one line for docs
}

// EventPrefix is the first part of the register's event types: the record
// name in snake_case.
func (r *Register) EventPrefix() string { return Column(r.Record) }

// EventType names an event of the register: its prefix and what happened.
func (r *Register) EventType(what string) string { return r.EventPrefix() + "." + what }

// LineEvent is what adding one line of the list is called: the list's
// name in the singular, then _added (materials → material_added).
func (l *Line) LineEvent() string { return Column(strings.TrimSuffix(l.Name, "s")) + "_added" }

// EventTypes lists every event the register emits, in a fixed order.
func (r *Register) EventTypes() []EventType {
	var types []EventType
	add := func(what, description string) {
		types = append(types, EventType{Name: r.EventType(what), Description: description})
	}
	if r.Has(Create) {
		add(EventCreated, "A "+r.Record+" was created (with the lines sent with it).")
	}
	if r.Has(Update) {
		add(EventUpdated, "A "+r.Record+" was changed by PATCH.")
	}
	for _, l := range r.Lines {
		if l.Post {
			add(l.LineEvent(), "A line was added to the "+r.Record+"'s "+l.Name+".")
		}
	}
	for _, a := range r.Actions {
		add(a.Event, "The action "+a.Name+": "+a.Description)
	}
	if r.Documents {
		add(EventDocumentAdded, "A document was added to a "+r.Record+".")
	}
	if r.Location {
		add(EventLocationChanged, "A "+r.Record+"'s position was pinned or recalculated.")
	}
	return types
}

// EventTypes lists every event of every register, by register name order.
func (c *Catalog) EventTypes() []EventType {
	var types []EventType
	for _, r := range c.Registers {
		types = append(types, r.EventTypes()...)
	}
	return types
}
