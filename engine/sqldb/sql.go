package sqldb

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"

	"github.com/jmoiron/sqlx"
)

// The helpers below take SQL with ? placeholders and rebind it for the
// dialect.

// Get scans one row into dest.
func Get(ctx context.Context, q Querier, dest any, query string, args ...any) error {
	return sqlx.GetContext(ctx, q, dest, q.Rebind(query), args...)
}

// Select scans rows into dest, a slice.
func Select(ctx context.Context, q Querier, dest any, query string, args ...any) error {
	return sqlx.SelectContext(ctx, q, dest, q.Rebind(query), args...)
}

// Exec runs a statement.
func Exec(ctx context.Context, q Querier, query string, args ...any) (sql.Result, error) {
	return q.ExecContext(ctx, q.Rebind(query), args...)
}

// ExecAffected runs a statement and returns how many rows it affected.
func ExecAffected(ctx context.Context, q Querier, query string, args ...any) (int64, error) {
	res, err := Exec(ctx, q, query, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// Exists reports whether a query returns a row.
func Exists(ctx context.Context, q Querier, query string, args ...any) (bool, error) {
	rows, err := q.QueryContext(ctx, q.Rebind(query), args...)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	found := rows.Next()
	return found, rows.Err()
}

// Quote double-quotes an identifier.
func Quote(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }

// Placeholders is "?, ?, ?" for n values.
func Placeholders(n int) string {
	if n <= 0 {
		return ""
	}
	return strings.Repeat("?, ", n-1) + "?"
}

// AsText reads a text value as the drivers return it.
func AsText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case []byte:
		return string(x)
	default:
		return fmt.Sprint(x)
	}
}

// AsInt64 reads an integer value as the drivers return it.
func AsInt64(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case int32:
		return int64(x), true
	case float64:
		return int64(x), true
	case string, []byte:
		n, err := strconv.ParseInt(AsText(x), 10, 64)
		return n, err == nil
	}
	return 0, false
}
