package sqlengine

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"

	"github.com/jmoiron/sqlx"
)

// db is what the read and write helpers run on: the pool or a transaction.
type db = sqlx.ExtContext

// The helpers below write ? placeholders and rebind them for the dialect.

func get(ctx context.Context, q db, dest any, query string, args ...any) error {
	return sqlx.GetContext(ctx, q, dest, q.Rebind(query), args...)
}

func sel(ctx context.Context, q db, dest any, query string, args ...any) error {
	return sqlx.SelectContext(ctx, q, dest, q.Rebind(query), args...)
}

func exec(ctx context.Context, q db, query string, args ...any) (sql.Result, error) {
	return q.ExecContext(ctx, q.Rebind(query), args...)
}

// execAffected runs a statement and returns how many rows it affected.
func execAffected(ctx context.Context, q db, query string, args ...any) (int64, error) {
	res, err := exec(ctx, q, query, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// quote double-quotes an identifier.
func quote(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }

// placeholders is "?, ?, ?" for n values.
func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

// asText reads a text value as the drivers return it.
func asText(v any) string {
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

// asInt64 reads an integer value as the drivers return it.
func asInt64(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case int32:
		return int64(x), true
	case float64:
		return int64(x), true
	case string:
		n, err := strconv.ParseInt(x, 10, 64)
		return n, err == nil
	}
	return 0, false
}
