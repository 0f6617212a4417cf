package sqlplatform

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"fieldapi/engine"
	"fieldapi/engine/platform"
	"fieldapi/engine/sqldb"
)

// idempotencyStore keeps one row per (scope, key) in the idempotency
// table, with the response of the key's first execution, stored by the
// write in its own transaction (Writes.Settle) or by Complete. The primary
// key makes the first to commit win, across processes too. Rows in state
// 'pending' (and the token and lease_until columns) are left by versions
// that stored a hold before the call ran: no answer, and replaced by the
// first response stored.
type idempotencyStore struct{ *Platform }

// storable escapes the NUL characters PostgreSQL text cannot hold (the
// HTTP layer separates the parts of a scope with them). The escape is
// one-to-one, so distinct scopes stay distinct.
func storable(s string) string {
	if !strings.ContainsAny(s, "\x00%") {
		return s
	}
	return escapeNUL.Replace(s)
}

// escapeNUL is built once: built per call, a Replacer's tables were a
// twentieth of a PATCH's allocations.
var escapeNUL = strings.NewReplacer("%", "%25", "\x00", "%00")

// Claim looks the key up; it writes nothing.
func (p idempotencyStore) Claim(ctx context.Context, c engine.Claim) (engine.ClaimResult, error) {
	var row struct {
		Fingerprint string `db:"fingerprint"`
		Status      int    `db:"status"`
		Body        []byte `db:"body"`
	}
	found := false
	err := p.db.Read(ctx, func(ctx context.Context, q sqldb.Querier) error {
		err := sqldb.Get(ctx, q, &row, `SELECT "fingerprint", "status", "body" FROM "idempotency"
			WHERE "scope" = ? AND "key" = ? AND "state" = 'done'`, storable(c.Scope), storable(c.Key))
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		found = err == nil
		return err
	})
	if err != nil || !found {
		return engine.ClaimResult{State: engine.Claimed}, err
	}
	return platform.Judge(c, row.Fingerprint, engine.Response{Status: row.Status, Body: row.Body}), nil
}

// storeStatement writes the key with its response; when another execution
// stored one first it fails, setting the row's state NULL (claimLost): a
// failure, not a row count, since the write's COMMIT is sent with it
// (sqldb.Tx.ExecLater) and must not run then.
func (p idempotencyStore) storeStatement(c engine.Claim, r engine.Response) (string, []any) {
	return `INSERT INTO "idempotency"
		("scope", "key", "fingerprint", "token", "state", "status", "body", "created", "lease_until")
		VALUES (?, ?, ?, '', 'done', ?, ?, ?, '')
		ON CONFLICT ("scope", "key") DO UPDATE SET "fingerprint" = excluded."fingerprint", "token" = '',
			"state" = CASE WHEN "idempotency"."state" = 'pending' THEN 'done' END,
			"status" = excluded."status", "body" = excluded."body", "created" = excluded."created", "lease_until" = ''`,
		[]any{storable(c.Scope), storable(c.Key), c.Fingerprint, r.Status, r.Body, p.stamp()}
}

// claimLost names storeStatement's failure when another execution had
// stored its response first: engine.ErrClaimLost.
func (p idempotencyStore) claimLost(err error) error {
	if p.db.Dialect().IsNotNullViolation(err, "idempotency", "state") {
		return fmt.Errorf("%w (%w)", engine.ErrClaimLost, err)
	}
	return err
}

// settle stores the key with the response in a write's transaction,
// sent with the write's COMMIT (sqldb.Tx.ExecLater).
func (p idempotencyStore) settle(ctx context.Context, tx *sqldb.Tx, c engine.Claim, r engine.Response) error {
	p.keys.Grew(1)
	query, args := p.storeStatement(c, r)
	return tx.ExecLater(ctx, p.claimLost, query, args...)
}

// Complete stores the response of a claimed call that wrote nothing.
func (p idempotencyStore) Complete(ctx context.Context, c engine.Claim, r engine.Response) error {
	p.keys.Grew(1)
	return p.db.Autocommit(ctx, func(ctx context.Context, q sqldb.Querier) error {
		query, args := p.storeStatement(c, r)
		_, err := sqldb.Exec(ctx, q, query, args...)
		return p.claimLost(err)
	})
}

// Prune deletes keys stored before the given time, rows earlier versions
// left pending included (Claim finds those free already).
func (p idempotencyStore) Prune(ctx context.Context, before time.Time) (int, error) {
	var n int64
	err := p.db.Autocommit(ctx, func(ctx context.Context, q sqldb.Querier) error {
		// The states named, so the (state, created) index finds the rows:
		// a scan of half a million keys held SQLite's write lock for seconds.
		var err error
		n, err = sqldb.ExecAffected(ctx, q, `DELETE FROM "idempotency" WHERE "state" IN ('done', 'pending') AND "created" < ?`,
			sqldb.FormatTime(before))
		return err
	})
	return int(n), err
}
