package sqlengine

import (
	"context"
	"encoding/json"

	"github.com/jmoiron/sqlx"

	"fieldapi/engine/rules"
)

// The task status rules live in engine/rules (taskstatus.go); the demo
// data sets the demo companies' status rules with these.

var taskStatuses = rules.TaskStatuses

func referenceTaskStatusRules() rules.TaskStatusRules { return rules.ReferenceTaskStatusRules() }

// saveTaskStatusRules stores a company's status rules (the engine's
// administration; the demo data).
func saveTaskStatusRules(ctx context.Context, tx *sqlx.Tx, company string, statusRules rules.TaskStatusRules) error {
	value, err := json.Marshal(statusRules)
	if err != nil {
		return err
	}
	_, err = exec(ctx, tx, `INSERT INTO "settings" ("company", "name", "value") VALUES (?, ?, ?)
		ON CONFLICT ("company", "name") DO UPDATE SET "value" = excluded."value"`, company, rules.TaskStatusSetting, string(value))
	return err
}
