package sqldb

import (
	"context"
	"fmt"
	"slices"
)

// ColumnDef is a column a migration adds: its name and SQL type.
type ColumnDef struct{ Name, Type string }

// AddMissingColumns adds to an existing table those of columns it lacks,
// in order; existing lists the columns it has (Dialect.ColumnsQuery).
// Added to rows that exist, a column is nullable whatever its type says.
func AddMissingColumns(ctx context.Context, tx *Tx, table string, existing []string, columns []ColumnDef) error {
	for _, c := range columns {
		if slices.Contains(existing, c.Name) {
			continue
		}
		if _, err := tx.ExecContext(ctx, `ALTER TABLE `+Quote(table)+` ADD COLUMN `+Quote(c.Name)+` `+c.Type); err != nil {
			return fmt.Errorf("add %s.%s: %w", table, c.Name, err)
		}
	}
	return nil
}
