package sqlengine

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"fieldapi/engine"
)

// Webhook subscriptions and their deliveries. A subscription's cursor is
// the last feed position it has been given deliveries for; the queue's
// Dispatch moves it forward over committed events only (see events.go),
// so a subscription never misses one.

const (
	webhooksTable = `CREATE TABLE IF NOT EXISTS "webhooks" (
		"id" TEXT PRIMARY KEY,
		"company" TEXT NOT NULL,
		"sign" TEXT NOT NULL,
		"url" TEXT NOT NULL,
		"event_types" TEXT NOT NULL,
		"description" TEXT NOT NULL,
		"enabled" {bool} NOT NULL,
		"disabled_reason" TEXT NOT NULL,
		"secret" TEXT NOT NULL,
		"previous_secret" TEXT NOT NULL,
		"previous_until" TEXT NOT NULL,
		"cursor" BIGINT NOT NULL,
		"created" TEXT NOT NULL,
		"modified" TEXT NOT NULL)`
	deliveriesTable = `CREATE TABLE IF NOT EXISTS "webhook_deliveries" (
		{seq},
		"company" TEXT NOT NULL,
		"webhook_id" TEXT NOT NULL,
		"message_id" TEXT NOT NULL,
		"event_type" TEXT NOT NULL,
		"payload" TEXT NOT NULL,
		"state" TEXT NOT NULL,
		"tries" INTEGER NOT NULL,
		"next_attempt_at" TEXT NOT NULL,
		"lease" TEXT NOT NULL,
		"lease_until" TEXT NOT NULL,
		"created" TEXT NOT NULL)`
	attemptsTable = `CREATE TABLE IF NOT EXISTS "webhook_attempts" (
		{seq},
		"delivery_seq" BIGINT NOT NULL,
		"at" TEXT NOT NULL,
		"status_code" INTEGER NOT NULL,
		"latency_ms" {number} NOT NULL,
		"error" TEXT NOT NULL)`
	deliveriesDueIndex  = `CREATE INDEX IF NOT EXISTS "webhook_deliveries_due" ON "webhook_deliveries" ("state", "next_attempt_at")`
	deliveriesListIndex = `CREATE INDEX IF NOT EXISTS "webhook_deliveries_webhook" ON "webhook_deliveries" ("webhook_id", "seq")`
	attemptsIndex       = `CREATE INDEX IF NOT EXISTS "webhook_attempts_delivery" ON "webhook_attempts" ("delivery_seq")`
)

// webhookRow is a subscription as stored.
type webhookRow struct {
	ID             string `db:"id"`
	Company        string `db:"company"`
	Sign           string `db:"sign"` // who subscribed: the events it gets are those this signature may read
	URL            string `db:"url"`
	EventTypes     string `db:"event_types"`
	Description    string `db:"description"`
	Enabled        bool   `db:"enabled"`
	DisabledReason string `db:"disabled_reason"`
	Secret         string `db:"secret"`
	PreviousSecret string `db:"previous_secret"`
	PreviousUntil  string `db:"previous_until"`
	Cursor         int64  `db:"cursor"`
	Created        string `db:"created"`
	Modified       string `db:"modified"`
}

const webhookColumns = `"id", "company", "sign", "url", "event_types", "description", "enabled", "disabled_reason",
	"secret", "previous_secret", "previous_until", "cursor", "created", "modified"`

func (r webhookRow) webhook() engine.Webhook {
	w := engine.Webhook{ID: r.ID, URL: r.URL, Description: r.Description, Enabled: r.Enabled, DisabledReason: r.DisabledReason}
	_ = json.Unmarshal([]byte(r.EventTypes), &w.EventTypes)
	w.Created, _ = parseTime(r.Created)
	w.Modified, _ = parseTime(r.Modified)
	return w
}

// webhookStore is the engine's engine.WebhookStore.
type webhookStore struct{ e *Engine }

// Webhooks returns the store of webhook subscriptions.
func (e *Engine) Webhooks() engine.WebhookStore { return webhookStore{e} }

// Queue returns the webhook delivery queue.
func (e *Engine) Queue() engine.DeliveryQueue { return deliveryQueue{e} }

