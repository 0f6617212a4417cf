package rules

import "fieldapi/engine/names"

// Builtin is every rule module of the reference engine, in the order their
// hooks run on one register.
func Builtin() []Module {
	return []Module{
		taskRecord{},      // taskrecord.go: notes
		taskStatus{},      // taskstatus.go: statuses and the company's transition table
		taskAssignees{},   // taskassignees.go: assignees, their statuses, the bracket mark
		taskPlan{},        // taskplan.go: plan dates
		materialPricing{}, // materialpricing.go: a task's material lines priced from its price list
		orderLineTotal{},  // orderlines.go: an order line's TotalPrice
		quoteValidity{},   // quotes.go: a quote's ValidUntilDate
		timeBooking{},     // times.go: standalone entries and booking types
		timeTypeKeys{},    // times.go: time type names in refusals
		addressOwner{},    // addresses.go: the owner of an address
		ownerTypeFilter{register: names.Times, field: names.TimeOwnerType},         // ownertype.go
		ownerTypeFilter{register: names.Materials, field: names.MaterialOwnerType}, // ownertype.go
	}
}
