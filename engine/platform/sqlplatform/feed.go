package sqlplatform

import (
	"bytes"
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"fieldapi/engine"
	"fieldapi/engine/platform"
	"fieldapi/engine/sqldb"
)

// Events are recorded in the write's own transaction: a write that rolls
// back has none, one that commits always has them. On PostgreSQL a write
// only inserts its events into an outbox (one statement, no row shared
// with other writes), so writes of one company never queue on each other.
// On SQLite, one write transaction at a time, a write positions its
// events itself, as the sequencer would (recordInFeed).
//
// Feed order is commit order. A reader of the feed or the webhook
// dispatcher first sequences the outbox: per company, in a transaction
// holding the company's event_counters row, it gives the events committed
// so far the next positions in recorded order and moves them to the feed.
// The row lock orders sequencers, in one process or many, so positions
// are gap-free and a cursor never skips an event that commits later: that
// one is sequenced later, at a higher position.

// outboxTable is the queue the writes record their events in.
const outboxTable = "event_outbox"

var errNoCounter = errors.New("sqlplatform: the company's event counter row is missing")

// recordInFeed gives a write's events the company's next positions and
// puts them in the feed, in the write's transaction: SQLite's way. Each
// SQLite write transaction holds the write lock from BEGIN, so their order
// is commit order and the counter row makes no other write wait. Events an
// earlier version left in the outbox are sequenced first, keeping their
// place. Through the outbox each payload was written twice and the
// sequencer held the write lock every second (p99 of an atomic batch of
// 100 task creates: 140 ms, 80 ms without events).
func (p *Platform) recordInFeed(ctx context.Context, tx *sqldb.Tx, company string, events []platform.Event) error {
	// One statement when the company has its counter and an empty outbox.
	var last int64
	err := sqldb.Get(ctx, tx, &last, `UPDATE "event_counters" SET "last" = "last" + ? WHERE "company" = ?
		AND NOT EXISTS (SELECT 1 FROM "event_outbox" WHERE "company" = ?) RETURNING "last"`, len(events), company, company)
	if errors.Is(err, sql.ErrNoRows) {
		// The company's first events, or an earlier version's waiting.
		if _, _, err = p.sequenceCompany(ctx, tx, company); err == nil {
			last, err = advanceCounter(ctx, tx, company, len(events))
		}
	}
	if err != nil {
		return err
	}
	rows := make([]feedRow, len(events))
	buf := make([]byte, 0, 4096)
	for i, ev := range events {
		ev.Position = last - int64(len(events)-1-i)
		payload, err := ev.AppendPayload(buf[:0])
		if err != nil {
			return err
		}
		rows[i] = feedRow{ev.Position, ev.ID, ev.Type, ev.Register, ev.Key, ev.OccurredAt, string(payload)}
		buf = payload
	}
	return insertFeed(ctx, tx, company, rows)
}

// feedRow is an event as the feed stores it, beside its company.
type feedRow struct {
	position                                 int64
	id, eventType, register, key, occurredAt string
	payload                                  string
}

// insertFeed inserts events into the company's feed, maxEventRows to a
// statement at most.
func insertFeed(ctx context.Context, tx *sqldb.Tx, company string, rows []feedRow) error {
	for chunk := range slices.Chunk(rows, maxEventRows) {
		args := make([]any, 0, 8*len(chunk))
		for _, r := range chunk {
			args = append(args, company, r.position, r.id, r.eventType, r.register, r.key, r.occurredAt, r.payload)
		}
		query := feedInsertOne // a write's one event: the text every time
		if len(chunk) > 1 {
			query += strings.Repeat(", "+feedValues, len(chunk)-1)
		}
		if _, err := sqldb.Exec(ctx, tx, query, args...); err != nil {
			return err
		}
	}
	return nil
}

// feedInsertOne inserts one event into the feed; each more adds feedValues.
const (
	feedValues    = `(?, ?, ?, ?, ?, ?, ?, ?)`
	feedInsertOne = `INSERT INTO "events" ("company", "position", "id", "type", "register", "record_key", "occurred_at", "payload")
		VALUES ` + feedValues
)

