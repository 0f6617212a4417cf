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
// "<register>:<access>". A key's scopes never grant more than this. The
// user's permissions are cached for cacheTTL, so a change made in the
// engine's administration applies within that time.
//
// register "" only checks that the user may act at all.
func (e *Engine) authorize(ctx context.Context, q db, s engine.Session, register string, a access) error {
	user, err := e.permissions.get(q, s.Company+"\x00"+s.Sign, func(q db) (userAccess, error) { return loadUserAccess(ctx, q, s) })
	action := string(a) + " " + register
	if register == "" {
		action = "act"
	}
	if err != nil {
		return err
	}
	if !user.Found {
		return &engine.PermissionError{Sign: s.Sign, Action: fmt.Sprintf("%s (no such user in company %s)", action, s.Company)}
	}
	if user.Status != "Active" {
		return &engine.PermissionError{Sign: s.Sign, Action: fmt.Sprintf("%s (user is %s)", action, orNone(user.Status))}
	}
	if register == "" {
		return nil
	}
	granted := strings.Split(user.Permissions, ",")
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

// userAccess is what authorize needs of a signature, cached for cacheTTL.
type userAccess struct {
	Found       bool
	Status      string
	Permissions string
}

func loadUserAccess(ctx context.Context, q db, s engine.Session) (userAccess, error) {
	var user struct {
		Status      sql.NullString `db:"status"`
		Permissions sql.NullString `db:"permissions"`
	}
	err := get(ctx, q, &user, `SELECT "status", "permissions" FROM "users" WHERE "company" = ? AND "sign" = ?`, s.Company, s.Sign)
	if errors.Is(err, sql.ErrNoRows) {
		return userAccess{}, nil
	}
	if err != nil {
		return userAccess{}, err
	}
	return userAccess{Found: true, Status: user.Status.String, Permissions: user.Permissions.String}, nil
}
