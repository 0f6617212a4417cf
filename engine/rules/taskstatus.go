package rules

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"fieldapi/catalog"
	"fieldapi/engine"
	"fieldapi/engine/names"
)

// Task statuses (spec 3.1). The statuses are fixed; which moves between
// them the engine allows, and which status a new task starts in, are the
// company's settings (taskStatusRules). A create's status is held back and
// applied last, once the task and its lines are stored, through the
// transition rules; a refusal rolls back the whole create. A status change
// moves every assignee with the task.

// taskStatuses are the statuses of a task, in their forward order.
var taskStatuses = []string{"Planned", "Sent", "Received", "InProgress", "Finished", "Archived"}

// TaskStatusSetting names the company's status rules among its settings.
const TaskStatusSetting = "tasks.statusRules"

// taskStatusRules are a company's rules for task statuses.
type taskStatusRules struct {
	Default     string              `json:"default"`     // status of a new task
	Transitions map[string][]string `json:"transitions"` // from → the statuses it may move to
}

// referenceTaskStatusRules are the rules of a company that has none of its
// own (and the demo companies'): a forward flow from planning to archive,
// plus the moves back a dispatcher needs (recall a sent task, reopen a
// finished one, restore an archived one).
func referenceTaskStatusRules() taskStatusRules {
	return taskStatusRules{
		Default: "Planned",
		Transitions: map[string][]string{
			"Planned":    {"Sent", "Archived"},
			"Sent":       {"Received", "Planned"},
			"Received":   {"InProgress", "Planned"},
			"InProgress": {"Finished", "Received"},
			"Finished":   {"Archived", "InProgress"},
			"Archived":   {"Finished"},
		},
	}
}

// loadTaskStatusRules reads the company's status rules.
func loadTaskStatusRules(ctx context.Context, tx Tx) (taskStatusRules, error) {
	rules, ok, err := tx.DecodedSetting(ctx, TaskStatusSetting, decodeTaskStatusRules)
	switch {
	case err != nil && ok:
		return taskStatusRules{}, fmt.Errorf("settings %s of company %s: %w", TaskStatusSetting, tx.Session().Company, err)
	case err != nil || !ok:
		return referenceTaskStatusRules(), err
	}
	return rules.(taskStatusRules), nil
}

func decodeTaskStatusRules(value string) (any, error) {
	var rules taskStatusRules
	if err := json.Unmarshal([]byte(value), &rules); err != nil || !slices.Contains(taskStatuses, rules.Default) {
		return nil, errors.New("want {default, transitions} with a task status as default")
	}
	return rules, nil
}

type taskStatus struct{}

func (taskStatus) Name() string     { return "the task status rules" }
func (taskStatus) Register() string { return names.Tasks }
func (taskStatus) Needs() []Need {
	return []Need{
		EnumField(names.Tasks, names.TaskStatus, taskStatuses),
		Field(names.Tasks, names.TaskOwnerSign, catalog.Text),
		Field(names.Tasks, names.TaskAssigneeStatuses, catalog.Object),
	}
}

// requestedStatus holds, among a new task's values, the status the create
// asked for until AfterCreate applies it. It is no field name (those are
// PascalCase), so it is never stored.
const requestedStatus = "requested status"

// PrepareCreate checks the status a create sends and holds it back: the
// task is stored in the default status.
func (taskStatus) PrepareCreate(ctx context.Context, tx Tx, values Values) error {
	rules, err := loadTaskStatusRules(ctx, tx)
	if err != nil {
		return err
	}
	sent, present := values[names.TaskStatus]
	values[names.TaskStatus] = rules.Default
	if !present {
		return nil
	}
	status, _ := sent.(string)
	if err := checkTaskStatus(status); err != nil {
		return err
	}
	values[requestedStatus] = status
	return nil
}

// AfterCreate applies the requested status through the transition rules.
func (taskStatus) AfterCreate(ctx context.Context, tx Tx, c Created, values Values) error {
	requested, _ := values[requestedStatus].(string)
	delete(values, requestedStatus)
	if requested == "" || requested == values[names.TaskStatus] {
		return nil
	}
	return moveTaskStatus(ctx, tx, c.Key, values, requested)
}

func (taskStatus) Actions() map[string]Action {
	return map[string]Action{names.TaskStatusAction: setTaskStatus}
}

// checkTaskStatus refuses a value that is not a task status.
func checkTaskStatus(status string) error {
	if !slices.Contains(taskStatuses, status) {
		return engine.Refuse("%q is not a task status", status).WithValid(taskStatuses...)
	}
	return nil
}

// setTaskStatus is the status action (POST /v1/tasks/{nr}/status).
// Asking for the status the task has changes nothing.
func setTaskStatus(ctx context.Context, tx Tx, key string, in engine.Input) error {
	to, _ := in.Values[names.TaskStatus].(string)
	if err := checkTaskStatus(to); err != nil {
		return err
	}
	task, err := tx.Record(ctx, names.Tasks, key)
	if err != nil {
		return err
	}
	from := text(task, names.TaskStatus)
	if from == to {
		return nil
	}
	if err := moveTaskStatus(ctx, tx, key, task, to); err != nil {
		return err
	}
	return tx.Log(ctx, names.Tasks, key, "status", from+" → "+to, task)
}

// moveTaskStatus moves a stored task (its values in task, updated to
// match) to another status, if the company's transition rules allow it
// and the task has an owner. Every assignee moves with the task. The
// engine's own loads skip the checks.
func moveTaskStatus(ctx context.Context, tx Tx, key string, task Values, to string) error {
	from := text(task, names.TaskStatus)
	if text(task, names.TaskOwnerSign) == "" {
		return engine.Refuse("Task %s has no owner: an owner is required to change its status", key)
	}
	rules, err := loadTaskStatusRules(ctx, tx)
	if err != nil {
		return err
	}
	allowed := rules.Transitions[from]
	if !slices.Contains(allowed, to) {
		return engine.Refuse("Task %s cannot move from %s to %s; from %s it can move to: %s",
			key, from, to, from, strings.Join(allowed, ", ")).WithValid(allowed...)
	}
	assignees := maps.Clone(assigneeStatuses(task))
	for sign := range assignees {
		assignees[sign] = to
	}
	task[names.TaskStatus], task[names.TaskAssigneeStatuses] = to, assignees
	// Only from the status the rules were checked against: a move made by
	// a parallel call in between leaves no record to update, and this call
	// is answered busy, to be retried against the new status.
	moved, err := tx.UpdateIf(ctx, names.Tasks, key,
		Values{names.TaskStatus: from},
		Values{names.TaskStatus: to, names.TaskAssigneeStatuses: assignees})
	if err == nil && !moved {
		err = engine.ErrBusy
	}
	return err
}
