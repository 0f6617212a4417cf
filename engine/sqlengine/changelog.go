package sqlengine

import (
	"context"
	"fmt"
)

// log adds the engine's change-log row for a write, signed with the
// caller's signature and marked as made via the API. A record that is a
// line of an owner (a contact of a customer, a time of a task) is logged on
// the owner too. values is the record after the write, by field name.
func (w *writer) log(ctx context.Context, t *table, key, action, detail string, values map[string]any) error {
	if err := w.logRow(ctx, t.reg.Name, key, action, detail); err != nil {
		return err
	}
	for _, o := range t.owners {
		ownerKey, _ := values[o.line.Parent].(string)
		if ownerKey == "" || !matchesSet(o.line.Set, values) {
			continue
		}
		lineDetail := fmt.Sprintf("%s %s", o.line.Name, key)
		if detail != "" {
			lineDetail += ": " + detail
		}
		if err := w.logRow(ctx, o.owner.Name, ownerKey, action+" line", lineDetail); err != nil {
			return err
		}
	}
	return nil
}

func (w *writer) logRow(ctx context.Context, register, key, action, detail string) error {
	_, err := exec(ctx, w.tx, `INSERT INTO "change_log"
		("company", "register", "record_key", "sign", "client_id", "via_api", "action", "detail", "at")
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		w.s.Company, register, key, w.s.Sign, w.s.ClientID, true, action, detail, w.now)
	return err
}

// matchesSet reports whether a record carries a line list's fixed values,
// which tell apart owners sharing one line register (OwnerType task or quote).
func matchesSet(set map[string]string, values map[string]any) bool {
	for name, want := range set {
		if fmt.Sprint(values[name]) != want {
			return false
		}
	}
	return true
}
