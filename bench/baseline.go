package main

import (
	"cmp"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // driver "pgx"
	"github.com/jmoiron/sqlx"
	_ "modernc.org/sqlite" // driver "sqlite"
)

// The baseline is what an engineer would write by hand for the same calls
// on the same database: net/http, sqlx and the table layout known in
// advance, no catalog and no rules, but the same work a request needs.
// It checks the bearer and reads the same rows (a task with its material
// and time lines and its extra fields; the list total as the engine
// counts it: the record_counts row plus the record_count_deltas rows).
// Each write is one transaction that does what the engine's does:
//
//   - replays an Idempotency-Key seen before, and stores its answer
//     (in its own table, baseline_idempotency) in the write's transaction;
//   - POST checks its references, the customer and every product and time
//     type named (one query per register), takes the task's number as the
//     engine does on the database (a sequence of the series on
//     PostgreSQL, the number_series upsert on SQLite), inserts the task
//     and each line list in one multi-row statement;
//   - PATCH changes the note and reads the task back with its lines;
//   - writes the engine's change_log rows for the write (for a create: a
//     line's create and its "create line" on the task for every line,
//     then the task's create; for a PATCH its update), in one statement;
//   - counts what it created as the engine does: delta rows in
//     record_count_deltas (one statement), merged into record_counts
//     every 256 of them in one short transaction.
//
// It writes no event (the engine's event_outbox row carries the whole
// record, which a hand-written server would not build) and checks no
// permissions beyond the one bearer. Both servers share the database, so
// numbers and counts must stay right for either.
//
// It runs as its own process ("bench baseline ..."), so its memory is
// measured apart from the load generator's.