// asRecord renders a value as the record a receipt renders: its JSON object.
func asRecord(v any) (engine.Record, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var rec engine.Record
	return rec, json.Unmarshal(body, &rec)
}

// receiptOf stores the receipt of a webhook write, rendered from v.
func receiptOf(ctx context.Context, tx *txn, r engine.Receipt, v any) (engine.Response, error) {
	rec, err := asRecord(v)
	if err != nil {
		return engine.Response{}, err
	}
	return storeReceipt(ctx, tx, r, rec)
}

func (st webhookStore) CreateWebhook(ctx context.Context, s engine.Session, w engine.Webhook, r engine.Receipt) (engine.Response, error) {
	e := st.e
	return call(e, ctx, func(ctx context.Context) (engine.Response, error) {
		types, _ := json.Marshal(w.EventTypes)
		now := e.opt.Now().UTC().Truncate(time.Microsecond)
		w.Created, w.Modified = now, now
		var resp engine.Response
		err := e.inTx(ctx, func(tx *txn) error {
			// Events committed before the subscription are not its business.
			var cursor int64
			err := get(ctx, tx, &cursor, `SELECT "last" FROM "event_counters" WHERE "company" = ?`, s.Company)
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return err
			}
			if _, err := exec(ctx, tx, `INSERT INTO "webhooks" (`+webhookColumns+`)
				VALUES (?, ?, ?, ?, ?, ?, ?, '', ?, '', '', ?, ?, ?)`,
				w.ID, s.Company, s.Sign, w.URL, string(types), w.Description, w.Enabled, w.Secret, cursor, formatTime(now), formatTime(now)); err != nil {
				return err
			}
			resp, err = receiptOf(ctx, tx, r, w)
			return err
		})
		return resp, err
	})
}

func (st webhookStore) ListWebhooks(ctx context.Context, s engine.Session) ([]engine.Webhook, error) {
	e := st.e
	return call(e, ctx, func(ctx context.Context) ([]engine.Webhook, error) {
		var rows []webhookRow
		if err := sel(ctx, e.db, &rows, `SELECT `+webhookColumns+` FROM "webhooks" WHERE "company" = ? ORDER BY "created", "id"`, s.Company); err != nil {
			return nil, err
		}
		hooks := make([]engine.Webhook, len(rows))
		for i, r := range rows {
			hooks[i] = r.webhook()
		}
		return hooks, nil
	})
}

func (st webhookStore) GetWebhook(ctx context.Context, s engine.Session, id string) (engine.Webhook, error) {
	e := st.e
	return call(e, ctx, func(ctx context.Context) (engine.Webhook, error) {
		row, err := e.webhookRow(ctx, e.db, s.Company, id, false)
		return row.webhook(), err
	})
}

// webhookRow reads one subscription of the company, locked for the
// transaction when lock is set.
func (e *Engine) webhookRow(ctx context.Context, q db, company, id string, lock bool) (webhookRow, error) {
	var row webhookRow
	query := `SELECT ` + webhookColumns + ` FROM "webhooks" WHERE "company" = ? AND "id" = ?`
	if lock {
		query += e.dialect.forUpdate()
	}
	err := get(ctx, q, &row, query, company, id)
	if errors.Is(err, sql.ErrNoRows) {
		return row, engine.ErrNotFound
	}
	return row, err
}

// writeWebhook runs a write on one subscription of the company, whose row
// it holds for the transaction; change returns what the receipt renders,
// stored with the write.
func (e *Engine) writeWebhook(ctx context.Context, s engine.Session, id string, r engine.Receipt,
	change func(ctx context.Context, tx *txn, row webhookRow) (any, error)) (engine.Response, error) {
	return call(e, ctx, func(ctx context.Context) (engine.Response, error) {
		var resp engine.Response
		err := e.inTx(ctx, func(tx *txn) error {
			row, err := e.webhookRow(ctx, tx, s.Company, id, true)
			if err != nil {
				return err
			}
			rendered, err := change(ctx, tx, row)
			if err != nil {
				return err
			}
			resp, err = receiptOf(ctx, tx, r, rendered)
			return err
		})
		return resp, err
	})
}

