package sqlengine

import (
	"context"
	"fmt"
	"strings"
)

// log adds the engine's change-log row for a write, signed with the
// caller's signature and marked as made via the API. A record that is a
// line of an owner (a contact of a customer, a time of a task) is logged on
// the owner too. values is the record after the write, by field name.
func (w *writer) log(ctx context.Context, t *table, key, action, detail string, values map[string]any) error {
	rows := []logEntry{{register: t.reg.Name, key: key, action: action, detail: detail}}
	for _, o := range t.owners {
		ownerKey, _ := values[o.line.Parent].(string)
		if ownerKey == "" || !matchesSet(o.line.Set, values) {
			continue
		}
		lineDetail := fmt.Sprintf("%s %s", o.line.Name, key)
		if detail != "" {
			lineDetail += ": " + detail
		}
		rows = append(rows, logEntry{register: o.owner.Name, key: ownerKey, action: action + " line", detail: lineDetail})
	}
	return w.logRows(ctx, rows)
}

// logEntry is one change-log row of a write.
type logEntry struct{ register, key, action, detail string }

// logRows inserts the rows in one statement, in order: a line's row and
// its owner's cost one round trip, not two.
func (w *writer) logRows(ctx context.Context, rows []logEntry) error {
	const row = "(?, ?, ?, ?, ?, ?, ?, ?, ?)"
	values := make([]string, len(rows))
	args := make([]any, 0, 9*len(rows))
	for i, r := range rows {
		values[i] = row
		args = append(args, w.s.Company, r.register, r.key, w.s.Sign, w.s.ClientID, true, r.action, r.detail, w.now)
	}
	_, err := exec(ctx, w.tx, `INSERT INTO "change_log"
		("company", "register", "record_key", "sign", "client_id", "via_api", "action", "detail", "at")
		VALUES `+strings.Join(values, ", "), args...)
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
