package sqlengine

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	"fieldapi/engine"
)

// access is what a call does to a register.
type access string

const (
	readAccess  access = "read"
	writeAccess access = "write"
)

// authorize checks the signature's own permissions in the engine: the user
// must exist in the company, be Active, and hold "*" or
// "<register>:<access>". A key's scopes never grant more than this. Nothing
// is cached, so a permission change applies to the next call.
//
// register "" only checks that the user may act at all.
func (e *Engine) authorize(ctx context.Context, q db, s engine.Session, register string, a access) error {
	var user struct {
		Status      sql.NullString `db:"status"`
		Permissions sql.NullString `db:"permissions"`
	}
	err := get(ctx, q, &user, `SELECT "status", "permissions" FROM "users" WHERE "company" = ? AND "sign" = ?`, s.Company, s.Sign)
	action := string(a) + " " + register
	if register == "" {
		action = "act"
	}
	if errors.Is(err, sql.ErrNoRows) {
		return &engine.PermissionError{Sign: s.Sign, Action: fmt.Sprintf("%s (no such user in company %s)", action, s.Company)}
	}
	if err != nil {
		return err
	}
	if user.Status.String != "Active" {
		return &engine.PermissionError{Sign: s.Sign, Action: fmt.Sprintf("%s (user is %s)", action, orNone(user.Status.String))}
	}
	if register == "" {
		return nil
	}
	granted := strings.Split(user.Permissions.String, ",")
	for i := range granted {
		granted[i] = strings.TrimSpace(granted[i])
	}
	if slices.Contains(granted, "*") || slices.Contains(granted, register+":"+string(a)) {
		return nil
	}
	return &engine.PermissionError{Sign: s.Sign, Action: action}
}

func orNone(s string) string {
	if s == "" {
		return "without status"
	}
	return s
}
