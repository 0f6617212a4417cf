package sqlengine

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"fieldapi/engine"
)

// defaultLease is how long a claim holds its key when the claim gives no
// lease: past it, the execution is presumed dead and another may take over.
const defaultLease = 30 * time.Second

// idempotencyStore keeps one row per (scope, key) in the idempotency table:
// pending while an execution holds it (token, lease_until), done with the
// stored response afterwards. The primary key makes the first INSERT win
// across goroutines and processes alike.
type idempotencyStore struct{ e *Engine }

type idempotencyRow struct {
	Fingerprint string `db:"fingerprint"`
	Token       string `db:"token"`
	State       string `db:"state"`
	Status      int    `db:"status"`
	Body        []byte `db:"body"`
	LeaseUntil  string `db:"lease_until"`
}

// storable escapes the NUL characters PostgreSQL text cannot hold (the
// HTTP layer separates the parts of a scope with them). The escape is
// one-to-one, so distinct scopes stay distinct.
func storable(s string) string {
	if !strings.ContainsAny(s, "\x00%") {
		return s
	}
	return strings.NewReplacer("%", "%25", "\x00", "%00").Replace(s)
}

// Claim reserves a key for one execution, or says why it cannot run now.
func (is idempotencyStore) Claim(ctx context.Context, c engine.Claim) (engine.ClaimResult, error) {
	e := is.e
	return call(e, ctx, func(ctx context.Context) (engine.ClaimResult, error) {
		lease := c.Lease
		if lease <= 0 {
			lease = defaultLease
		}
		// A few rounds cover the races: the row released between our insert
		// and our read, or another execution taking over an abandoned claim first.
		leave, err := e.writers.enter(ctx)
		if err != nil {
			return engine.ClaimResult{}, err
		}
		defer leave()
		for range 5 {
			now := e.opt.Now()
			n, err := execAffected(ctx, e.db, `INSERT INTO "idempotency"
				("scope", "key", "fingerprint", "token", "state", "status", "body", "created", "lease_until")
				VALUES (?, ?, ?, ?, 'pending', 0, NULL, ?, ?)
				ON CONFLICT ("scope", "key") DO NOTHING`,
				storable(c.Scope), storable(c.Key), c.Fingerprint, c.Token, formatTime(now), formatTime(now.Add(lease)))
			if err != nil {
				return engine.ClaimResult{}, err
			}
			if n == 1 {
				return engine.ClaimResult{State: engine.Claimed}, nil
			}

			var row idempotencyRow
			err = get(ctx, e.db, &row, `SELECT "fingerprint", "token", "state", "status", "body", "lease_until"
				FROM "idempotency" WHERE "scope" = ? AND "key" = ?`, storable(c.Scope), storable(c.Key))
			if errors.Is(err, sql.ErrNoRows) {
				continue // released meanwhile: try to insert again
			}
			if err != nil {
				return engine.ClaimResult{}, err
			}
			switch {
			case row.Fingerprint != c.Fingerprint:
				return engine.ClaimResult{State: engine.Mismatch}, nil
			case row.State == "done":
				return engine.ClaimResult{State: engine.Replay, Response: engine.Response{Status: row.Status, Body: row.Body}}, nil
			case row.LeaseUntil > formatTime(now):
				return engine.ClaimResult{State: engine.InFlight}, nil
			}

			// The holder's lease expired: take the claim over, unless another
			// execution did so first.
			n, err = execAffected(ctx, e.db, `UPDATE "idempotency" SET "token" = ?, "created" = ?, "lease_until" = ?
				WHERE "scope" = ? AND "key" = ? AND "token" = ? AND "state" = 'pending'`,
				c.Token, formatTime(now), formatTime(now.Add(lease)), storable(c.Scope), storable(c.Key), row.Token)
			if err != nil {
				return engine.ClaimResult{}, err
			}
			if n == 1 {
				return engine.ClaimResult{State: engine.Claimed}, nil
			}
		}
		return engine.ClaimResult{State: engine.InFlight}, nil
	})
}

// Complete stores the response of a claimed call that wrote nothing. A
// write stores its response itself, in its own transaction (Receipt).
func (is idempotencyStore) Complete(ctx context.Context, c engine.Claim, r engine.Response) error {
	e := is.e
	_, err := call(e, ctx, func(ctx context.Context) (struct{}, error) {
		leave, err := e.writers.enter(ctx)
		if err != nil {
			return struct{}{}, err
		}
		defer leave()
		n, err := execAffected(ctx, e.db, `UPDATE "idempotency" SET "state" = 'done', "status" = ?, "body" = ?
			WHERE "scope" = ? AND "key" = ? AND "token" = ? AND "state" = 'pending'`,
			r.Status, r.Body, storable(c.Scope), storable(c.Key), c.Token)
		if err == nil && n == 0 {
			err = errClaimLost
		}
		return struct{}{}, err
	})
	return err
}

// Release forgets a claim that is still pending with this execution's token.
func (is idempotencyStore) Release(ctx context.Context, c engine.Claim) error {
	e := is.e
	_, err := call(e, ctx, func(ctx context.Context) (struct{}, error) {
		leave, err := e.writers.enter(ctx)
		if err != nil {
			return struct{}{}, err
		}
		defer leave()
		_, err = exec(ctx, e.db, `DELETE FROM "idempotency" WHERE "scope" = ? AND "key" = ? AND "token" = ? AND "state" = 'pending'`,
			storable(c.Scope), storable(c.Key), c.Token)
		return struct{}{}, err
	})
	return err
}

// Prune deletes completed keys created before the given time, and pending
// claims whose lease ran out before it (their execution died).
func (is idempotencyStore) Prune(ctx context.Context, before time.Time) (int, error) {
	e := is.e
	return call(e, ctx, func(ctx context.Context) (int, error) {
		t := formatTime(before)
		n, err := execAffected(ctx, e.db, `DELETE FROM "idempotency"
			WHERE ("state" = 'done' AND "created" < ?) OR ("state" = 'pending' AND "lease_until" < ?)`, t, t)
		return int(n), err
	})
}
