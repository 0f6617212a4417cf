package read

import (
	"context"

	"fieldapi/engine"
	"fieldapi/engine/pipeline/permissions"
	"fieldapi/engine/pipeline/registers"
	"fieldapi/engine/store"
)

// FieldNames lists the company's labels for standard fields, by DbFieldName.
// Any active user of the company may read them.
func (e *Reads) FieldNames(ctx context.Context, s engine.Session) (_ []engine.FieldName, err error) {
	defer readOnly(&err)
	if err := e.perms.Check(ctx, e.store, s, "", permissions.Read); err != nil {
		return nil, err
	}
	rows, err := e.store.Select(ctx, store.Select{Table: registers.FieldNamesTable, Company: s.Company,
		OrderBy: []store.Order{{Field: "db_field_name"}}})
	if err != nil {
		return nil, err
	}
	names := make([]engine.FieldName, len(rows))
	for i, row := range rows {
		v := row.Values
		names[i].DbFieldName, _ = v["db_field_name"].(string)
		names[i].UserFieldName, _ = v["user_field_name"].(string)
		names[i].ListOnly, _ = v["list_only"].(bool)
		names[i].Hidden, _ = v["hidden"].(bool)
	}
	return names, nil
}
