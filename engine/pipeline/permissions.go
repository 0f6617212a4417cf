package pipeline

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"fieldapi/engine"
	"fieldapi/engine/store"
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
// engine's administration applies within that time. Inside a transaction
// q must be the transaction (see ttlcache.Cache.Get).
//
// register "" only checks that the user may act at all.
func (e *Engine) authorize(ctx context.Context, q store.Reader, s engine.Session, register string, a access) error {
	_, inTx := q.(store.Tx)
	user, err := e.permissions.Get(s.Company+"\x00"+s.Sign, !inTx, func() (userAccess, error) {
		return loadUserAccess(ctx, q, s)
	})
	if err != nil {
		return err
	}
	action := string(a) + " " + register
	if register == "" {
		action = "act"
	}
	if !user.Found {
		return &engine.PermissionError{Sign: s.Sign, Action: fmt.Sprintf("%s (no such user in company %s)", action, s.Company)}
	}
	if user.Status != "Active" {
		return &engine.PermissionError{Sign: s.Sign, Action: fmt.Sprintf("%s (user is %s)", action, orNone(user.Status))}
	}
	if register == "" || slices.Contains(user.Granted, "*") || slices.Contains(user.Granted, register+":"+string(a)) {
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
	Found   bool
	Status  string
	Granted []string // "*" or <register>:<access>
}

func loadUserAccess(ctx context.Context, q store.Reader, s engine.Session) (userAccess, error) {
	rows, err := q.Select(ctx, store.Select{
		Table: usersRegister, Company: s.Company, Where: []store.Cond{store.Equal("Sign", s.Sign)},
		Columns: []string{"Status", permissions},
	})
	if err != nil || len(rows) == 0 {
		return userAccess{}, err
	}
	status, _ := rows[0].Values["Status"].(string)
	granted, _ := rows[0].Values[permissions].(string)
	list := strings.Split(granted, ",")
	for i := range list {
		list[i] = strings.TrimSpace(list[i])
	}
	return userAccess{Found: true, Status: status, Granted: list}, nil
}

// readable lists the registers a signature may read, whose events it may
// see; nil when it may read every one. A scope never grants more than the
// signature may do, in the feed as in the registers.
func (e *Engine) readable(ctx context.Context, company, sign string) ([]string, error) {
	s := engine.Session{Company: company, Sign: sign}
	readable := []string{}
	for _, r := range e.cat.Registers {
		err := e.authorize(ctx, e.store, s, r.Name, readAccess)
		var denied *engine.PermissionError
		switch {
		case errors.As(err, &denied):
		case err != nil:
			return nil, err
		default:
			readable = append(readable, r.Name)
		}
	}
	if len(readable) == len(e.cat.Registers) {
		return nil, nil
	}
	return readable, nil
}

// Authorize checks the signature may read (write false) or write a
// register, for the modules beside the pipeline (locations, documents).
func (e *Engine) Authorize(ctx context.Context, s engine.Session, register string, write bool) error {
	a := readAccess
	if write {
		a = writeAccess
	}
	err := e.authorize(ctx, e.store, s, register, a)
	if write {
		err = nothingWritten(err)
	}
	return err
}
