package sqlengine

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"maps"
	"strings"
	"time"

	"fieldapi/catalog"
	"fieldapi/engine"
)

var _ engine.Events = (*Engine)(nil)

// Events are recorded in the write's own transaction (an outbox): a write
// that rolls back has none, one that commits always has them.
//
// Feed order is commit order. Each event takes its position from the
// company's row in event_counters (UPDATE … RETURNING), as the last
// statement before commit; the row stays locked until the commit, so the
// next writer of the company gets the next position only after this one's
// events are visible. Positions are therefore gap-free per company (a
// rolled-back write gives its positions back) and a reader that has seen
// position n has seen every position below it: a cursor never skips an
// event that commits later. The price: writers of one company queue on
// the row for the length of their commit, not of their transaction.

const (
	eventsTable = `CREATE TABLE IF NOT EXISTS "events" (
		"company" TEXT NOT NULL,
		"position" BIGINT NOT NULL,
		"id" TEXT NOT NULL,
		"type" TEXT NOT NULL,
		"register" TEXT NOT NULL,
		"record_key" TEXT NOT NULL,
		"occurred_at" TEXT NOT NULL,
		"payload" TEXT NOT NULL,
		PRIMARY KEY ("company", "position"))`
	eventCountersTable = `CREATE TABLE IF NOT EXISTS "event_counters" (
		"company" TEXT PRIMARY KEY,
		"last" BIGINT NOT NULL,
		"pruned_through" BIGINT NOT NULL)`
	eventsIndex = `CREATE INDEX IF NOT EXISTS "events_occurred" ON "events" ("occurred_at")`
)

// pendingEvent is an event a write will record when it commits.
type pendingEvent struct {
	register *catalog.Register
	what     string // catalog.EventCreated, a line's or action's event, ...
	key      string
	changed  []string
	record   engine.Record // nil: the record the write's receipt renders
}

// eventRow is an event as the feed and the dispatcher read it.
type eventRow struct {
	Position int64  `db:"position"`
	ID       string `db:"id"`
	Type     string `db:"type"`
	Register string `db:"register"`
	Payload  string `db:"payload"`
}

const eventColumns = `"position", "id", "type", "register", "payload"`

// eventPayload is an event as the feed lists it and a webhook delivers it.
type eventPayload struct {
	ID            string        `json:"id"`
	Position      int64         `json:"position"`
	Type          string        `json:"type"`
	OccurredAt    string        `json:"occurredAt"`
	Company       string        `json:"company"`
	Register      string        `json:"register"`
	Key           string        `json:"key"`
	Actor         eventActor    `json:"actor"`
	ChangedFields []string      `json:"changedFields"`
	Data          engine.Record `json:"data"` // the record as read after the change
}

type eventActor struct {
	ClientID string `json:"clientId"`
	Sign     string `json:"sign"`
}

// emit notes an event of this write; it is recorded by recordEvents just
// before the commit.
func (w *writer) emit(t *table, what, key string, changed []string) {
	if changed == nil {
		changed = []string{}
	}
	w.events = append(w.events, &pendingEvent{register: t.reg, what: what, key: key, changed: changed})
}

