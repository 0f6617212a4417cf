package write

import (
	"context"
	"fmt"

	"fieldapi/engine/pipeline/registers"
	"fieldapi/engine/store"
)

// The change log is the engine's own log of every write (spec 1), signed
// and marked as made via the API; a line's write is logged on its owner
// too. A write notes its rows and writes them in one statement at its end.

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

// flushLog writes the rows noted, in one statement, and forgets them.
func (w *Writer) flushLog(ctx context.Context) error {
	if len(w.logs) == 0 {
		return nil
	}
	rows := make([]store.Values, len(w.logs))
	for i, l := range w.logs {
		rows[i] = store.Values{"register": l.register, "record_key": l.key, "sign": w.s.Sign, "client_id": w.s.ClientID,
			"via_api": true, "action": l.action, "detail": l.detail, "at": w.now}
	}
	w.logs = nil
	return store.Append(ctx, w.tx, registers.ChangeLogTable, w.s.Company, rows)
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
