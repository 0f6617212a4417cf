package sqlengine

// Task rules (spec 2.2, 3, 4.3): status transitions, assignees, plan dates,
// pricing of material lines, notes. To be written with the tasks issue.
func taskRules() *registerRules { return &registerRules{} }

// Material lines are priced by their owner's rules.
func materialRules() *registerRules { return &registerRules{} }
