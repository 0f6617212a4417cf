package sqlplatform

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"fieldapi/engine"
	"fieldapi/engine/platform"
	"fieldapi/engine/sqldb"
)

// Webhook subscriptions and their deliveries. A subscription's cursor is
// the last feed position it was given deliveries for; Dispatch moves it
// over committed events only (see feed.go), so it never misses one.

// webhookStore is the platform's engine.WebhookStore.
type webhookStore struct{ *Platform }

// webhookRow is a subscription as stored.
type webhookRow struct {
	ID             string `db:"id"`
	Company        string `db:"company"`
	Sign           string `db:"sign"` // who subscribed: the events it gets are those this signature may read
	URL            string `db:"url"`
	EventTypes     string `db:"event_types"` // JSON list
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

// webhook is the subscription as listed: without its secrets.
func (r webhookRow) webhook() engine.Webhook {
	w := engine.Webhook{ID: r.ID, URL: r.URL, Description: r.Description, Enabled: r.Enabled, DisabledReason: r.DisabledReason,
		Created: parseTime(r.Created), Modified: parseTime(r.Modified)}
	_ = json.Unmarshal([]byte(r.EventTypes), &w.EventTypes) // written by the platform as JSON
	return w
}

// receipt stores the receipt of a webhook write, rendered from v, with
// the write's claim in its transaction.
func (p *Platform) receipt(ctx context.Context, tx *sqldb.Tx, r engine.Receipt, v any) (engine.Response, error) {
	return platform.Receipt(r, v, func(c engine.Claim, resp engine.Response) error {
		return idempotencyStore{p}.settle(ctx, tx, c, resp)
	})
}

func (p webhookStore) CreateWebhook(ctx context.Context, s engine.Session, w engine.Webhook, r engine.Receipt) (engine.Response, error) {
	types, _ := json.Marshal(w.EventTypes) // a list of strings always marshals
	now := platform.Stored(p.now())
	w.Created, w.Modified = now, now
	var resp engine.Response
	err := p.db.Write(ctx, func(ctx context.Context, tx *sqldb.Tx) error {
		// Events committed before the subscription are not its business:
		// sequenced here, they all lie at or below its cursor.
		cursor, _, err := p.sequenceCompany(ctx, tx, s.Company)
		if err != nil {
			return err
		}
		if _, err := sqldb.Exec(ctx, tx, `INSERT INTO "webhooks" (`+webhookColumns+`)
			VALUES (?, ?, ?, ?, ?, ?, ?, '', ?, '', '', ?, ?, ?)`,
			w.ID, s.Company, s.Sign, w.URL, string(types), w.Description, w.Enabled, w.Secret, cursor,
			sqldb.FormatTime(now), sqldb.FormatTime(now)); err != nil {
			return err
		}
		resp, err = p.receipt(ctx, tx, r, w)
		return err
	})
	return resp, err
}

func (p webhookStore) ListWebhooks(ctx context.Context, s engine.Session) ([]engine.Webhook, error) {
	var rows []webhookRow
	err := p.db.Read(ctx, func(ctx context.Context, q sqldb.Querier) error {
		return sqldb.Select(ctx, q, &rows, `SELECT `+webhookColumns+` FROM "webhooks" WHERE "company" = ? ORDER BY "created", "id"`, s.Company)
	})
	if err != nil {
		return nil, err
	}
	hooks := make([]engine.Webhook, len(rows))
	for i, r := range rows {
		hooks[i] = r.webhook()
	}
	return hooks, nil
}

func (p webhookStore) GetWebhook(ctx context.Context, s engine.Session, id string) (engine.Webhook, error) {
	var row webhookRow
	err := p.db.Read(ctx, func(ctx context.Context, q sqldb.Querier) error {
		var err error
		row, err = p.webhookRow(ctx, q, s.Company, id, false)
		return err
	})
	if err != nil {
		return engine.Webhook{}, err
	}
	return row.webhook(), nil
}

// webhookRow reads one subscription of the company, locked for the
// transaction when lock is set; engine.ErrNotFound when there is none.
func (p *Platform) webhookRow(ctx context.Context, q sqldb.Querier, company, id string, lock bool) (webhookRow, error) {
	var row webhookRow
	query := `SELECT ` + webhookColumns + ` FROM "webhooks" WHERE "company" = ? AND "id" = ?`
	if lock {
		query += p.db.Dialect().ForUpdate()
	}
	err := sqldb.Get(ctx, q, &row, query, company, id)
	if errors.Is(err, sql.ErrNoRows) {
		return row, engine.ErrNotFound
	}
	return row, err
}

// writeWebhook runs a write on one subscription of the company, whose row
// it holds for the transaction; change returns what the receipt renders,
// stored with the write.
func (p *Platform) writeWebhook(ctx context.Context, s engine.Session, id string, r engine.Receipt,
	change func(ctx context.Context, tx *sqldb.Tx, row webhookRow) (any, error)) (engine.Response, error) {
	var resp engine.Response
	err := p.db.Write(ctx, func(ctx context.Context, tx *sqldb.Tx) error {
		row, err := p.webhookRow(ctx, tx, s.Company, id, true)
		if err != nil {
			return err
		}
		rendered, err := change(ctx, tx, row)
		if err != nil {
			return err
		}
		resp, err = p.receipt(ctx, tx, r, rendered)
		return err
	})
	return resp, err
}

func (p webhookStore) UpdateWebhook(ctx context.Context, s engine.Session, id string, c engine.WebhookChange, r engine.Receipt) (engine.Response, error) {
	return p.writeWebhook(ctx, s, id, r, func(ctx context.Context, tx *sqldb.Tx, row webhookRow) (any, error) {
		w := row.webhook()
		platform.ApplyChange(&w, c)
		w.Modified = platform.Stored(p.now())
		types, _ := json.Marshal(w.EventTypes)
		_, err := sqldb.Exec(ctx, tx, `UPDATE "webhooks" SET "url" = ?, "event_types" = ?, "description" = ?, "enabled" = ?,
			"disabled_reason" = ?, "modified" = ? WHERE "company" = ? AND "id" = ?`,
			w.URL, string(types), w.Description, w.Enabled, w.DisabledReason, sqldb.FormatTime(w.Modified), s.Company, id)
		return w, err
	})
}

func (p webhookStore) RotateSecret(ctx context.Context, s engine.Session, id, secret string, keepOld time.Duration, r engine.Receipt) (engine.Response, error) {
	return p.writeWebhook(ctx, s, id, r, func(ctx context.Context, tx *sqldb.Tx, row webhookRow) (any, error) {
		w := row.webhook()
		w.Modified = platform.Stored(p.now())
		until := w.Modified.Add(keepOld)
		_, err := sqldb.Exec(ctx, tx, `UPDATE "webhooks" SET "secret" = ?, "previous_secret" = ?, "previous_until" = ?, "modified" = ?
			WHERE "company" = ? AND "id" = ?`, secret, row.Secret, sqldb.FormatTime(until), sqldb.FormatTime(w.Modified), s.Company, id)
		w.Secret, w.PreviousExpiry = secret, &until
		return w, err
	})
}

func (p webhookStore) DeleteWebhook(ctx context.Context, s engine.Session, id string) error {
	return p.db.Write(ctx, func(ctx context.Context, tx *sqldb.Tx) error {
		n, err := sqldb.ExecAffected(ctx, tx, `DELETE FROM "webhooks" WHERE "company" = ? AND "id" = ?`, s.Company, id)
		if err != nil {
			return err
		}
		if n == 0 {
			return engine.ErrNotFound
		}
		if _, err := sqldb.Exec(ctx, tx, `DELETE FROM "webhook_attempts" WHERE "delivery_seq" IN
			(SELECT "seq" FROM "webhook_deliveries" WHERE "webhook_id" = ?)`, id); err != nil {
			return err
		}
		_, err = sqldb.Exec(ctx, tx, `DELETE FROM "webhook_deliveries" WHERE "webhook_id" = ?`, id)
		return err
	})
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

func (p webhookStore) Deliveries(ctx context.Context, s engine.Session, id string, limit int) ([]engine.Delivery, error) {
	var out []engine.Delivery
	err := p.db.Read(ctx, func(ctx context.Context, q sqldb.Querier) error {
		if _, err := p.webhookRow(ctx, q, s.Company, id, false); err != nil {
			return err
		}
		var rows []deliveryRow
		if err := sqldb.Select(ctx, q, &rows, `SELECT `+deliveryColumns+` FROM "webhook_deliveries"
			WHERE "company" = ? AND "webhook_id" = ? ORDER BY "seq" DESC LIMIT ?`, s.Company, id, limit); err != nil {
			return err
		}
		var err error
		out, err = withAttempts(ctx, q, rows)
		return err
	})
	return out, err
}

// withAttempts reads the deliveries' attempts, oldest first, in one query.
func withAttempts(ctx context.Context, q sqldb.Querier, rows []deliveryRow) ([]engine.Delivery, error) {
	out := make([]engine.Delivery, len(rows))
	if len(rows) == 0 {
		return out, nil
	}
	index := make(map[int64]int, len(rows))
	seqs := make([]any, len(rows))
	for i, r := range rows {
		d := engine.Delivery{ID: r.Seq, WebhookID: r.WebhookID, MessageID: r.MessageID, EventType: r.EventType, State: r.State,
			Attempts: []engine.Attempt{}, Created: parseTime(r.Created)}
		if r.State == engine.DeliveryPending {
			next := parseTime(r.NextAttemptAt)
			d.NextAttemptAt = &next
		}
		out[i], index[r.Seq], seqs[i] = d, i, r.Seq
	}
	var attempts []struct {
		Delivery   int64   `db:"delivery_seq"`
		At         string  `db:"at"`
		StatusCode int     `db:"status_code"`
		LatencyMs  float64 `db:"latency_ms"`
		Error      string  `db:"error"`
	}
	if err := sqldb.Select(ctx, q, &attempts, `SELECT "delivery_seq", "at", "status_code", "latency_ms", "error" FROM "webhook_attempts"
		WHERE "delivery_seq" IN (`+sqldb.Placeholders(len(seqs))+`) ORDER BY "seq"`, seqs...); err != nil {
		return nil, err
	}
	for _, a := range attempts {
		d := &out[index[a.Delivery]]
		d.Attempts = append(d.Attempts, engine.Attempt{At: parseTime(a.At), StatusCode: a.StatusCode, LatencyMs: a.LatencyMs, Error: a.Error})
	}
	return out, nil
}

// readDelivery reads one delivery with its attempts.
func readDelivery(ctx context.Context, q sqldb.Querier, seq int64) (engine.Delivery, error) {
	var row deliveryRow
	if err := sqldb.Get(ctx, q, &row, `SELECT `+deliveryColumns+` FROM "webhook_deliveries" WHERE "seq" = ?`, seq); err != nil {
		return engine.Delivery{}, err
	}
	list, err := withAttempts(ctx, q, []deliveryRow{row})
	if err != nil {
		return engine.Delivery{}, err
	}
	return list[0], nil
}

func (p webhookStore) Redeliver(ctx context.Context, s engine.Session, id string, delivery int64, r engine.Receipt) (engine.Response, error) {
	return p.writeWebhook(ctx, s, id, r, func(ctx context.Context, tx *sqldb.Tx, _ webhookRow) (any, error) {
		n, err := sqldb.ExecAffected(ctx, tx, `UPDATE "webhook_deliveries" SET "state" = ?, "next_attempt_at" = ?, "lease_until" = ''
			WHERE "company" = ? AND "webhook_id" = ? AND "seq" = ?`, engine.DeliveryPending, p.stamp(), s.Company, id, delivery)
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return nil, engine.ErrNotFound
		}
		return readDelivery(ctx, tx, delivery)
	})
}

func (p webhookStore) Ping(ctx context.Context, s engine.Session, id string, r engine.Receipt) (engine.Response, error) {
	return p.writeWebhook(ctx, s, id, r, func(ctx context.Context, tx *sqldb.Tx, _ webhookRow) (any, error) {
		msgID, payload := platform.NewPing(s.Company, id, p.now())
		seq, err := p.queueDelivery(ctx, tx, s.Company, id, msgID, platform.PingType, string(payload))
		if err != nil {
			return nil, err
		}
		return readDelivery(ctx, tx, seq)
	})
}

// queueDelivery adds a delivery due now and returns its seq.
func (p *Platform) queueDelivery(ctx context.Context, tx *sqldb.Tx, company, webhookID, msgID, eventType, payload string) (int64, error) {
	var seq int64
	now := p.stamp()
	err := sqldb.Get(ctx, tx, &seq, `INSERT INTO "webhook_deliveries"
		("company", "webhook_id", "message_id", "event_type", "payload", "state", "tries", "next_attempt_at", "lease", "lease_until", "created")
		VALUES (?, ?, ?, ?, ?, ?, 0, ?, '', '', ?) RETURNING "seq"`,
		company, webhookID, msgID, eventType, payload, engine.DeliveryPending, now, now)
	return seq, err
}
