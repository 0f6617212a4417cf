package sqlplatform

import (
	"context"
	"encoding/json"
	"time"

	"fieldapi/engine"
	"fieldapi/engine/platform"
	"fieldapi/engine/sqldb"
)

// The delivery queue: on PostgreSQL the workers of several processes
// share it with FOR UPDATE SKIP LOCKED; on SQLite the single writer does.

// companyLast is the last committed position of a subscription's (w)
// company; behind selects the enabled subscriptions whose cursor is
// behind it (one parameter: true).
const (
	companyLast = `(SELECT "last" FROM "event_counters" c WHERE c."company" = w."company")`
	behind      = ` FROM "webhooks" w WHERE "enabled" = ? AND "cursor" < ` + companyLast
)

// Dispatch gives each enabled subscription deliveries for the events
// committed after its cursor, then moves the cursor. Events are read in
// position order and positions are in commit order (feed.go), so a
// cursor never passes an event that commits later.
func (p *Platform) Dispatch(ctx context.Context, limit int, readable platform.Readable) (int, error) {
	if err := p.sequence(ctx, ""); err != nil {
		return 0, err
	}
	// First, outside any transaction: which subscriptions are behind, and
	// what their signatures may read. readable reads through connections of
	// its own: asked under SQLite's write lock, it stalled a production server.
	var due []struct {
		ID      string `db:"id"`
		Company string `db:"company"`
		Sign    string `db:"sign"`
	}
	err := p.db.Read(ctx, func(ctx context.Context, q sqldb.Querier) error {
		return sqldb.Select(ctx, q, &due, `SELECT "id", "company", "sign"`+behind+` ORDER BY "id" LIMIT ?`, true, platform.DispatchBatch)
	})
	if err != nil || len(due) == 0 {
		return 0, err // most polls find nothing, and take no write lock to learn it
	}
	ids := make([]any, len(due))
	who := make([]platform.Signature, len(due))
	for i, h := range due {
		ids[i], who[i] = h.ID, platform.Signature{Company: h.Company, Sign: h.Sign}
	}
	registers, err := platform.AskReadable(ctx, readable, who)
	if err != nil {
		return 0, err
	}

	queued := 0
	err = p.db.Write(ctx, func(ctx context.Context, tx *sqldb.Tx) error {
		queued = 0
		// The same subscriptions, held now; still behind (another process
		// may have served them meanwhile) and not held by another (SKIP LOCKED).
		var hooks []struct {
			webhookRow
			Last int64 `db:"last"` // the company's last committed position
		}
		if err := sqldb.Select(ctx, tx, &hooks, `SELECT `+webhookColumns+`, `+companyLast+` AS "last"`+behind+`
			AND "id" IN (`+sqldb.Placeholders(len(ids))+`) ORDER BY "id"`+p.db.Dialect().SkipLocked("w"),
			append([]any{true}, ids...)...); err != nil {
			return err
		}
		for _, h := range hooks {
			allowed, asked := registers[platform.Signature{Company: h.Company, Sign: h.Sign}]
			if !asked {
				continue // cannot happen (the signature is fixed); never deliver unfiltered
			}
			n, err := p.dispatchTo(ctx, tx, h.webhookRow, h.Last, allowed, limit)
			if err != nil {
				return err
			}
			queued += n
		}
		return nil
	})
	return queued, err
}

// dispatchTo queues a subscription's deliveries of up to limit events
// after its cursor, and moves the cursor past them: to the company's last
// position when fewer came, as every event up to it is committed (read
// before the events), so a cursor past pruned events does not stay behind.
func (p *Platform) dispatchTo(ctx context.Context, tx *sqldb.Tx, h webhookRow, last int64, readable []string, limit int) (int, error) {
	var patterns []string
	_ = json.Unmarshal([]byte(h.EventTypes), &patterns) // written by the platform as JSON
	var events []eventRow
	if err := sqldb.Select(ctx, tx, &events, `SELECT `+eventColumns+` FROM "events"
		WHERE "company" = ? AND "position" > ? ORDER BY "position" LIMIT ?`, h.Company, h.Cursor, limit); err != nil {
		return 0, err
	}
	queued := 0
	cursor := h.Cursor
	for _, ev := range events {
		cursor = ev.Position
		if !platform.Delivers(patterns, readable, ev.Type, ev.Register) {
			continue
		}
		if _, err := p.queueDelivery(ctx, tx, h.Company, h.ID, ev.ID, ev.Type, ev.Payload); err != nil {
			return 0, err
		}
		queued++
	}
	if len(events) < limit {
		cursor = max(cursor, last)
	}
	_, err := sqldb.Exec(ctx, tx, `UPDATE "webhooks" SET "cursor" = ? WHERE "id" = ?`, cursor, h.ID)
	return queued, err
}

