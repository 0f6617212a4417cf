package pipeline

import (
	"context"
	"fmt"

	"fieldapi/engine"
	"fieldapi/engine/pipeline/permissions"
	"fieldapi/engine/pipeline/registers"
	"fieldapi/engine/store"
)

// The change log is the engine's own log of every write (spec 1): a row
// per write, signed with the caller's signature and marked as made via the
// API. A record that is a line of an owner (a contact of a customer, a
// time of a task) is logged on the owner too. A write notes its rows as it
// goes and writes them in one statement at its end, in the order noted.

// logEntry is one change-log row of a write.
type logEntry struct{ register, key, action, detail string }

// log notes the change-log rows of a write on a record; values is the
// record after the write, by field name.
func (w *Writer) log(r *registers.Register, key, action, detail string, values map[string]any) {
	w.logs = append(w.logs, logEntry{register: r.Reg.Name, key: key, action: action, detail: detail})
	for _, o := range r.Owners {
		ownerKey, _ := values[o.Line.Parent].(string)
		if ownerKey == "" || !matchesSet(o.Line.Set, values) {
			continue
		}
		lineDetail := fmt.Sprintf("%s %s", o.Line.Name, key)
		if detail != "" {
			lineDetail += ": " + detail
		}
		w.logs = append(w.logs, logEntry{register: o.Owner.Name, key: ownerKey, action: action + " line", detail: lineDetail})
	}
}

// Log notes a change-log row of a record of register, with its owner's
// when it is a line (values: the record after the change, or nil).
func (w *Writer) Log(register, key, action, detail string, values map[string]any) error {
	r, err := w.e.registers.Get(register)
	if err != nil {
		return err
	}
	w.log(r, key, action, detail, values)
	return nil
}

// flushLog writes the rows noted, in one statement.
func (w *Writer) flushLog(ctx context.Context) error {
	rows := w.logRows()
	if len(rows) == 0 {
		return nil
	}
	_, err := w.tx.Insert(ctx, registers.ChangeLogTable, w.s.Company, rows)
	return err
}

// logRows are the change-log rows the write noted, taken from it.
func (w *Writer) logRows() []store.Values {
	rows := make([]store.Values, len(w.logs))
	for i, l := range w.logs {
		rows[i] = store.Values{"register": l.register, "record_key": l.key, "sign": w.s.Sign, "client_id": w.s.ClientID,
			"via_api": true, "action": l.action, "detail": l.detail, "at": w.now}
	}
	w.logs = nil
	return rows
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

// defaultChanges is how many log entries Changes reads when not told.
const defaultChanges = 100

// Changes lists a record's change-log entries, newest first.
func (e *Engine) Changes(ctx context.Context, s engine.Session, register, key string, q engine.ChangeQuery) (_ []engine.Change, err error) {
	defer readOnly(&err)
	r, err := e.registers.Get(register)
	if err != nil {
		return nil, err
	}
	if err := e.perms.Check(ctx, e.store, s, register, permissions.Read); err != nil {
		return nil, err
	}
	if _, _, err := e.row(ctx, e.store, r, s.Company, key); err != nil {
		return nil, err
	}
	where := []store.Cond{store.Equal("register", register), store.Equal("record_key", key)}
	if q.Action != "" {
		where = append(where, store.Equal("action", q.Action))
	}
	limit := q.Limit
	if limit <= 0 {
		limit = defaultChanges
	}
	rows, err := e.store.Select(ctx, store.Select{Table: registers.ChangeLogTable, Company: s.Company, Where: where,
		OrderBy: []store.Order{{Field: store.SeqField, Desc: true}}, Limit: limit})
	if err != nil {
		return nil, err
	}
	changes := make([]engine.Change, len(rows))
	for i, row := range rows {
		v := row.Values
		text := func(name string) string { s, _ := v[name].(string); return s }
		viaAPI, _ := v["via_api"].(bool)
		changes[i] = engine.Change{At: text("at"), Action: text("action"), Detail: text("detail"),
			Sign: text("sign"), ClientID: text("client_id"), ViaAPI: viaAPI}
	}
	return changes, nil
}