// record writes a write's events to the outbox, one row each, in order:
// the payload with position 0 as a JSON array of one, as versions before
// per-event rows wrote a write's events (so such a version running beside
// this one still sequences them); where the position's 0 stands, so the
// sequencer moves events in SQL without reading them back; the feed's
// columns; and the write's first event id, which keeps its events together.
func record(ctx context.Context, tx *sqldb.Tx, company string, events []platform.Event) error {
	for chunk := range slices.Chunk(events, maxEventRows) {
		args := make([]any, 0, 9*len(chunk))
		buf := make([]byte, 0, 4096)
		for _, ev := range chunk {
			ev.Position = 0
			listed, err := ev.AppendPayload(append(buf[:0], '['))
			if err != nil {
				return err
			}
			listed = append(listed, ']')
			at, err := positionAt(listed)
			if err != nil {
				return err
			}
			args = append(args, company, events[0].ID, ev.ID, ev.Type, ev.Register, ev.Key, ev.OccurredAt, string(listed), at)
			buf = listed
		}
		row := "(" + sqldb.Placeholders(9) + ")"
		if err := tx.ExecLater(ctx, nil, `INSERT INTO "event_outbox"
			("company", "write_id", "id", "type", "register", "record_key", "occurred_at", "events", "position_at")
			VALUES `+strings.Repeat(row+", ", len(chunk)-1)+row, args...); err != nil {
			return err
		}
	}
	return nil
}

// positionAt is where the 0 stands in a payload written with position 0,
// in characters from 1 as SQL's substr counts. The first match is the
// event's own: only the id comes before, and `,"` cannot occur in a JSON
// string.
func positionAt(payload []byte) (int, error) {
	const key = `,"position":`
	i := bytes.Index(payload, []byte(key+`0,`))
	if i < 0 {
		return 0, fmt.Errorf("sqlplatform: no position in the event payload %.40q", payload)
	}
	return utf8.RuneCount(payload[:i+len(key)]) + 1, nil
}

// sequence moves the events committed to the outbox to the feed, with
// their positions: the company's, or every company's when company is "".
// When the outbox holds none, it reads and writes nothing else.
func (p *Platform) sequence(ctx context.Context, company string) error {
	var companies []string
	err := p.db.Read(ctx, func(ctx context.Context, q sqldb.Querier) error {
		if company == "" {
			return sqldb.Select(ctx, q, &companies, `SELECT DISTINCT "company" FROM "event_outbox"`)
		}
		pending, err := sqldb.Exists(ctx, q, `SELECT 1 FROM "event_outbox" WHERE "company" = ? LIMIT 1`, company)
		if pending {
			companies = []string{company}
		}
		return err
	})
	if err != nil {
		return err
	}
	for _, c := range companies {
		var taken int
		if err := p.db.Write(ctx, func(ctx context.Context, tx *sqldb.Tx) (err error) {
			_, taken, err = p.sequenceCompany(ctx, tx, c)
			return err
		}); err != nil {
			return err
		}
		// A queue table: its deleted rows are vacuumed now and then (a
		// failed vacuum loses nothing).
		p.outbox.Deleted(taken)
	}
	return nil
}

// outboxRow is a write's events as versions before per-event rows
// recorded them, not yet in the feed; Seq orders the writes.
type outboxRow struct {
	Seq    int64  `db:"seq"`
	Events string `db:"events"`
}

// maxEventRows bounds the rows of one INSERT of events (9 parameters each
// at most, well under SQLite's and PostgreSQL's limits).
const maxEventRows = 500

