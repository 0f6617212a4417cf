package client

// Count says how a list counts Page.Total (the count parameter).
type Count string

// The count modes; "" is CountExact.
const (
	CountExact     Count = "exact"     // count every matching record
	CountEstimated Count = "estimated" // the database's estimate; Page.TotalEstimated says when it is one
	CountNone      Count = "none"      // count nothing: Page.Total is nil
)
