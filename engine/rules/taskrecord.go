package rules

import (
	"context"
	"strconv"
	"strings"

	"fieldapi/catalog"
	"fieldapi/engine"
	"fieldapi/engine/names"
)

// taskRecord: a task's Id, and its notes. The Id is the engine's internal
// id of the task, its row number, known only once the row exists. The
// notes action adds an entry to the task's change log, under the action
// the catalog declares for its entries (log: note, names.TaskNotesLog),
// which GET /v1/tasks/{nr}/notes lists; the task itself does not change.
type taskRecord struct{}

// noteText is the body field of the notes action (catalog/tasks.yaml).
const noteText = "Text"

func (taskRecord) Name() string     { return "the task id and note rules" }
func (taskRecord) Register() string { return names.Tasks }
func (taskRecord) Needs() []Need {
	return []Need{Field(names.Tasks, names.TaskId, catalog.Text)}
}

// AfterCreate fills the Id of the task just stored.
func (taskRecord) AfterCreate(ctx context.Context, tx Tx, c Created, values Values) error {
	id := strconv.FormatInt(c.Row, 10)
	values[names.TaskId] = id
	_, err := tx.UpdateIf(ctx, names.Tasks, c.Key, nil, Values{names.TaskId: id})
	return err
}

func (taskRecord) Actions() map[string]Action {
	return map[string]Action{names.TaskNotesAction: addTaskNote}
}

// addTaskNote is the notes action (POST /v1/tasks/{nr}/notes).
func addTaskNote(ctx context.Context, tx Tx, key string, in engine.Input) error {
	note, _ := in.Values[noteText].(string)
	if strings.TrimSpace(note) == "" {
		return engine.Refuse("%s is required: a note cannot be empty", noteText)
	}
	if err := refuseNUL(noteText, note); err != nil {
		return err
	}
	return tx.Log(ctx, names.Tasks, key, names.TaskNotesLog, note, nil)
}
