package sqlplatform

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"fieldapi/engine"
	"fieldapi/engine/platform"
	"fieldapi/engine/sqldb"
)

// idempotencyStore keeps one row per (scope, key) in the idempotency
// table: pending while an execution holds it (token, lease_until), done
// with the stored response afterwards. The primary key makes the first
// INSERT win across goroutines and processes alike. Its writes are single
// statements outside a transaction (sqldb.DB.Autocommit: on SQLite they
// queue at the writer gate with the transactions).
type idempotencyStore struct{ p *Platform }

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
	p := is.p
	lease := platform.LeaseOf(c)
	scope, key := storable(c.Scope), storable(c.Key)
	result := engine.ClaimResult{State: engine.InFlight}
	err := p.db.Autocommit(ctx, func(ctx context.Context, q sqldb.Querier) error {
		// A few rounds cover the races: the row released between our insert
		// and our read, or another execution taking over an abandoned claim first.
		for range 5 {
			now := p.now()
			n, err := sqldb.ExecAffected(ctx, q, `INSERT INTO "idempotency"
				("scope", "key", "fingerprint", "token", "state", "status", "body", "created", "lease_until")
				VALUES (?, ?, ?, ?, 'pending', 0, NULL, ?, ?)
				ON CONFLICT ("scope", "key") DO NOTHING`,
				scope, key, c.Fingerprint, c.Token, sqldb.FormatTime(now), sqldb.FormatTime(now.Add(lease)))
			if err != nil {
				return err
			}
			if n == 1 {
				result = engine.ClaimResult{State: engine.Claimed}
				return nil
			}

			var row struct {
				Fingerprint string `db:"fingerprint"`
				Token       string `db:"token"`
				State       string `db:"state"`
				Status      int    `db:"status"`
				Body        []byte `db:"body"`
				LeaseUntil  string `db:"lease_until"`
			}
			err = sqldb.Get(ctx, q, &row, `SELECT "fingerprint", "token", "state", "status", "body", "lease_until"
				FROM "idempotency" WHERE "scope" = ? AND "key" = ?`, scope, key)
			if errors.Is(err, sql.ErrNoRows) {
				continue // released meanwhile: try to insert again
			}
			if err != nil {
				return err
			}
			held := platform.Held{
				Fingerprint: row.Fingerprint, Done: row.State == "done",
				Response: engine.Response{Status: row.Status, Body: row.Body}, LeaseUntil: parseTime(row.LeaseUntil),
			}
			var takeOver bool
			if result, takeOver = held.Judge(c, now); !takeOver {
				return nil
			}

			// The holder's lease ran out: take the claim over, unless another
			// execution did so first.
			n, err = sqldb.ExecAffected(ctx, q, `UPDATE "idempotency" SET "token" = ?, "created" = ?, "lease_until" = ?
				WHERE "scope" = ? AND "key" = ? AND "token" = ? AND "state" = 'pending'`,
				c.Token, sqldb.FormatTime(now), sqldb.FormatTime(now.Add(lease)), scope, key, row.Token)
			if err != nil {
				return err
			}
			if n == 1 {
				return nil // result is Claimed
			}
		}
		result = engine.ClaimResult{State: engine.InFlight}
		return nil
	})
	return result, err
}

// markDone settles a claim held by its token with the response, in q (the
// write's transaction, or the pool for Complete); engine.ErrClaimLost when
// the token no longer holds it pending.
func markDone(ctx context.Context, q sqldb.Querier, c engine.Claim, r engine.Response) error {
	n, err := sqldb.ExecAffected(ctx, q, `UPDATE "idempotency" SET "state" = 'done', "status" = ?, "body" = ?
		WHERE "scope" = ? AND "key" = ? AND "token" = ? AND "state" = 'pending'`,
		r.Status, r.Body, storable(c.Scope), storable(c.Key), c.Token)
	if err != nil {
		return err
	}
	if n == 0 {
		return engine.ErrClaimLost
	}
	return nil
}

// Complete stores the response of a claimed call that wrote nothing. A
// write stores its response itself, in its own transaction (Writes.Settle).
func (is idempotencyStore) Complete(ctx context.Context, c engine.Claim, r engine.Response) error {
	return is.p.db.Autocommit(ctx, func(ctx context.Context, q sqldb.Querier) error {
		return markDone(ctx, q, c, r)
	})
}

// Release forgets a claim that is still pending with this execution's token.
func (is idempotencyStore) Release(ctx context.Context, c engine.Claim) error {
	return is.p.db.Autocommit(ctx, func(ctx context.Context, q sqldb.Querier) error {
		_, err := sqldb.Exec(ctx, q, `DELETE FROM "idempotency" WHERE "scope" = ? AND "key" = ? AND "token" = ? AND "state" = 'pending'`,
			storable(c.Scope), storable(c.Key), c.Token)
		return err
	})
}

// Prune deletes completed keys created before the given time, and pending
// claims whose lease ran out before it (their execution died).
func (is idempotencyStore) Prune(ctx context.Context, before time.Time) (int, error) {
	var n int64
	err := is.p.db.Autocommit(ctx, func(ctx context.Context, q sqldb.Querier) error {
		cut := sqldb.FormatTime(before)
		var err error
		n, err = sqldb.ExecAffected(ctx, q, `DELETE FROM "idempotency"
			WHERE ("state" = 'done' AND "created" < ?) OR ("state" = 'pending' AND "lease_until" < ?)`, cut, cut)
		return err
	})
	return int(n), err
}