// recordEvents writes the write's events, with rec as the record of those
// that carry none. It must be the last statement of the transaction: the
// company's counter row stays locked from here to the commit.
func (w *writer) recordEvents(ctx context.Context, rec engine.Record) error {
	if len(w.events) == 0 || w.e.opt.NoEvents {
		return nil
	}
	last, err := w.e.takePositions(ctx, w.tx, w.s.Company, len(w.events))
	if err != nil {
		return err
	}
	first := last - int64(len(w.events)) + 1
	for i, ev := range w.events {
		data := ev.record
		if data == nil {
			data = rec
		}
		if _, ok := data[engine.VersionField]; ok {
			// The version is the engine's note for the ETag, not a field.
			data = maps.Clone(data)
			delete(data, engine.VersionField)
		}
		p := eventPayload{
			ID: newEventID(), Position: first + int64(i), Type: ev.register.EventType(ev.what),
			OccurredAt: w.now, Company: w.s.Company, Register: ev.register.Name, Key: ev.key,
			Actor:         eventActor{ClientID: w.s.ClientID, Sign: w.s.Sign},
			ChangedFields: ev.changed, Data: data,
		}
		body, err := json.Marshal(p)
		if err != nil {
			return err
		}
		if _, err := exec(ctx, w.tx, `INSERT INTO "events"
			("company", "position", "id", "type", "register", "record_key", "occurred_at", "payload")
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
			w.s.Company, p.Position, p.ID, p.Type, p.Register, p.Key, p.OccurredAt, string(body)); err != nil {
			return err
		}
	}
	w.events = nil
	return nil
}

// takePositions reserves n feed positions of the company and returns the
// last; the counter row stays locked until the transaction ends.
func (e *Engine) takePositions(ctx context.Context, q db, company string, n int) (int64, error) {
	var last int64
	for range 2 {
		err := get(ctx, q, &last, `UPDATE "event_counters" SET "last" = "last" + ? WHERE "company" = ? RETURNING "last"`, n, company)
		if !errors.Is(err, sql.ErrNoRows) {
			return last, err
		}
		// The company's first event: make its row (a parallel first
		// writer may make it too; then the UPDATE above waits for it).
		if _, err := exec(ctx, q, `INSERT INTO "event_counters" ("company", "last", "pruned_through") VALUES (?, 0, 0)
			ON CONFLICT ("company") DO NOTHING`, company); err != nil {
			return 0, err
		}
	}
	return 0, errors.New("event counter row missing")
}

// newEventID is a random event id, the webhook-id of its deliveries.
func newEventID() string {
	var b [12]byte
	rand.Read(b[:])
	return "evt_" + hex.EncodeToString(b[:])
}

// EventTypes lists every event type the catalog's registers emit.
func (e *Engine) EventTypes() []string {
	var names []string
	for _, et := range e.cat.EventTypes() {
		names = append(names, et.Name)
	}
	return names
}

// Events reads one page of the company's feed, oldest first.
func (e *Engine) Events(ctx context.Context, s engine.Session, q engine.EventQuery) (engine.EventPage, error) {
	return call(e, ctx, func(ctx context.Context) (engine.EventPage, error) {
		// The committed counter first: every position up to it is
		// committed, so a page that ends early may move the cursor there.
		var counter struct {
			Last   int64 `db:"last"`
			Pruned int64 `db:"pruned_through"`
		}
		err := get(ctx, e.db, &counter, `SELECT "last", "pruned_through" FROM "event_counters" WHERE "company" = ?`, s.Company)
		if errors.Is(err, sql.ErrNoRows) {
			return engine.EventPage{Events: []engine.Event{}, Next: q.After}, nil
		}
		if err != nil {
			return engine.EventPage{}, err
		}
		if q.After > 0 && q.After < counter.Pruned {
			return engine.EventPage{}, engine.ErrCursorExpired
		}
		readable, err := e.readableRegisters(ctx, e.db, s)
		if err != nil {
			return engine.EventPage{}, err
		}
		query := `SELECT ` + eventColumns + ` FROM "events" WHERE "company" = ? AND "position" > ?`
		args := []any{s.Company, q.After}
		if readable != nil {
			// "" keeps the list non-empty (IN () is no SQL); no register has that name.
			query += ` AND "register" IN (` + placeholders(len(readable)+1) + `)`
			args = append(args, "")
			for _, r := range readable {
				args = append(args, r)
			}
		}
		if q.Register != "" {
			query += ` AND "register" = ?`
			args = append(args, q.Register)
		}
		if cond, typeArgs := typeCondition(q.Types); cond != "" {
			query += " AND " + cond
			args = append(args, typeArgs...)
		}
		query += ` ORDER BY "position" LIMIT ?`
		args = append(args, q.Limit)
		var rows []eventRow
		if err := sel(ctx, e.db, &rows, query, args...); err != nil {
			return engine.EventPage{}, err
		}
		page := engine.EventPage{Events: make([]engine.Event, len(rows)), Next: q.After}
		for i, r := range rows {
			page.Events[i] = engine.Event{Position: r.Position, ID: r.ID, Type: r.Type, Payload: json.RawMessage(r.Payload)}
			page.Next = r.Position
		}
		if len(rows) < q.Limit && counter.Last > page.Next {
			page.Next = counter.Last // nothing else matched up to the committed counter
		}
		return page, nil
	})
}

// readableRegisters lists the registers the session's signature may read,
// whose events it may see; nil when it may read every one. A scope never
// grants more than the signature may do, in the feed as in the registers.
// Inside a transaction q must be the transaction: it may not wait for a
// connection of the pool (see ttlCache.get).
func (e *Engine) readableRegisters(ctx context.Context, q db, s engine.Session) ([]string, error) {
	readable := []string{}
	for _, r := range e.cat.Registers {
		err := e.authorize(ctx, q, s, r.Name, readAccess)
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

// typeCondition selects events of the given types or patterns (task.*).
func typeCondition(types []string) (string, []any) {
	var conds []string
	var args []any
	for _, t := range types {
		switch {
		case t == "*":
			return "", nil
		case strings.HasSuffix(t, ".*"):
			conds = append(conds, `"type" LIKE ?`)
			args = append(args, strings.TrimSuffix(t, "*")+"%")
		default:
			conds = append(conds, `"type" = ?`)
			args = append(args, t)
		}
	}
	if len(conds) == 0 {
		return "", nil
	}
	return "(" + strings.Join(conds, " OR ") + ")", args
}

// PruneEvents deletes events recorded before the given time and notes,
// per company, the last position pruned: a cursor below it has missed
// events and answers ErrCursorExpired.
func (q deliveryQueue) PruneEvents(ctx context.Context, before time.Time) (int, error) {
	e := q.e
	return call(e, ctx, func(ctx context.Context) (int, error) {
		var n int64
		cutoff := formatTime(before)
		err := e.inTx(ctx, func(tx *txn) error {
			if _, err := exec(ctx, tx, `UPDATE "event_counters" SET "pruned_through" = (
				SELECT MAX("position") FROM "events" WHERE "events"."company" = "event_counters"."company" AND "occurred_at" < ?)
				WHERE EXISTS (SELECT 1 FROM "events" WHERE "events"."company" = "event_counters"."company" AND "occurred_at" < ?)`,
				cutoff, cutoff); err != nil {
				return err
			}
			var err error
			n, err = execAffected(ctx, tx, `DELETE FROM "events" WHERE "occurred_at" < ?`, cutoff)
			return err
		})
		return int(n), err
	})
}
