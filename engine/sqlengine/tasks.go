package sqlengine

import (
	"context"
	"strings"

	"fieldapi/engine"
)

// Task rules (spec 2.2, 3, 4.3) beyond what catalog/tasks.yaml declares
// (the owner defaults to the caller's signature there). By concern:
// taskstatus.go (statuses and the company's transition table),
// taskassignees.go (assignees, their own statuses, the bracket marking),
// taskplan.go (plan dates) and tasklines.go (what material lines take from
// the task). This file wires them to the write hooks and holds the Id and
// notes.

func taskRules() *registerRules {
	return &registerRules{
		prepareCreate: prepareTaskCreate,
		prepareUpdate: prepareTaskUpdate,
		prepareLine:   prepareTaskLine,
		afterCreate:   afterTaskCreate,
		actions: map[string]action{
			"status": setTaskStatus,
			"notes":  addTaskNote,
		},
		// The most specific place first: the installation, then the
		// customer (the task has no address fields of its own).
		locateFrom: []string{"Object4Nr", "Object3Nr", "Object2Nr", "Object1Nr", "CustomerNr"},
	}
}

// Material lines are priced by their owner's rules (tasks: tasklines.go);
// a PATCH of a line keeps its price as it is.
func materialRules() *registerRules { return &registerRules{} }

// prepareTaskCreate runs before a new task is stored: the status is
// checked and held back (it is applied last, in afterTaskCreate), the
// assignees start at the default status, and the plan dates are completed.
func prepareTaskCreate(ctx context.Context, w *writer, _ *table, values map[string]any) error {
	statuses, err := loadTaskStatusRules(ctx, w.tx, w.s.Company)
	if err != nil {
		return err
	}
	if err := holdRequestedStatus(values, statuses.Default); err != nil {
		return err
	}
	assignTask(nil, values, statuses.Default)
	return planDates(nil, values)
}

// prepareTaskUpdate runs before a PATCH is stored, with the task as it is.
func prepareTaskUpdate(ctx context.Context, w *writer, _ *table, current engine.Record, values map[string]any) error {
	if _, reassigned := values["UserSigns"]; reassigned {
		statuses, err := loadTaskStatusRules(ctx, w.tx, w.s.Company)
		if err != nil {
			return err
		}
		assignTask(current, values, statuses.Default)
	}
	return planDates(current, values)
}

// afterTaskCreate runs once the task and its lines are stored: it fills
// the Id and applies the requested status last, through the transition
// rules; a refusal rolls back the whole create.
func afterTaskCreate(ctx context.Context, w *writer, c *created, values map[string]any) error {
	// Id is the engine's internal id of the task: its row number, known
	// only once the row exists.
	values["Id"] = formatSeq(c.seq)
	if _, err := exec(ctx, w.tx, `UPDATE "tasks" SET "id" = ? WHERE "company" = ? AND "seq" = ?`,
		values["Id"], w.s.Company, c.seq); err != nil {
		return err
	}
	requested, _ := values[requestedStatus].(string)
	delete(values, requestedStatus)
	if requested == "" || requested == values["Status"] {
		return nil
	}
	return w.moveTaskStatus(ctx, c.table, c.seq, c.key, values, requested)
}

// addTaskNote is the notes action: the text becomes an entry of the task's
// change log. The task itself does not change.
func addTaskNote(ctx context.Context, w *writer, t *table, key string, in engine.Input) error {
	text, _ := in.Values["Text"].(string)
	if strings.TrimSpace(text) == "" {
		return engine.Refuse("Text is required: a note cannot be empty")
	}
	if err := refuseNUL("Text", text); err != nil {
		return err
	}
	return w.logRow(ctx, t.reg.Name, key, "note", text)
}
