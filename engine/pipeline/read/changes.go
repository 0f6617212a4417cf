package read

import (
	"context"

	"fieldapi/engine"
	"fieldapi/engine/pipeline/permissions"
	"fieldapi/engine/pipeline/registers"
	"fieldapi/engine/store"
)

// defaultChanges is how many log entries Changes reads when not told.
const defaultChanges = 100

// Changes lists a record's change-log entries, newest first.
func (e *Reads) Changes(ctx context.Context, s engine.Session, register, key string, q engine.ChangeQuery) (_ []engine.Change, err error) {
	defer readOnly(&err)
	if _, err := e.registers.Get(register); err != nil {
		return nil, err
	}
	if err := e.perms.Check(ctx, e.store, s, register, permissions.Read); err != nil {
		return nil, err
	}
	if _, _, err := e.Row(ctx, e.store, s.Company, register, key); err != nil {
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
