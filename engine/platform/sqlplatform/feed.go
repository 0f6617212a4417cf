package sqlplatform

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
	"time"
	"unicode/utf8"

	"fieldapi/engine"
	"fieldapi/engine/platform"
	"fieldapi/engine/sqldb"
)

// Events are recorded in the write's own transaction (an outbox): a write
// that rolls back has none, one that commits always has them.
//
// Feed order is commit order. Each event takes its position from the
// company's row in event_counters (UPDATE … RETURNING), as the last step
// before commit; the row stays locked until the commit, so the next
// writer of the company gets the next position only after this one's
// events are visible. Positions are therefore gap-free per company (a
// rolled-back write gives its positions back) and a reader that has seen
// position n has seen every position below it: a cursor never skips an
// event that commits later. The price: writers of one company queue on
// the row for the length of their commit, not of their transaction.

var errNoCounter = errors.New("sqlplatform: the company's event counter row is missing")

// record inserts the events with the company's next positions, each with
// its payload (platform.Event.Payload) carrying its position.
func record(ctx context.Context, tx *sqldb.Tx, company string, events []platform.Event) error {
	if len(events) == 0 {
		return nil
	}
	last, err := takePositions(ctx, tx, company, len(events))
	if err != nil {
		return err
	}
	first := last - int64(len(events)) + 1
	args := make([]any, 0, 8*len(events))
	rows := make([]string, len(events))
	for i, ev := range events {
		ev.Position = first + int64(i)
		payload, err := ev.Payload()
		if err != nil {
			return err
		}
		rows[i] = "(" + sqldb.Placeholders(8) + ")"
		args = append(args, company, ev.Position, ev.ID, ev.Type, ev.Register, ev.Key, ev.OccurredAt, string(payload))
	}
	// One statement for all of them: the counter row is locked already.
	_, err = sqldb.Exec(ctx, tx, `INSERT INTO "events"
		("company", "position", "id", "type", "register", "record_key", "occurred_at", "payload")
		VALUES `+strings.Join(rows, ", "), args...)
	return err
}

// takePositions reserves n feed positions of the company and returns the
// last; the counter row stays locked until the transaction ends.
func takePositions(ctx context.Context, tx *sqldb.Tx, company string, n int) (int64, error) {
	var last int64
	for range 2 {
		err := sqldb.Get(ctx, tx, &last, `UPDATE "event_counters" SET "last" = "last" + ? WHERE "company" = ? RETURNING "last"`, n, company)
		if !errors.Is(err, sql.ErrNoRows) {
			return last, err
		}
		// The company's first event: make its row (a parallel first
		// writer may make it too; then the UPDATE above waits for it).
		if _, err := sqldb.Exec(ctx, tx, `INSERT INTO "event_counters" ("company", "last", "pruned_through") VALUES (?, 0, 0)
			ON CONFLICT ("company") DO NOTHING`, company); err != nil {
			return 0, err
		}
	}
	return 0, errNoCounter
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

// Feed reads one page of the company's feed, oldest first.
func (p *Platform) Feed(ctx context.Context, company string, q engine.EventQuery, readable []string) (engine.EventPage, error) {
	page := engine.EventPage{Events: []engine.Event{}, Next: q.After}
	err := p.db.Read(ctx, func(ctx context.Context, db sqldb.Querier) error {
		// The committed counter first: every position up to it is
		// committed, so a page that ends early may move the cursor there.
		var counter struct {
			Last   int64 `db:"last"`
			Pruned int64 `db:"pruned_through"`
		}
		err := sqldb.Get(ctx, db, &counter, `SELECT "last", "pruned_through" FROM "event_counters" WHERE "company" = ?`, company)
		if errors.Is(err, sql.ErrNoRows) {
			return nil // no event yet
		}
		if err != nil {
			return err
		}
		if q.After > 0 && q.After < counter.Pruned {
			return engine.ErrCursorExpired
		}
		query := `SELECT ` + eventColumns + ` FROM "events" WHERE "company" = ? AND "position" > ?`
		args := []any{company, q.After}
		if readable != nil {
			// "" keeps the list non-empty (IN () is no SQL); no register has that name.
			query += ` AND "register" IN (` + sqldb.Placeholders(len(readable)+1) + `)`
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
		var rows []eventRow
		if err := sqldb.Select(ctx, db, &rows, query+` ORDER BY "position" LIMIT ?`, append(args, q.Limit)...); err != nil {
			return err
		}
		for _, r := range rows {
			page.Events = append(page.Events, engine.Event{Position: r.Position, ID: r.ID, Type: r.Type, Payload: json.RawMessage(r.Payload)})
			page.Next = r.Position
		}
		if len(rows) < q.Limit && counter.Last > page.Next {
			page.Next = counter.Last // nothing else matched up to the committed counter
		}
		return nil
	})
	if err != nil {
		return engine.EventPage{}, err
	}
	return page, nil
}

// typeCondition selects events of the given types or patterns, as
// engine.MatchEventType matches them: "*" is every type, "task.*" every
// type that starts with "task." and goes on. The prefix is compared
// exactly (LIKE would fold case on SQLite and take _ as a wildcard), so
// the feed filters as the webhooks match.
func typeCondition(types []string) (string, []any) {
	var conds []string
	var args []any
	for _, t := range types {
		switch {
		case t == "*":
			return "", nil
		case len(t) > 2 && strings.HasSuffix(t, ".*"):
			prefix := strings.TrimSuffix(t, "*")
			n := utf8.RuneCountInString(prefix)
			conds = append(conds, `(substr("type", 1, ?) = ? AND length("type") > ?)`)
			args = append(args, n, prefix, n)
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
// events and answers engine.ErrCursorExpired.
func (p *Platform) PruneEvents(ctx context.Context, before time.Time) (int, error) {
	var n int64
	cut := sqldb.FormatTime(before)
	err := p.db.Write(ctx, func(ctx context.Context, tx *sqldb.Tx) error {
		// Only events past the mark move it: it never goes back, even when
		// an event's time is earlier than one before it (clocks of two
		// processes), which a cursor could otherwise slip through.
		const pruned = ` FROM "events" WHERE "events"."company" = "event_counters"."company" AND "occurred_at" < ?
			AND "position" > "event_counters"."pruned_through"`
		if _, err := sqldb.Exec(ctx, tx, `UPDATE "event_counters" SET "pruned_through" = (SELECT MAX("position")`+pruned+`)
			WHERE EXISTS (SELECT 1`+pruned+`)`, cut, cut); err != nil {
			return err
		}
		var err error
		n, err = sqldb.ExecAffected(ctx, tx, `DELETE FROM "events" WHERE "occurred_at" < ?`, cut)
		return err
	})
	return int(n), err
}
