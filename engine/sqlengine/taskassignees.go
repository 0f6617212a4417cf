package sqlengine

import (
	"slices"
	"strings"

	"fieldapi/engine"
)

// Assignees of a task (spec 3.1, 4.3 rules 4 and 5). UserSigns lists them
// (the catalog checks every signature exists); AssigneeStatuses holds each
// one's own status on the task, stored as a JSON object beside the list.
//
//   - A new assignee starts in the default status (Planned): the task has
//     not been sent to them yet. A status change of the task moves every
//     assignee with it (moveTaskStatus).
//   - An assignee who stays on the list across an update keeps their status.
//   - When a task goes from one assignee to several, the engine marks
//     ActionText with the previous sole assignee's signature in brackets,
//     "[ANLI] ...", so the action text shows whose it was.

// assignTask sets AssigneeStatuses for the UserSigns a write sends; current
// is the task before an update (nil on create). A signature sent twice is
// assigned once; a cleared list leaves the task without assignees.
func assignTask(current engine.Record, values map[string]any, startStatus string) {
	sent, present := values["UserSigns"]
	if !present {
		return // omitted: the assignment is untouched
	}
	list, _ := sent.([]string)
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
			status = startStatus
		}
		statuses[sign] = status
	}
	values["UserSigns"], values["AssigneeStatuses"] = signs, statuses

	if previous := current.List("UserSigns"); len(previous) == 1 && len(signs) > 1 {
		markActionText(current, values, previous[0])
	}
}

// markActionText puts "[SIGN] " at the front of the task's action text
// (as this write leaves it; "[SIGN]" alone when it is empty), unless the
// mark is there already.
func markActionText(current engine.Record, values map[string]any, sign string) {
	text, _ := current["ActionText"].(string)
	if v, sent := values["ActionText"]; sent {
		text, _ = v.(string) // a cleared text is ""
	}
	mark := "[" + sign + "]"
	switch {
	case strings.HasPrefix(text, mark): // marked already
	case text == "":
		values["ActionText"] = mark
	default:
		values["ActionText"] = mark + " " + text
	}
}

// assigneeStatuses reads a task's AssigneeStatuses; never nil.
func assigneeStatuses(task map[string]any) map[string]string {
	if m, ok := task["AssigneeStatuses"].(map[string]string); ok && m != nil {
		return m
	}
	return map[string]string{}
}
