// Package permissions decides whether a signature may read or write a
// register: the user must exist in the company, be Active and hold the
// permission. It is the engine's own check, beneath every key's scopes;
// what it reads of a user is cached for a short while.
package permissions

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"fieldapi/catalog"
	"fieldapi/engine"
	"fieldapi/engine/internal/ttlcache"
	"fieldapi/engine/pipeline/registers"
	"fieldapi/engine/store"
)

// Access is what a call does to a register.
type Access string

const (
	Read  Access = "read"
	Write Access = "write"
)

// Checker checks signatures' permissions in one store. It is safe for
// concurrent use.
type Checker struct {
	cat   *catalog.Catalog
	store store.Store
	users *ttlcache.Cache[userAccess] // by company and sign
}

// New makes the checker of a catalog's registers over a store, trusting
// what it read of a user for ttl.
func New(cat *catalog.Catalog, st store.Store, ttl time.Duration, now func() time.Time) *Checker {
	return &Checker{cat: cat, store: st, users: ttlcache.New[userAccess](ttl, now)}
}

// Check checks the signature's own permissions in the engine: the user
// must exist in the company, be Active, and hold "*" or
// "<register>:<access>". A key's scopes never grant more than this. The
// user's permissions are cached for the checker's ttl, so a change made in
// the engine's administration applies within that time. Inside a transaction
// q must be the transaction (see ttlcache.Cache.Get).
//
// register "" only checks that the user may act at all.
func (c *Checker) Check(ctx context.Context, q store.Reader, s engine.Session, register string, a Access) error {
	_, inTx := q.(store.Tx)
	user, err := c.users.Get(s.Company+"\x00"+s.Sign, !inTx, func() (userAccess, error) {
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
	if user.Status == "" {
		user.Status = "without status"
	}
	if user.Status != "Active" {
		return &engine.PermissionError{Sign: s.Sign, Action: fmt.Sprintf("%s (user is %s)", action, user.Status)}
	}
	if register == "" || slices.Contains(user.Granted, "*") || slices.Contains(user.Granted, register+":"+string(a)) {
		return nil
	}
	return &engine.PermissionError{Sign: s.Sign, Action: action}
}

// userAccess is what Check needs of a signature, cached for the ttl.
type userAccess struct {
	Found   bool
	Status  string
	Granted []string // "*" or <register>:<access>
}

func loadUserAccess(ctx context.Context, q store.Reader, s engine.Session) (userAccess, error) {
	rows, err := q.Select(ctx, store.Select{
		Table: registers.Users, Company: s.Company, Where: []store.Cond{store.Equal("Sign", s.Sign)},
		Columns: []string{"Status", registers.PermissionsColumn},
	})
	if err != nil || len(rows) == 0 {
		return userAccess{}, err
	}
	status, _ := rows[0].Values["Status"].(string)
	granted, _ := rows[0].Values[registers.PermissionsColumn].(string)
	list := strings.Split(granted, ",")
	for i := range list {
		list[i] = strings.TrimSpace(list[i])
	}
	return userAccess{Found: true, Status: status, Granted: list}, nil
}

// Readable lists the registers a signature may read, whose events it may
// see; nil when it may read every one. A scope never grants more than the
// signature may do, in the feed as in the registers.
func (c *Checker) Readable(ctx context.Context, company, sign string) ([]string, error) {
	s := engine.Session{Company: company, Sign: sign}
	readable := []string{}
	for _, r := range c.cat.Registers {
		err := c.Check(ctx, c.store, s, r.Name, Read)
		var denied *engine.PermissionError
		if err == nil {
			readable = append(readable, r.Name)
		} else if !errors.As(err, &denied) {
			return nil, err
		}
	}
	if len(readable) == len(c.cat.Registers) {
		return nil, nil
	}
	return readable, nil
}
