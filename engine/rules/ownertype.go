package rules

import (
	"slices"

	"fieldapi/engine"
)

// ownerTypeFilter: time and material lines hang off owners of several
// types (spec 2.3). A list's ownerType filter takes one of the owner types,
// or "none" for standalone entries, which have no owner (OwnerType null).
type ownerTypeFilter struct {
	register string // times or materials
	field    string // its OwnerType field
}

// The owner types of time and material lines, and the ownerType filter
// value that lists standalone entries.
var (
	ownerTypes          = []string{"task", "quote", "order", "contract"}
	standaloneOwnerType = "none"
)

func (o ownerTypeFilter) Name() string     { return "the " + o.register + " ownerType filter rules" }
func (o ownerTypeFilter) Register() string { return o.register }
func (o ownerTypeFilter) Needs() []Need {
	return []Need{EnumField(o.register, o.field, ownerTypes)}
}

// ListCondition checks the ownerType filter of a list.
func (o ownerTypeFilter) ListCondition(c engine.Condition) (engine.Condition, error) {
	if c.Field != o.field || c.Op != engine.OpEquals || len(c.Values) != 1 {
		return c, nil
	}
	value, _ := c.Values[0].(string)
	switch {
	case value == standaloneOwnerType:
		c.Values = []any{nil}
	case !slices.Contains(ownerTypes, value):
		return c, engine.Refuse("ownerType %q is not an owner type", value).WithValid(append(slices.Clone(ownerTypes), standaloneOwnerType)...)
	}
	return c, nil
}
