package sqlengine

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"slices"
	"time"

	"fieldapi/engine"
)

// deliveryQueue is the engine's engine.DeliveryQueue. On PostgreSQL the
// workers of several processes share it with FOR UPDATE SKIP LOCKED: a
// row one transaction holds is passed over by the others. On SQLite the
// single writer gives the same.
type deliveryQueue struct{ e *Engine }

// Dispatch gives each enabled subscription deliveries for the events
// committed after its cursor, then moves the cursor. Events are read in
// position order and positions are in commit order (events.go), so a
// cursor never passes an event that commits later.
func (q deliveryQueue) Dispatch(ctx context.Context, limit int) (int, error) {
	e := q.e
	const behind = ` FROM "webhooks" w WHERE "enabled" = ?
		AND "cursor" < (SELECT "last" FROM "event_counters" c WHERE c."company" = w."company")`
	return call(e, ctx, func(ctx context.Context) (int, error) {
		// A read first: most polls find nothing, and should not take
		// SQLite's write lock to learn it.
		if found, err := exists(ctx, e.db, `SELECT 1`+behind+` LIMIT 1`, true); err != nil || !found {
			return 0, err
		}
		queued := 0
		err := e.inTx(ctx, func(tx *txn) error {
			var hooks []webhookRow
			if err := sel(ctx, tx, &hooks, `SELECT `+webhookColumns+behind+`
				ORDER BY "id" LIMIT 20`+e.dialect.skipLocked("w"), true); err != nil {
				return err
			}
			for _, h := range hooks {
				var patterns []string
				_ = json.Unmarshal([]byte(h.EventTypes), &patterns)
				var events []eventRow
				if err := sel(ctx, tx, &events, `SELECT `+eventColumns+` FROM "events"
					WHERE "company" = ? AND "position" > ? ORDER BY "position" LIMIT ?`, h.Company, h.Cursor, limit); err != nil {
					return err
				}
				readable, err := e.readableRegisters(ctx, tx, engine.Session{Company: h.Company, Sign: h.Sign})
				if err != nil {
					return err
				}
				cursor := h.Cursor
				for _, ev := range events {
					cursor = ev.Position
					if !engine.MatchAny(patterns, ev.Type) || (readable != nil && !slices.Contains(readable, ev.Register)) {
						continue
					}
					if _, err := e.queueDelivery(ctx, tx, h.Company, h.ID, ev.ID, ev.Type, ev.Payload); err != nil {
						return err
					}
					queued++
				}
				if _, err := exec(ctx, tx, `UPDATE "webhooks" SET "cursor" = ? WHERE "id" = ?`, cursor, h.ID); err != nil {
					return err
				}
			}
			return nil
		})
		return queued, err
	})
}

// Claim takes due deliveries of enabled subscriptions for a lease. A
// delivery whose lease ran out (its worker died) is due again.
func (q deliveryQueue) Claim(ctx context.Context, lease time.Duration, limit int) ([]engine.ClaimedDelivery, error) {
	e := q.e
	return call(e, ctx, func(ctx context.Context) ([]engine.ClaimedDelivery, error) {
		now := e.opt.Now()
		if found, err := exists(ctx, e.db, `SELECT 1 FROM "webhook_deliveries" WHERE "state" = ? AND "next_attempt_at" <= ? AND "lease_until" <= ? LIMIT 1`,
			engine.DeliveryPending, formatTime(now), formatTime(now)); err != nil || !found {
			return nil, err
		}
		var claimed []engine.ClaimedDelivery
		err := e.inTx(ctx, func(tx *txn) error {
			var rows []struct {
				deliveryRow
				URL            string `db:"url"`
				Secret         string `db:"secret"`
				PreviousSecret string `db:"previous_secret"`
				PreviousUntil  string `db:"previous_until"`
			}
			if err := sel(ctx, tx, &rows, `SELECT d."seq", d."company", d."webhook_id", d."message_id", d."event_type", d."payload",
				d."state", d."tries", d."next_attempt_at", d."created", w."url", w."secret", w."previous_secret", w."previous_until"
				FROM "webhook_deliveries" d JOIN "webhooks" w ON w."id" = d."webhook_id"
				WHERE d."state" = ? AND d."next_attempt_at" <= ? AND d."lease_until" <= ? AND w."enabled" = ?
				ORDER BY d."next_attempt_at", d."seq" LIMIT ?`+e.dialect.skipLocked("d"),
				engine.DeliveryPending, formatTime(now), formatTime(now), true, limit); err != nil {
				return err
			}
			holder := newEventID()
			until := formatTime(now.Add(lease))
			for _, r := range rows {
				if _, err := exec(ctx, tx, `UPDATE "webhook_deliveries" SET "lease" = ?, "lease_until" = ? WHERE "seq" = ?`, holder, until, r.Seq); err != nil {
					return err
				}
				c := engine.ClaimedDelivery{
					ID: r.Seq, Company: r.Company, WebhookID: r.WebhookID, URL: r.URL, Secrets: []string{r.Secret},
					MessageID: r.MessageID, Payload: []byte(r.Payload), Tries: r.Tries, Lease: holder,
				}
				c.Created, _ = parseTime(r.Created)
				if r.PreviousSecret != "" && r.PreviousUntil > formatTime(now) {
					c.Secrets = append(c.Secrets, r.PreviousSecret)
				}
				claimed = append(claimed, c)
			}
			return nil
		})
		return claimed, err
	})
}

// Finish records an attempt and what follows it, unless the lease was
// lost (another worker took the delivery over and will record its own).
func (q deliveryQueue) Finish(ctx context.Context, c engine.ClaimedDelivery, o engine.Outcome) error {
	e := q.e
	_, err := call(e, ctx, func(ctx context.Context) (struct{}, error) {
		return struct{}{}, e.inTx(ctx, func(tx *txn) error {
			state, next := engine.DeliveryPending, formatTime(o.RetryAt)
			switch {
			case o.Done:
				state, next = engine.DeliverySucceeded, ""
			case o.GiveUp != "":
				state, next = engine.DeliveryFailed, ""
			}
			n, err := execAffected(ctx, tx, `UPDATE "webhook_deliveries" SET "state" = ?, "tries" = "tries" + 1, "next_attempt_at" = ?,
				"lease" = '', "lease_until" = '' WHERE "seq" = ? AND "lease" = ?`, state, next, c.ID, c.Lease)
			if err != nil || n == 0 {
				return err
			}
			a := o.Attempt
			if _, err := exec(ctx, tx, `INSERT INTO "webhook_attempts" ("delivery_seq", "at", "status_code", "latency_ms", "error")
				VALUES (?, ?, ?, ?, ?)`, c.ID, formatTime(a.At), a.StatusCode, a.LatencyMs, a.Error); err != nil {
				return err
			}
			if o.GiveUp != "" {
				_, err = exec(ctx, tx, `UPDATE "webhooks" SET "enabled" = ?, "disabled_reason" = ?, "modified" = ? WHERE "id" = ?`,
					false, o.GiveUp, e.now(), c.WebhookID)
			}
			return err
		})
	})
	return err
}

// exists reports whether a query returns a row.
func exists(ctx context.Context, q db, query string, args ...any) (bool, error) {
	var one int
	err := get(ctx, q, &one, query, args...)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}
