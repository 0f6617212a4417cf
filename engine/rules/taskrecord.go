package rules

import (
	"context"
	"strings"

	"fieldapi/engine"
	"fieldapi/engine/names"
)

// taskRecord: a task's notes. The notes action adds an entry to the
// task's change log under the catalog's log action (names.TaskNotesLog),
// which GET /v1/tasks/{nr}/notes lists; the task itself does not change.
type taskRecord struct{}

// noteText is the body field of the notes action (catalog/tasks.yaml).
const noteText = "Text"

func (taskRecord) Name() string     { return "the task note rules" }
func (taskRecord) Register() string { return names.Tasks }
func (taskRecord) Needs() []Need    { return nil }

func (taskRecord) Actions() map[string]Action {
	return map[string]Action{names.TaskNotesAction: addTaskNote}
}

// addTaskNote is the notes action (POST /v1/tasks/{nr}/notes).
func addTaskNote(ctx context.Context, tx Tx, key string, in engine.Input) error {
	note, _ := in.Values[noteText].(string)
	if strings.TrimSpace(note) == "" {
		return engine.Refuse("%s is required: a note cannot be empty", noteText)
	}
	if strings.ContainsRune(note, 0) {
		return engine.Refuse("%s: text may not contain NUL characters", noteText)
	}
	return tx.Log(ctx, names.Tasks, key, names.TaskNotesLog, note, nil)
}