func (st webhookStore) UpdateWebhook(ctx context.Context, s engine.Session, id string, c engine.WebhookChange, r engine.Receipt) (engine.Response, error) {
	e := st.e
	return e.writeWebhook(ctx, s, id, r, func(ctx context.Context, tx *txn, row webhookRow) (any, error) {
		if c.URL != nil {
			row.URL = *c.URL
		}
		if c.EventTypes != nil {
			types, _ := json.Marshal(c.EventTypes)
			row.EventTypes = string(types)
		}
		if c.Description != nil {
			row.Description = *c.Description
		}
		if c.Enabled != nil {
			row.Enabled = *c.Enabled
			if row.Enabled {
				row.DisabledReason = ""
			}
		}
		row.Modified = e.now()
		_, err := exec(ctx, tx, `UPDATE "webhooks" SET "url" = ?, "event_types" = ?, "description" = ?, "enabled" = ?,
			"disabled_reason" = ?, "modified" = ? WHERE "company" = ? AND "id" = ?`,
			row.URL, row.EventTypes, row.Description, row.Enabled, row.DisabledReason, row.Modified, s.Company, id)
		return row.webhook(), err
	})
}

func (st webhookStore) RotateSecret(ctx context.Context, s engine.Session, id, secret string, keepOld time.Duration, r engine.Receipt) (engine.Response, error) {
	e := st.e
	return e.writeWebhook(ctx, s, id, r, func(ctx context.Context, tx *txn, row webhookRow) (any, error) {
		until := e.opt.Now().Add(keepOld).UTC().Truncate(time.Microsecond)
		row.Modified = e.now()
		_, err := exec(ctx, tx, `UPDATE "webhooks" SET "secret" = ?, "previous_secret" = ?, "previous_until" = ?, "modified" = ?
			WHERE "company" = ? AND "id" = ?`, secret, row.Secret, formatTime(until), row.Modified, s.Company, id)
		w := row.webhook()
		w.Secret, w.PreviousExpiry = secret, &until
		return w, err
	})
}

func (st webhookStore) DeleteWebhook(ctx context.Context, s engine.Session, id string) error {
	e := st.e
	_, err := call(e, ctx, func(ctx context.Context) (struct{}, error) {
		return struct{}{}, e.inTx(ctx, func(tx *txn) error {
			n, err := execAffected(ctx, tx, `DELETE FROM "webhooks" WHERE "company" = ? AND "id" = ?`, s.Company, id)
			if err != nil {
				return err
			}
			if n == 0 {
				return engine.ErrNotFound
			}
			if _, err := exec(ctx, tx, `DELETE FROM "webhook_attempts" WHERE "delivery_seq" IN
				(SELECT "seq" FROM "webhook_deliveries" WHERE "webhook_id" = ?)`, id); err != nil {
				return err
			}
			_, err = exec(ctx, tx, `DELETE FROM "webhook_deliveries" WHERE "webhook_id" = ?`, id)
			return err
		})
	})
	return err
}

// deliveryRow is a delivery as stored.
type deliveryRow struct {
	Seq           int64  `db:"seq"`
	Company       string `db:"company"`
	WebhookID     string `db:"webhook_id"`
	MessageID     string `db:"message_id"`
	EventType     string `db:"event_type"`
	Payload       string `db:"payload"`
	State         string `db:"state"`
	Tries         int    `db:"tries"`
	NextAttemptAt string `db:"next_attempt_at"`
	Created       string `db:"created"`
}

const deliveryColumns = `"seq", "company", "webhook_id", "message_id", "event_type", "payload", "state", "tries", "next_attempt_at", "created"`

func (st webhookStore) Deliveries(ctx context.Context, s engine.Session, id string, limit int) ([]engine.Delivery, error) {
	e := st.e
	return call(e, ctx, func(ctx context.Context) ([]engine.Delivery, error) {
		if _, err := e.webhookRow(ctx, e.db, s.Company, id, false); err != nil {
			return nil, err
		}
		var rows []deliveryRow
		if err := sel(ctx, e.db, &rows, `SELECT `+deliveryColumns+` FROM "webhook_deliveries"
			WHERE "company" = ? AND "webhook_id" = ? ORDER BY "seq" DESC LIMIT ?`, s.Company, id, limit); err != nil {
			return nil, err
		}
		out := make([]engine.Delivery, len(rows))
		for i, r := range rows {
			d, err := e.delivery(ctx, e.db, r)
			if err != nil {
				return nil, err
			}
			out[i] = d
		}
		return out, nil
	})
}