// sequenceCompany moves the company's events from the outbox to the feed,
// in recorded order after its last position, and returns the new last
// position and how many outbox rows it took. The company's counter row
// stays locked until the transaction ends.
func (p *Platform) sequenceCompany(ctx context.Context, tx *sqldb.Tx, company string) (last int64, taken int, err error) {
	last, err = advanceCounter(ctx, tx, company, 0)
	if err != nil {
		return 0, 0, err
	}
	last, legacy, err := sequenceArrays(ctx, tx, company, last)
	if err != nil {
		return 0, 0, err
	}
	moved, err := p.moveToFeed(ctx, tx, company, last)
	if err != nil || legacy+moved == 0 {
		return last, legacy + moved, err
	}
	last += int64(moved)
	_, err = sqldb.Exec(ctx, tx, `UPDATE "event_counters" SET "last" = ? WHERE "company" = ?`, last, company)
	return last, legacy + moved, err
}

// moveToFeed moves the outbox's events (rows with an id) to the feed in
// one statement, numbered in the order they were recorded after last,
// each payload given its position where position_at says, and returns how
// many it moved. Under the lock these are the events committed so far:
// on PostgreSQL the DELETE takes exactly the rows the INSERT moves (one
// snapshot); on SQLite nothing else commits while this holds the write lock.
func (p *Platform) moveToFeed(ctx context.Context, tx *sqldb.Tx, company string, last int64) (int, error) {
	move := func(payload, numbered string) string {
		return `INSERT INTO "events" ("company", "position", "id", "type", "register", "record_key", "occurred_at", "payload")
			SELECT "company", "pos", "id", "type", "register", "record_key", "occurred_at", ` + payload + `
			FROM (` + numbered + `) AS "numbered"`
	}
	if p.db.Dialect().Postgres() {
		// Writes recording at once may interleave seq values: a write's
		// events stay together, numbered by its first row, then by row.
		// The payload is cut as bytes: substr and length on text walk the
		// whole text (30 µs an event, three times the rest of the move);
		// only the part before the position is walked, to find "at".
		const payload = `convert_from(substring("bytes" FROM 2 FOR "at" - 2) || convert_to(CAST("pos" AS TEXT), 'UTF8')
			|| substring("bytes" FROM "at" + 1 FOR octet_length("bytes") - "at" - 1), 'UTF8')`
		const numbered = `SELECT *, ? + row_number() OVER (ORDER BY "write_seq", "seq") AS "pos"
			FROM (SELECT *, min("seq") OVER (PARTITION BY "write_id") AS "write_seq", convert_to("events", 'UTF8') AS "bytes",
				octet_length(convert_to(substr("events", 1, "position_at" - 1), 'UTF8')) + 1 AS "at" FROM "taken") AS "writes"`
		var moved int
		err := sqldb.Get(ctx, tx, &moved, `WITH "taken" AS (DELETE FROM "event_outbox" WHERE "company" = ? AND "id" IS NOT NULL RETURNING *),
			"moved" AS (`+move(payload, numbered)+` RETURNING 1)
			SELECT count(*) FROM "moved"`, company, last)
		return moved, err
	}
	// SQLite: one writer at a time, so a write's rows have consecutive
	// seq. Only an earlier version leaves rows here (recordInFeed).
	const payload = `substr("events", 2, "position_at" - 2) || CAST("pos" AS TEXT) || substr("events", "position_at" + 1, length("events") - "position_at" - 1)`
	const taken = `"event_outbox" WHERE "company" = ? AND "id" IS NOT NULL`
	moved, err := sqldb.ExecAffected(ctx, tx, move(payload, `SELECT *, ? + row_number() OVER (ORDER BY "seq") AS "pos" FROM `+taken), last, company)
	if err != nil || moved == 0 {
		return int(moved), err
	}
	_, err = sqldb.Exec(ctx, tx, `DELETE FROM `+taken, company)
	return int(moved), err
}

