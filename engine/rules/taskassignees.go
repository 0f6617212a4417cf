package rules

import (
	"context"
	"slices"
	"strings"

	"fieldapi/catalog"
	"fieldapi/engine"
	"fieldapi/engine/names"
)

// Assignees of a task (spec 3.1, 4.3 rules 4 and 5). UserSigns lists them
// (the catalog checks every signature exists); AssigneeStatuses holds each
// one's own status on the task, stored as an object beside the list.
//
//   - A new assignee starts in the default status (Planned): the task has
//     not been sent to them yet. A status change of the task moves every
//     assignee with it (taskstatus.go).
//   - An assignee who stays on the list across an update keeps their status.
//   - When a task goes from one assignee to several, ActionText is marked
//     with the previous sole assignee's signature in brackets, "[ANLI] ...",
//     so the action text shows whose it was.
type taskAssignees struct{}

func (taskAssignees) Name() string     { return "the task assignee rules" }
func (taskAssignees) Register() string { return names.Tasks }
func (taskAssignees) Needs() []Need {
	return []Need{
		Field(names.Tasks, names.TaskUserSigns, catalog.List),
		Field(names.Tasks, names.TaskAssigneeStatuses, catalog.Object),
		Field(names.Tasks, names.TaskActionText, catalog.Text),
	}
}

func (taskAssignees) PrepareCreate(ctx context.Context, tx Tx, values Values) error {
	return assign(ctx, tx, nil, values)
}

func (taskAssignees) PrepareUpdate(ctx context.Context, tx Tx, current engine.Record, values Values) error {
	return assign(ctx, tx, current, values)
}

// assign sets AssigneeStatuses for the UserSigns a write sends; current is
// the task before an update (nil on create). Omitted, the assignment is
// untouched. A signature sent twice is assigned once; a cleared list
// leaves the task without assignees.
func assign(ctx context.Context, tx Tx, current engine.Record, values Values) error {
	if _, present := values[names.TaskUserSigns]; !present {
		return nil
	}
	rules, err := loadTaskStatusRules(ctx, tx)
	if err != nil {
		return err
	}
	list, _ := values[names.TaskUserSigns].([]string)
	signs := []string{}
	for _, sign := range list {
		if !slices.Contains(signs, sign) {
			signs = append(signs, sign)
		}
	}
	before := assigneeStatuses(current)
	statuses := make(map[string]string, len(signs))
	for _, sign := range signs {
		status, stays := before[sign]
		if !stays {
			status = rules.Default
		}
		statuses[sign] = status
	}
	values[names.TaskUserSigns], values[names.TaskAssigneeStatuses] = signs, statuses

	if previous := current.List(names.TaskUserSigns); len(previous) == 1 && len(signs) > 1 {
		markActionText(current, values, previous[0])
	}
	return nil
}

// markActionText puts "[SIGN] " at the front of the task's action text
// (as this write leaves it; "[SIGN]" alone when it is empty), unless the
// mark is there already.
func markActionText(current engine.Record, values Values, sign string) {
	actionText := text(current, names.TaskActionText)
	if v, sent := values[names.TaskActionText]; sent {
		actionText, _ = v.(string) // a cleared text is ""
	}
	mark := "[" + sign + "]"
	switch {
	case strings.HasPrefix(actionText, mark): // marked already
	case actionText == "":
		values[names.TaskActionText] = mark
	default:
		values[names.TaskActionText] = mark + " " + actionText
	}
}

// assigneeStatuses reads a task's AssigneeStatuses; never nil.
func assigneeStatuses(task Values) map[string]string {
	if m, ok := task[names.TaskAssigneeStatuses].(map[string]string); ok && m != nil {
		return m
	}
	return map[string]string{}
}