// baselineMain serves the baseline until killed. It prints
// "listening http://ADDR" on stdout once it accepts connections.
func baselineMain(args []string) error {
	fs := flag.NewFlagSet("baseline", flag.ExitOnError)
	dsn := fs.String("db", "", "database, as fieldapi takes it")
	addr := fs.String("addr", "127.0.0.1:0", "listen address")
	key := fs.String("key", "", "the only bearer accepted")
	company := fs.String("company", "demo", "company served")
	clientID := fs.String("client-id", "bench", "client id of the key, for the change log")
	fs.Parse(args)
	db, err := openBaselineDB(*dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TABLE IF NOT EXISTS baseline_idempotency (
		key TEXT PRIMARY KEY, status INTEGER NOT NULL, body TEXT NOT NULL)`); err != nil {
		return err
	}
	b := &baseline{db: db, key: *key, company: *company, clientID: *clientID,
		postgres: db.DriverName() == "pgx", sequence: seriesSequence(*company, "tasks")}
	if b.postgres {
		if err := b.ensureSequence(context.Background()); err != nil {
			return fmt.Errorf("the task number sequence: %w", err)
		}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/tasks/{nr}", b.getTask)
	mux.HandleFunc("GET /v1/tasks", b.listTasks)
	mux.HandleFunc("POST /v1/tasks", b.createTask)
	mux.HandleFunc("PATCH /v1/tasks/{nr}", b.patchTask)
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	fmt.Printf("listening http://%s\n", ln.Addr())
	return http.Serve(ln, b.auth(mux))
}

// openBaselineDB opens the database with the pool and SQLite settings
// fieldapi uses (WAL, busy timeout, write lock taken up front).
func openBaselineDB(dsn string) (*sqlx.DB, error) {
	var db *sqlx.DB
	var err error
	if path, ok := strings.CutPrefix(dsn, "sqlite:"); ok {
		db, err = sqlx.Open("sqlite", path+"?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate")
	} else {
		db, err = sqlx.Open("pgx", dsn)
	}
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(10)
	db.SetMaxIdleConns(10)
	return db, db.Ping()
}

type baseline struct {
	db       *sqlx.DB
	key      string
	company  string
	clientID string
	postgres bool
	sequence string       // PostgreSQL: the task series' sequence
	unmerged atomic.Int64 // count delta rows written since the last merge
}

func (b *baseline) auth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		given := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		if subtle.ConstantTimeCompare([]byte(given), []byte(b.key)) != 1 {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// row is one row by column name, text as text.
type row map[string]any

func scanRows(rows *sqlx.Rows) ([]row, error) {
	defer rows.Close()
	var out []row
	for rows.Next() {
		m := row{}
		if err := rows.MapScan(m); err != nil {
			return nil, err
		}
		for k, v := range m {
			if bs, ok := v.([]byte); ok {
				m[k] = string(bs)
			}
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// queryer is the pool or a transaction.
type queryer interface {
	QueryxContext(ctx context.Context, query string, args ...any) (*sqlx.Rows, error)
	Rebind(query string) string
}

func query(ctx context.Context, q queryer, text string, args ...any) ([]row, error) {
	rows, err := q.QueryxContext(ctx, q.Rebind(text), args...)
	if err != nil {
		return nil, err
	}
	return scanRows(rows)
}

// withLines adds each task's material and time lines and extra fields,
// one query each for the whole page, as a careful hand-written list does.
func (b *baseline) withLines(ctx context.Context, q queryer, tasks []row) error {
	if len(tasks) == 0 {
		return nil
	}
	nrs := make([]any, 0, len(tasks))
	seqs := make([]any, 0, len(tasks))
	byNr := map[string]row{}
	bySeq := map[int64]row{}
	for _, t := range tasks {
		nr, _ := t["nr"].(string)
		seq, _ := t["seq"].(int64)
		nrs, seqs = append(nrs, nr), append(seqs, seq)
		byNr[nr], bySeq[seq] = t, t
		t["materials"], t["times"], t["extra_fields"] = []row{}, []row{}, map[string]string{}
	}
	for _, list := range []string{"materials", "times"} {
		lines, err := query(ctx, q, `SELECT * FROM `+list+` WHERE company = ? AND owner_type = 'task' AND owner_nr IN (`+inList(len(nrs))+`) ORDER BY seq`,
			append([]any{b.company}, nrs...)...)
		if err != nil {
			return err
		}
		for _, l := range lines {
			owner, _ := l["owner_nr"].(string)
			if t := byNr[owner]; t != nil {
				t[list] = append(t[list].([]row), l)
			}
		}
	}
	extra, err := query(ctx, q, `SELECT record_seq, key, value FROM extra_field_values WHERE company = ? AND register = 'tasks' AND record_seq IN (`+inList(len(seqs))+`)`,
		append([]any{b.company}, seqs...)...)
	if err != nil {
		return err
	}
	for _, e := range extra {
		seq, _ := e["record_seq"].(int64)
		if t := bySeq[seq]; t != nil {
			t["extra_fields"].(map[string]string)[e["key"].(string)] = e["value"].(string)
		}
	}
	return nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func fail(w http.ResponseWriter, err error) {
	http.Error(w, err.Error(), http.StatusInternalServerError)
}

func (b *baseline) getTask(w http.ResponseWriter, r *http.Request) {
	tasks, err := query(r.Context(), b.db, `SELECT * FROM tasks WHERE company = ? AND nr = ?`, b.company, r.PathValue("nr"))
	if err == nil {
		err = b.withLines(r.Context(), b.db, tasks)
	}
	switch {
	case err != nil:
		fail(w, err)
	case len(tasks) == 0:
		http.Error(w, "not found", http.StatusNotFound)
	default:
		writeJSON(w, http.StatusOK, tasks[0])
	}
}

// listTasks pages newest first by seq: ?after=SEQ continues a walk (the
// total is not counted again, as fieldapi's cursor carries it), and
// ?customerNr= filters (counted from its index).
func (b *baseline) listTasks(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	where, args := ` WHERE company = ?`, []any{b.company}
	if c := r.URL.Query().Get("customerNr"); c != "" {
		where += ` AND customer_nr = ?`
		args = append(args, c)
	}
	page := where
	pageArgs := append([]any{}, args...)
	after := r.URL.Query().Get("after")
	if after != "" {
		page += ` AND seq < ?`
		pageArgs = append(pageArgs, after)
	}
	tasks, err := query(ctx, b.db, `SELECT * FROM tasks`+page+` ORDER BY seq DESC LIMIT 51`, pageArgs...)
	if err != nil {
		fail(w, err)
		return
	}
	var next *int64
	if len(tasks) > 50 {
		tasks = tasks[:50]
		seq := tasks[49]["seq"].(int64)
		next = &seq
	}
	if err := b.withLines(ctx, b.db, tasks); err != nil {
		fail(w, err)
		return
	}
	var total *int64
	if after == "" {
		var n int64
		if len(args) == 1 {
			err = b.db.GetContext(ctx, &n, b.db.Rebind(countQuery), b.company, b.company)
		} else {
			err = b.db.GetContext(ctx, &n, b.db.Rebind(`SELECT COUNT(*) FROM tasks`+where), args...)
		}
		if err != nil {
			fail(w, err)
			return
		}
		total = &n
	}
	writeJSON(w, http.StatusOK, map[string]any{"items": tasks, "nextCursor": next, "total": total})
}

// countQuery reads the company's count of tasks as the engine keeps it:
// its record_counts row plus its record_count_deltas rows not merged yet.
const countQuery = `SELECT CAST(COALESCE(SUM(n), 0) AS BIGINT) FROM (
	SELECT n FROM record_counts WHERE company = ? AND register = 'tasks'
	UNION ALL SELECT n FROM record_count_deltas WHERE company = ? AND register = 'tasks') AS counted`

type taskBody struct {
	CustomerNr string `json:"customerNr"`
	TaskText   string `json:"taskText"`
	TaskNote   string `json:"taskNote"`
	Materials  []struct {
		ProductNr string  `json:"productNr"`
		Quantity  float64 `json:"quantity"`
	} `json:"materials"`
	Times []struct {
		TimeType string  `json:"timeType"`
		Hours    float64 `json:"hours"`
	} `json:"times"`
}

// refused is a write refused for its content (a reference that does not
// exist): answered 422, nothing written.
type refused string

func (r refused) Error() string { return string(r) }

// inWriteTx runs a write once per Idempotency-Key: a key seen before
// replays the stored answer; otherwise fn runs with the decoded body and
// the time of the write, and its answer is stored in the same transaction.
// The change-log rows and count deltas fn notes are written just before
// the commit, each list in one statement, as the engine does.
func (b *baseline) inWriteTx(w http.ResponseWriter, r *http.Request, fn func(ctx context.Context, tx *sqlx.Tx, in taskBody, wr *baselineWrite) (int, any, error)) {
	var in taskBody
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	wr := &baselineWrite{now: time.Now().UTC().Format("2006-01-02T15:04:05.000000Z")}
	idemKey := r.Header.Get("Idempotency-Key")
	if idemKey == "" {
		http.Error(w, "Idempotency-Key required", http.StatusBadRequest)
		return
	}
	scoped := r.Method + " " + r.URL.Path + " " + idemKey
	sum := sha256.Sum256([]byte(scoped))
	scoped = hex.EncodeToString(sum[:])
	ctx := r.Context()
	tx, err := b.db.BeginTxx(ctx, nil)
	if err != nil {
		fail(w, err)
		return
	}
	defer tx.Rollback()
	var stored struct {
		Status int    `db:"status"`
		Body   string `db:"body"`
	}
	err = tx.GetContext(ctx, &stored, tx.Rebind(`SELECT status, body FROM baseline_idempotency WHERE key = ?`), scoped)
	if err == nil {
		w.Header().Set("Idempotency-Replayed", "true")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(stored.Status)
		io.WriteString(w, stored.Body)
		return
	}
	if !errors.Is(err, sql.ErrNoRows) {
		fail(w, err)
		return
	}
	status, reply, err := fn(ctx, tx, in, wr)
	var why refused
	if errors.As(err, &why) {
		status, reply, err = http.StatusUnprocessableEntity, map[string]string{"error": string(why)}, nil
		wr.logs, wr.counts = nil, nil // a refusal writes nothing but its answer
	}
	if err == nil {
		err = b.flush(ctx, tx, wr)
	}
	if err != nil {
		fail(w, err)
		return
	}
	body, _ := json.Marshal(reply)
	if _, err := tx.ExecContext(ctx, tx.Rebind(`INSERT INTO baseline_idempotency (key, status, body) VALUES (?, ?, ?)`), scoped, status, string(body)); err != nil {
		fail(w, err)
		return
	}
	if err := tx.Commit(); err != nil {
		fail(w, err)
		return
	}
	b.noteDeltas(ctx, len(wr.counts))
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(body)
}

// baselineWrite is what a write notes for its end: its time, its
// change-log rows and its count changes.
type baselineWrite struct {
	now    string
	logs   []logRow
	counts []countDelta
}

// logRow is one change_log row, as the engine writes it (engine/pipeline/write/changelog.go).
type logRow struct{ register, key, action, detail string }

type countDelta struct {
	register string
	n        int
}

// flush writes the noted change-log rows and count deltas, one
// multi-row INSERT each.
func (b *baseline) flush(ctx context.Context, tx *sqlx.Tx, wr *baselineWrite) error {
	if len(wr.logs) > 0 {
		args := make([]any, 0, 8*len(wr.logs))
		for _, l := range wr.logs {
			args = append(args, b.company, l.register, l.key, "API", b.clientID, true, l.action, l.detail, wr.now)
		}
		if _, err := tx.ExecContext(ctx, tx.Rebind(`INSERT INTO change_log (company, register, record_key, sign, client_id, via_api, action, detail, at) VALUES `+
			valueRows(len(wr.logs), 9)), args...); err != nil {
			return err
		}
	}
	if len(wr.counts) > 0 {
		args := make([]any, 0, 3*len(wr.counts))
		for _, c := range wr.counts {
			args = append(args, b.company, c.register, c.n)
		}
		if _, err := tx.ExecContext(ctx, tx.Rebind(`INSERT INTO record_count_deltas (company, register, n) VALUES `+valueRows(len(wr.counts), 3)), args...); err != nil {
			return err
		}
	}
	return nil
}

// valueRows is "(?, ?), (?, ?)" for rows of columns placeholders.
func valueRows(rows, columns int) string {
	row := "(" + strings.TrimSuffix(strings.Repeat("?, ", columns), ", ") + ")"
	return strings.TrimSuffix(strings.Repeat(row+", ", rows), ", ")
}

// mergeEvery is the engine's (engine/store/sqlstore/counts.go): after as
// many delta rows, they are added to record_counts in one short
// transaction, so a list total sums a handful of rows.
const mergeEvery = 256

func (b *baseline) noteDeltas(ctx context.Context, n int) {
	if n == 0 || b.unmerged.Add(int64(n)) < mergeEvery {
		return
	}
	b.unmerged.Store(0)
	if err := b.mergeCounts(context.WithoutCancel(ctx)); err != nil {
		fmt.Fprintln(os.Stderr, "baseline: merge counts:", err) // left to the next merge, as the engine does
	}
}

// mergeCounts adds every delta row to its count row and deletes it.
func (b *baseline) mergeCounts(ctx context.Context) error {
	tx, err := b.db.BeginTxx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var deltas []struct {
		Company  string `db:"company"`
		Register string `db:"register"`
		N        int64  `db:"n"`
	}
	if err := tx.SelectContext(ctx, &deltas, `DELETE FROM record_count_deltas RETURNING company, register, n`); err != nil {
		return err
	}
	type key struct{ company, register string }
	sums := map[key]int64{}
	for _, d := range deltas {
		sums[key{d.Company, d.Register}] += d.N
	}
	keys := slices.SortedFunc(maps.Keys(sums), func(a, b key) int {
		return cmp.Or(cmp.Compare(a.company, b.company), cmp.Compare(a.register, b.register))
	})
	// Sorted, so parallel merges (the engine's too) lock the count rows in one order.
	for _, k := range keys {
		if _, err := tx.ExecContext(ctx, tx.Rebind(`INSERT INTO record_counts (company, register, n) VALUES (?, ?, ?)
			ON CONFLICT (company, register) DO UPDATE SET n = record_counts.n + excluded.n`), k.company, k.register, sums[k]); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// nextTaskNumber takes the company's next task number the way the engine
// does on each database (engine/store/sqlstore/counts.go, NextNumbers):
// nextval of the series' own sequence on PostgreSQL, the upsert of its
// number_series row on SQLite.
func (b *baseline) nextTaskNumber(ctx context.Context, tx *sqlx.Tx) (int64, error) {
	var nr int64
	if b.postgres {
		err := tx.GetContext(ctx, &nr, `SELECT nextval(CAST($1 AS regclass))`, b.sequence)
		return nr, err
	}
	err := tx.GetContext(ctx, &nr, `INSERT INTO number_series (company, register, next) VALUES (?, 'tasks', 2)
		ON CONFLICT (company, register) DO UPDATE SET next = number_series.next + 1
		RETURNING next - 1`, b.company)
	return nr, err
}

// seriesSequence is the name of the PostgreSQL sequence of a company's
// number series, derived as the engine derives it (Tx.sequence in
// engine/store/sqlstore/counts.go; unexported there, hence the copy).
func seriesSequence(company, series string) string {
	sum := sha256.Sum256([]byte(company + "\x00" + series))
	return "number_" + hex.EncodeToString(sum[:12])
}

// ensureSequence creates the task series' sequence when the engine has
// not yet, as the engine would: starting where number_series left the
// series (1 when it has no row).
func (b *baseline) ensureSequence(ctx context.Context) error {
	var exists bool
	if err := b.db.GetContext(ctx, &exists, `SELECT to_regclass($1) IS NOT NULL`, b.sequence); err != nil || exists {
		return err
	}
	var start []int64
	if err := b.db.SelectContext(ctx, &start, `SELECT next FROM number_series WHERE company = $1 AND register = 'tasks'`, b.company); err != nil {
		return err
	}
	first := int64(1)
	if len(start) == 1 {
		first = max(start[0], 1)
	}
	_, err := b.db.ExecContext(ctx, fmt.Sprintf(`CREATE SEQUENCE IF NOT EXISTS %q START WITH %d`, b.sequence, first))
	return err
}

// inList is n placeholders for an IN list.
func inList(n int) string { return strings.TrimSuffix(strings.Repeat("?,", n), ",") }

// createTask checks the references (the customer; every product and time
// type named, one query each), takes the task's number, inserts the task
// and each line list in one statement, and notes the change-log rows
// (each line's create and its "create line" on the task, then the task's
// create) and the count deltas of tasks, materials and times.
func (b *baseline) createTask(w http.ResponseWriter, r *http.Request) {
	b.inWriteTx(w, r, func(ctx context.Context, tx *sqlx.Tx, in taskBody, wr *baselineWrite) (int, any, error) {
		var customer string
		err := tx.GetContext(ctx, &customer, tx.Rebind(`SELECT name FROM customers WHERE company = ? AND nr = ?`), b.company, in.CustomerNr)
		if errors.Is(err, sql.ErrNoRows) {
			return 0, nil, refused("customer " + in.CustomerNr + " does not exist")
		} else if err != nil {
			return 0, nil, err
		}
		type product struct {
			Nr    string   `db:"nr"`
			Name  string   `db:"name"`
			Unit  *string  `db:"unit"`
			Price *float64 `db:"base_price"`
		}
		products := map[string]product{}
		if len(in.Materials) > 0 {
			args := []any{b.company}
			for _, m := range in.Materials {
				args = append(args, m.ProductNr)
			}
			var found []product
			if err := tx.SelectContext(ctx, &found, tx.Rebind(`SELECT nr, name, unit, base_price FROM products WHERE company = ? AND nr IN (`+inList(len(in.Materials))+`)`), args...); err != nil {
				return 0, nil, err
			}
			for _, p := range found {
				products[p.Nr] = p
			}
			for _, m := range in.Materials {
				if _, ok := products[m.ProductNr]; !ok {
					return 0, nil, refused("product " + m.ProductNr + " does not exist")
				}
			}
		}
		if len(in.Times) > 0 {
			args := []any{b.company}
			for _, t := range in.Times {
				args = append(args, t.TimeType)
			}
			var found []string
			if err := tx.SelectContext(ctx, &found, tx.Rebind(`SELECT name FROM timetypes WHERE company = ? AND name IN (`+inList(len(in.Times))+`)`), args...); err != nil {
				return 0, nil, err
			}
			for _, t := range in.Times {
				if !slices.Contains(found, t.TimeType) {
					return 0, nil, refused("time type " + t.TimeType + " does not exist")
				}
			}
		}
		nr, err := b.nextTaskNumber(ctx, tx)
		if err != nil {
			return 0, nil, err
		}
		taskNr := strconv.FormatInt(nr, 10)
		var seq int64
		err = tx.GetContext(ctx, &seq, tx.Rebind(`INSERT INTO tasks (company, modified, nr, customer_nr, customer_name, task_text, status, owner_sign, created_by, created_date, user_signs, assignee_statuses)
			VALUES (?, ?, ?, ?, ?, ?, 'Planned', 'API', 'API', ?, '["API"]', '{"API":"Planned"}') RETURNING seq`),
			b.company, wr.now, taskNr, in.CustomerNr, customer, in.TaskText, wr.now[:10])
		if err != nil {
			return 0, nil, err
		}
		reply := map[string]any{"nr": taskNr, "id": seq, "status": "Planned"}
		materials, times := []map[string]any{}, []map[string]any{}
		if len(in.Materials) > 0 {
			args := make([]any, 0, 9*len(in.Materials))
			for _, m := range in.Materials {
				p := products[m.ProductNr]
				args = append(args, b.company, wr.now, taskNr, "task", m.ProductNr, p.Name, p.Unit, m.Quantity, p.Price)
			}
			var ids []int64
			if err := tx.SelectContext(ctx, &ids, tx.Rebind(`INSERT INTO materials (company, modified, owner_nr, owner_type, product_nr, product_name, unit, quantity, price)
				VALUES `+valueRows(len(in.Materials), 9)+` RETURNING seq`), args...); err != nil {
				return 0, nil, err
			}
			for i, id := range ids {
				materials = append(materials, map[string]any{"id": id, "productNr": in.Materials[i].ProductNr})
				wr.logLine("materials", id, "ProductNr, Quantity", taskNr)
			}
			wr.counts = append(wr.counts, countDelta{"materials", len(ids)})
		}
		if len(in.Times) > 0 {
			args := make([]any, 0, 6*len(in.Times))
			for _, t := range in.Times {
				args = append(args, b.company, wr.now, taskNr, "task", t.TimeType, t.Hours)
			}
			var ids []int64
			if err := tx.SelectContext(ctx, &ids, tx.Rebind(`INSERT INTO times (company, modified, owner_nr, owner_type, time_type, hours)
				VALUES `+valueRows(len(in.Times), 6)+` RETURNING seq`), args...); err != nil {
				return 0, nil, err
			}
			for i, id := range ids {
				times = append(times, map[string]any{"id": id, "timeType": in.Times[i].TimeType})
				wr.logLine("times", id, "TimeType, Hours", taskNr)
			}
			wr.counts = append(wr.counts, countDelta{"times", len(ids)})
		}
		wr.logs = append(wr.logs, logRow{"tasks", taskNr, "create", "CustomerNr, TaskText"})
		wr.counts = append(wr.counts, countDelta{"tasks", 1})
		reply["materials"], reply["times"] = materials, times
		return http.StatusCreated, reply, nil
	})
}

// logLine notes a line's create and its "create line" on the task, as the
// engine logs a line of an owner.
func (wr *baselineWrite) logLine(register string, id int64, detail, taskNr string) {
	key := strconv.FormatInt(id, 10)
	wr.logs = append(wr.logs, logRow{register, key, "create", detail},
		logRow{"tasks", taskNr, "create line", register + " " + key + ": " + detail})
}

// patchTask changes the note, notes the update in the change log and
// answers the task with its lines, read in the transaction.
func (b *baseline) patchTask(w http.ResponseWriter, r *http.Request) {
	b.inWriteTx(w, r, func(ctx context.Context, tx *sqlx.Tx, in taskBody, wr *baselineWrite) (int, any, error) {
		nr := r.PathValue("nr")
		res, err := tx.ExecContext(ctx, tx.Rebind(`UPDATE tasks SET task_note = ?, modified = ? WHERE company = ? AND nr = ?`),
			in.TaskNote, wr.now, b.company, nr)
		if err != nil {
			return 0, nil, err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return http.StatusNotFound, map[string]string{"error": "not found"}, nil
		}
		tasks, err := query(ctx, tx, `SELECT * FROM tasks WHERE company = ? AND nr = ?`, b.company, nr)
		if err == nil {
			err = b.withLines(ctx, tx, tasks)
		}
		if err != nil || len(tasks) == 0 {
			return 0, nil, fmt.Errorf("read back: %v", err)
		}
		wr.logs = append(wr.logs, logRow{"tasks", nr, "update", "TaskNote"})
		return http.StatusOK, tasks[0], nil
	})
}

// isBaselineCommand reports whether the process was started as the baseline.
func isBaselineCommand() bool { return len(os.Args) > 1 && os.Args[1] == "baseline" }