// sequenceArrays moves the outbox rows of versions before per-event rows
// (no id; events holds a JSON array of payloads) to the feed after last,
// and returns the new last position and how many rows it took. An
// upgraded database, or one shared with such a version, may have some.
func sequenceArrays(ctx context.Context, tx *sqldb.Tx, company string, last int64) (int64, int, error) {
	var pending []outboxRow
	if err := sqldb.Select(ctx, tx, &pending, `DELETE FROM "event_outbox" WHERE "company" = ? AND "id" IS NULL RETURNING "seq", "events"`, company); err != nil {
		return 0, 0, err
	}
	slices.SortFunc(pending, func(a, b outboxRow) int { return cmp.Compare(a.Seq, b.Seq) })
	var events []platform.Recorded
	for _, row := range pending {
		var written []platform.Recorded
		if err := json.Unmarshal([]byte(row.Events), &written); err != nil {
			return 0, 0, fmt.Errorf("sqlplatform: outbox row %d: %w", row.Seq, err)
		}
		events = append(events, written...)
	}
	rows := make([]feedRow, len(events))
	for i, ev := range events {
		last++
		ev.Position = last
		payload, err := json.Marshal(ev)
		if err != nil {
			return 0, 0, err
		}
		rows[i] = feedRow{ev.Position, ev.ID, ev.Type, ev.Register, ev.Key, ev.OccurredAt, string(payload)}
	}
	if err := insertFeed(ctx, tx, company, rows); err != nil {
		return 0, 0, err
	}
	if len(pending) > 0 {
		if _, err := sqldb.Exec(ctx, tx, `UPDATE "event_counters" SET "last" = ? WHERE "company" = ?`, last, company); err != nil {
			return 0, 0, err
		}
	}
	return last, len(pending), nil
}

// advanceCounter locks the company's event counter row until the
// transaction ends, making it on the company's first event, and moves its
// last position n further, returning the new last.
func advanceCounter(ctx context.Context, tx *sqldb.Tx, company string, n int) (int64, error) {
	var last int64
	for range 2 {
		err := sqldb.Get(ctx, tx, &last, `UPDATE "event_counters" SET "last" = "last" + ? WHERE "company" = ? RETURNING "last"`, n, company)
		if !errors.Is(err, sql.ErrNoRows) {
			return last, err
		}
		// A parallel first sequencer may make it too; the UPDATE waits for it.
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
	if err := p.sequence(ctx, company); err != nil {
		return engine.EventPage{}, err
	}
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

// typeCondition selects events of the given types or patterns as
// engine.MatchEventType matches them ("*", "task.*"). The prefix is
// compared exactly (LIKE folds case on SQLite and takes _ as a wildcard).
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

// PruneEvents deletes events recorded before the given time and notes, per
// company, the last position pruned: a cursor below it answers
// engine.ErrCursorExpired. It deletes the oldest first, pruneChunk events
// a transaction, found through the occurred_at index: one statement over
// half a million events held SQLite's write lock for seconds.
func (p *Platform) PruneEvents(ctx context.Context, before time.Time) (int, error) {
	if err := p.sequence(ctx, ""); err != nil { // an event is kept for the retention in the feed, not the outbox
		return 0, err
	}
	cut := sqldb.FormatTime(before)
	pruned := 0
	for {
		var gone []struct {
			Company  string `db:"company"`
			Position int64  `db:"position"`
		}
		err := p.db.Write(ctx, func(ctx context.Context, tx *sqldb.Tx) error {
			if err := sqldb.Select(ctx, tx, &gone, `DELETE FROM "events" WHERE ("company", "position") IN
				(SELECT "company", "position" FROM "events" WHERE "occurred_at" < ? ORDER BY "occurred_at" LIMIT ?)
				RETURNING "company", "position"`, cut, p.pruneChunk); err != nil {
				return err
			}
			// A mark only moves forward (two processes' clocks may disagree,
			// and a cursor must not slip through). Companies in order, so two
			// pruners lock their rows in one order.
			marks := map[string]int64{}
			for _, g := range gone {
				marks[g.Company] = max(marks[g.Company], g.Position)
			}
			for _, company := range slices.Sorted(maps.Keys(marks)) {
				if _, err := sqldb.Exec(ctx, tx, `UPDATE "event_counters" SET "pruned_through" = ? WHERE "company" = ? AND "pruned_through" < ?`,
					marks[company], company, marks[company]); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return pruned, err
		}
		pruned += len(gone)
		if len(gone) < p.pruneChunk {
			return pruned, nil
		}
	}
}
