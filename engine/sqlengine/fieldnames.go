package sqlengine

import (
	"context"

	"fieldapi/engine"
)

// FieldNames lists the company's labels for standard fields, by DbFieldName.
// Any active user of the company may read them.
func (e *Engine) FieldNames(ctx context.Context, s engine.Session) ([]engine.FieldName, error) {
	return call(e, ctx, func(ctx context.Context) ([]engine.FieldName, error) {
		if err := e.authorize(ctx, e.db, s, "", readAccess); err != nil {
			return nil, err
		}
		var rows []struct {
			DbFieldName   string `db:"db_field_name"`
			UserFieldName string `db:"user_field_name"`
			ListOnly      bool   `db:"list_only"`
			Hidden        bool   `db:"hidden"`
		}
		err := sel(ctx, e.db, &rows, `SELECT "db_field_name", "user_field_name", "list_only", "hidden"
			FROM "field_names" WHERE "company" = ? ORDER BY "db_field_name"`, s.Company)
		if err != nil {
			return nil, err
		}
		names := make([]engine.FieldName, len(rows))
		for i, r := range rows {
			names[i] = engine.FieldName(r)
		}
		return names, nil
	})
}
