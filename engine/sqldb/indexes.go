package sqldb

import (
	"context"
	"fmt"
	"strings"
)

// Indexes are the names of the indexes a database holds (in the
// connection's schema on PostgreSQL), for a migration to create only those
// it lacks: CREATE INDEX IF NOT EXISTS still locks its table against
// writes on PostgreSQL before it finds the index there, so a process
// starting beside live ones would hold their writes up until its migration
// commits, or deadlock with a write that takes the tables in another order.
func Indexes(ctx context.Context, tx *Tx) (map[string]bool, error) {
	var names []string
	if err := Select(ctx, tx, &names, tx.Dialect.indexesQuery); err != nil {
		return nil, fmt.Errorf("list the indexes: %w", err)
	}
	have := make(map[string]bool, len(names))
	for _, n := range names {
		have[n] = true
	}
	return have, nil
}

// IndexName is the name a CREATE INDEX IF NOT EXISTS statement of ours
// gives its index (its first quoted name), or "" for another statement.
func IndexName(stmt string) string {
	_, rest, ok := strings.Cut(stmt, `IF NOT EXISTS "`)
	if !ok {
		return ""
	}
	name, _, _ := strings.Cut(rest, `"`)
	return name
}