// delivery reads a delivery's attempts.
func (e *Engine) delivery(ctx context.Context, q db, r deliveryRow) (engine.Delivery, error) {
	d := engine.Delivery{ID: r.Seq, WebhookID: r.WebhookID, MessageID: r.MessageID, EventType: r.EventType, State: r.State, Attempts: []engine.Attempt{}}
	d.Created, _ = parseTime(r.Created)
	if r.State == engine.DeliveryPending {
		next, _ := parseTime(r.NextAttemptAt)
		d.NextAttemptAt = &next
	}
	var attempts []struct {
		At         string  `db:"at"`
		StatusCode int     `db:"status_code"`
		LatencyMs  float64 `db:"latency_ms"`
		Error      string  `db:"error"`
	}
	if err := sel(ctx, q, &attempts, `SELECT "at", "status_code", "latency_ms", "error" FROM "webhook_attempts"
		WHERE "delivery_seq" = ? ORDER BY "seq"`, r.Seq); err != nil {
		return d, err
	}
	for _, a := range attempts {
		at, _ := parseTime(a.At)
		d.Attempts = append(d.Attempts, engine.Attempt{At: at, StatusCode: a.StatusCode, LatencyMs: a.LatencyMs, Error: a.Error})
	}
	return d, nil
}

func (st webhookStore) Redeliver(ctx context.Context, s engine.Session, id string, delivery int64, r engine.Receipt) (engine.Response, error) {
	e := st.e
	return e.writeWebhook(ctx, s, id, r, func(ctx context.Context, tx *txn, _ webhookRow) (any, error) {
		n, err := execAffected(ctx, tx, `UPDATE "webhook_deliveries" SET "state" = ?, "next_attempt_at" = ?, "lease_until" = ''
			WHERE "company" = ? AND "webhook_id" = ? AND "seq" = ?`, engine.DeliveryPending, e.now(), s.Company, id, delivery)
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return nil, engine.ErrNotFound
		}
		return e.readDelivery(ctx, tx, delivery)
	})
}

// readDelivery reads one delivery with its attempts.
func (e *Engine) readDelivery(ctx context.Context, tx *txn, seq int64) (engine.Delivery, error) {
	var row deliveryRow
	if err := get(ctx, tx, &row, `SELECT `+deliveryColumns+` FROM "webhook_deliveries" WHERE "seq" = ?`, seq); err != nil {
		return engine.Delivery{}, err
	}
	return e.delivery(ctx, tx, row)
}

// pingType is the type of the message POST /v1/webhooks/{id}/test sends.
const pingType = "webhook.ping"

func (st webhookStore) Ping(ctx context.Context, s engine.Session, id string, r engine.Receipt) (engine.Response, error) {
	e := st.e
	return e.writeWebhook(ctx, s, id, r, func(ctx context.Context, tx *txn, _ webhookRow) (any, error) {
		msgID := "msg_" + strings.TrimPrefix(newEventID(), "evt_")
		payload, _ := json.Marshal(map[string]any{"id": msgID, "type": pingType, "occurredAt": e.now(), "company": s.Company, "webhookId": id})
		seq, err := e.queueDelivery(ctx, tx, s.Company, id, msgID, pingType, string(payload))
		if err != nil {
			return nil, err
		}
		return e.readDelivery(ctx, tx, seq)
	})
}

// queueDelivery adds a delivery due now and returns its seq.
func (e *Engine) queueDelivery(ctx context.Context, tx db, company, webhookID, msgID, eventType, payload string) (int64, error) {
	var seq int64
	now := e.now()
	err := get(ctx, tx, &seq, `INSERT INTO "webhook_deliveries"
		("company", "webhook_id", "message_id", "event_type", "payload", "state", "tries", "next_attempt_at", "lease", "lease_until", "created")
		VALUES (?, ?, ?, ?, ?, ?, 0, ?, '', '', ?) RETURNING "seq"`,
		company, webhookID, msgID, eventType, payload, engine.DeliveryPending, now, now)
	return seq, err
}
