package sqlengine

// Order, order line, quote, contract and time rules (spec 4.4, 4.5). To be
// written with the orders issue.
func orderRules() *registerRules     { return &registerRules{} }
func orderLineRules() *registerRules { return &registerRules{} }
func quoteRules() *registerRules     { return &registerRules{} }
func contractRules() *registerRules  { return &registerRules{} }
func timeRules() *registerRules      { return &registerRules{} }