// Claim takes due deliveries of enabled subscriptions for a lease. A
// delivery whose lease ran out (its worker died) is due again.
func (p *Platform) Claim(ctx context.Context, lease time.Duration, limit int) ([]engine.ClaimedDelivery, error) {
	at := p.now()
	now := sqldb.FormatTime(at)
	const due = ` "state" = ? AND "next_attempt_at" <= ? AND "lease_until" <= ?`
	var found bool
	err := p.db.Read(ctx, func(ctx context.Context, q sqldb.Querier) error {
		var err error
		found, err = sqldb.Exists(ctx, q, `SELECT 1 FROM "webhook_deliveries" WHERE`+due+` LIMIT 1`, engine.DeliveryPending, now, now)
		return err
	})
	if err != nil || !found {
		return nil, err // a read first: most polls find nothing
	}
	var claimed []engine.ClaimedDelivery
	err = p.db.Write(ctx, func(ctx context.Context, tx *sqldb.Tx) error {
		claimed = nil
		var rows []struct {
			deliveryRow
			URL            string `db:"url"`
			Secret         string `db:"secret"`
			PreviousSecret string `db:"previous_secret"`
			PreviousUntil  string `db:"previous_until"`
		}
		if err := sqldb.Select(ctx, tx, &rows, `SELECT d."seq", d."company", d."webhook_id", d."message_id", d."event_type", d."payload",
			d."state", d."tries", d."next_attempt_at", d."created", w."url", w."secret", w."previous_secret", w."previous_until"
			FROM "webhook_deliveries" d JOIN "webhooks" w ON w."id" = d."webhook_id"
			WHERE d."state" = ? AND d."next_attempt_at" <= ? AND d."lease_until" <= ? AND w."enabled" = ?
			ORDER BY d."next_attempt_at", d."seq" LIMIT ?`+p.db.Dialect().SkipLocked("d"),
			engine.DeliveryPending, now, now, true, limit); err != nil {
			return err
		}
		holder := platform.NewID("lease_")
		until := sqldb.FormatTime(at.Add(lease))
		for _, r := range rows {
			if _, err := sqldb.Exec(ctx, tx, `UPDATE "webhook_deliveries" SET "lease" = ?, "lease_until" = ? WHERE "seq" = ?`,
				holder, until, r.Seq); err != nil {
				return err
			}
			c := engine.ClaimedDelivery{
				ID: r.Seq, Company: r.Company, WebhookID: r.WebhookID, URL: r.URL, Secrets: []string{r.Secret},
				MessageID: r.MessageID, Payload: []byte(r.Payload), Tries: r.Tries, Created: parseTime(r.Created), Lease: holder,
			}
			if r.PreviousSecret != "" && r.PreviousUntil > now {
				c.Secrets = append(c.Secrets, r.PreviousSecret)
			}
			claimed = append(claimed, c)
		}
		return nil
	})
	return claimed, err
}

// Finish records an attempt and what follows it, unless the lease was
// lost (another worker took the delivery over and will record its own).
// Giving up disables the subscription with the reason.
func (p *Platform) Finish(ctx context.Context, c engine.ClaimedDelivery, o engine.Outcome) error {
	return p.db.Write(ctx, func(ctx context.Context, tx *sqldb.Tx) error {
		state := platform.AfterAttempt(o)
		next := ""
		if state == engine.DeliveryPending {
			next = sqldb.FormatTime(o.RetryAt)
		}
		n, err := sqldb.ExecAffected(ctx, tx, `UPDATE "webhook_deliveries" SET "state" = ?, "tries" = "tries" + 1, "next_attempt_at" = ?,
			"lease" = '', "lease_until" = '' WHERE "seq" = ? AND "lease" = ?`, state, next, c.ID, c.Lease)
		if err != nil || n == 0 {
			return err
		}
		a := o.Attempt
		if _, err := sqldb.Exec(ctx, tx, `INSERT INTO "webhook_attempts" ("delivery_seq", "at", "status_code", "latency_ms", "error")
			VALUES (?, ?, ?, ?, ?)`, c.ID, sqldb.FormatTime(a.At), a.StatusCode, a.LatencyMs, a.Error); err != nil {
			return err
		}
		if state == engine.DeliveryFailed {
			_, err = sqldb.Exec(ctx, tx, `UPDATE "webhooks" SET "enabled" = ?, "disabled_reason" = ?, "modified" = ? WHERE "id" = ?`,
				false, o.GiveUp, p.stamp(), c.WebhookID)
		}
		return err
	})
}
