package sqlengine

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/jmoiron/sqlx"

	"fieldapi/engine"
)

// Task statuses (spec 3.1). The statuses are fixed; which moves between
// them the engine allows, and which status a new task starts in, are the
// company's settings (taskStatusRules).

var taskStatuses = []string{"Planned", "Sent", "Received", "InProgress", "Finished", "Archived"}

// taskStatusSetting names the company's status rules in the settings table.
const taskStatusSetting = "tasks.statusRules"

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
func loadTaskStatusRules(ctx context.Context, q db, company string) (taskStatusRules, error) {
	var value string
	err := get(ctx, q, &value, `SELECT "value" FROM "settings" WHERE "company" = ? AND "name" = ?`, company, taskStatusSetting)
	if errors.Is(err, sql.ErrNoRows) {
		return referenceTaskStatusRules(), nil
	}
	if err != nil {
		return taskStatusRules{}, err
	}
	var rules taskStatusRules
	if err := json.Unmarshal([]byte(value), &rules); err != nil || !slices.Contains(taskStatuses, rules.Default) {
		return taskStatusRules{}, fmt.Errorf("settings %s of company %s: want {default, transitions} with a task status as default", taskStatusSetting, company)
	}
	return rules, nil
}

// saveTaskStatusRules stores a company's status rules (the engine's
// administration; the demo data).
func saveTaskStatusRules(ctx context.Context, tx *sqlx.Tx, company string, rules taskStatusRules) error {
	value, err := json.Marshal(rules)
	if err != nil {
		return err
	}
	_, err = exec(ctx, tx, `INSERT INTO "settings" ("company", "name", "value") VALUES (?, ?, ?)
		ON CONFLICT ("company", "name") DO UPDATE SET "value" = excluded."value"`, company, taskStatusSetting, string(value))
	return err
}

// checkTaskStatus refuses a value that is not a task status.
func checkTaskStatus(status string) error {
	if !slices.Contains(taskStatuses, status) {
		return engine.Refuse("%q is not a task status", status).WithValid(taskStatuses...)
	}
	return nil
}

// requestedStatus holds, among a new task's values, the status the create
// asked for until afterTaskCreate applies it. It is no field name (those
// are PascalCase), so it is never stored.
const requestedStatus = "requested status"

// holdRequestedStatus checks the status a create sends and holds it back:
// the task is stored in the default status, and the requested one is
// applied last, through the transition rules (spec 3.1).
func holdRequestedStatus(values map[string]any, defaultStatus string) error {
	sent, present := values["Status"]
	values["Status"] = defaultStatus
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

// setTaskStatus is the status action (POST /v1/tasks/{nr}/status).
// Asking for the status the task has changes nothing.
func setTaskStatus(ctx context.Context, w *writer, t *table, key string, in engine.Input) error {
	to, _ := in.Values["Status"].(string)
	if err := checkTaskStatus(to); err != nil {
		return err
	}
	task, seq, err := w.e.getRecord(ctx, w.tx, t, w.s.Company, key)
	if err != nil {
		return err
	}
	from, _ := task["Status"].(string)
	if from == to {
		return nil
	}
	if err := w.moveTaskStatus(ctx, t, seq, key, task, to); err != nil {
		return err
	}
	return w.log(ctx, t, key, "status", from+" → "+to, task)
}

// moveTaskStatus moves a stored task (its values in task) to another
// status, if the company's transition rules allow it and the task has an
// owner. Every assignee moves with the task: the dispatcher's status
// change reaches all of them. task is updated to match.
func (w *writer) moveTaskStatus(ctx context.Context, t *table, seq int64, key string, task map[string]any, to string) error {
	from, _ := task["Status"].(string)
	if owner, _ := task["OwnerSign"].(string); owner == "" {
		return engine.Refuse("Task %s has no owner: an owner is required to change its status", key)
	}
	rules, err := loadTaskStatusRules(ctx, w.tx, w.s.Company)
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
	task["Status"], task["AssigneeStatuses"] = to, assignees
	// Only from the status the rules were checked against: a move made by
	// a parallel call in between leaves no row to update, and this call
	// is answered busy, to be retried against the new status.
	n, err := execAffected(ctx, w.tx, `UPDATE "tasks" SET "status" = ?, "assignee_statuses" = ?, "modified" = ?
		WHERE "company" = ? AND "seq" = ? AND "status" = ?`,
		to, toDB(t.reg.Field("AssigneeStatuses"), assignees), w.now, w.s.Company, seq, from)
	if err == nil && n != 1 {
		err = engine.ErrBusy
	}
	return err
}
