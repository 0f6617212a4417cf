package client

import (
	"net/url"
	"strings"
)

// Count says how a list counts Page.Total (the count parameter).
type Count string

// The count modes; "" is CountExact.
const (
	CountExact     Count = "exact"     // count every matching record
	CountEstimated Count = "estimated" // the database's estimate; Page.TotalEstimated says when it is one
	CountNone      Count = "none"      // count nothing: Page.Total is nil
)

// setSort sends sort keys as one comma list; none sends nothing.
func setSort[K ~string](q url.Values, name string, keys []K) {
	if len(keys) == 0 {
		return
	}
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = string(k)
	}
	q.Set(name, strings.Join(parts, ","))
}
