package main

import (
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
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // driver "pgx"
	"github.com/jmoiron/sqlx"
	_ "modernc.org/sqlite" // driver "sqlite"
)

// The baseline is what an engineer would write by hand for the same calls
// on the same database: net/http, sqlx and the table layout known in
// advance, no catalog, no rules, no change log. It checks the bearer,
// reads the same rows (a task with its material and time lines and its
// extra fields; the list total from the engine's record_counts, as the
// engine does) and writes in one raw transaction with its own
// Idempotency-Key table, keeping the engine's number series and record
// counts right so both servers can share the database.
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
	b := &baseline{db: db, key: *key, company: *company}
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
	db      *sqlx.DB
	key     string
	company string
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
	in := func(n int) string { return strings.TrimSuffix(strings.Repeat("?,", n), ",") }
	for _, list := range []string{"materials", "times"} {
		lines, err := query(ctx, q, `SELECT * FROM `+list+` WHERE company = ? AND owner_type = 'task' AND owner_nr IN (`+in(len(nrs))+`) ORDER BY seq`,
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
	extra, err := query(ctx, q, `SELECT record_seq, key, value FROM extra_field_values WHERE company = ? AND register = 'tasks' AND record_seq IN (`+in(len(seqs))+`)`,
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
			err = b.db.GetContext(ctx, &n, b.db.Rebind(`SELECT n FROM record_counts WHERE company = ? AND register = 'tasks'`), b.company)
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

// inWriteTx runs a write once per Idempotency-Key: a key seen before
// replays the stored answer; otherwise fn runs with the decoded body and
// the time of the write, and its answer is stored in the same transaction.
func (b *baseline) inWriteTx(w http.ResponseWriter, r *http.Request, fn func(ctx context.Context, tx *sqlx.Tx, in taskBody, now string) (int, any, error)) {
	var in taskBody
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	now := time.Now().UTC().Format("2006-01-02T15:04:05.000000Z")
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
	status, reply, err := fn(ctx, tx, in, now)
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
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(body)
}

func (b *baseline) createTask(w http.ResponseWriter, r *http.Request) {
	b.inWriteTx(w, r, func(ctx context.Context, tx *sqlx.Tx, in taskBody, now string) (int, any, error) {
		var customer string
		if err := tx.GetContext(ctx, &customer, tx.Rebind(`SELECT name FROM customers WHERE company = ? AND nr = ?`), b.company, in.CustomerNr); err != nil {
			return 0, nil, err
		}
		var nr int64
		if err := tx.GetContext(ctx, &nr, tx.Rebind(`UPDATE number_series SET next = next + 1 WHERE company = ? AND register = 'tasks' RETURNING next - 1`), b.company); err != nil {
			return 0, nil, err
		}
		taskNr := strconv.FormatInt(nr, 10)
		var seq int64
		err := tx.GetContext(ctx, &seq, tx.Rebind(`INSERT INTO tasks (company, modified, nr, customer_nr, customer_name, task_text, status, owner_sign, created_by, created_date, user_signs, assignee_statuses)
			VALUES (?, ?, ?, ?, ?, ?, 'Planned', 'API', 'API', ?, '["API"]', '{"API":"Planned"}') RETURNING seq`),
			b.company, now, taskNr, in.CustomerNr, customer, in.TaskText, now[:10])
		if err != nil {
			return 0, nil, err
		}
		reply := map[string]any{"nr": taskNr, "id": seq, "status": "Planned"}
		var materials, times []map[string]any
		for _, m := range in.Materials {
			var p struct {
				Name  string   `db:"name"`
				Unit  *string  `db:"unit"`
				Price *float64 `db:"base_price"`
			}
			if err := tx.GetContext(ctx, &p, tx.Rebind(`SELECT name, unit, base_price FROM products WHERE company = ? AND nr = ?`), b.company, m.ProductNr); err != nil {
				return 0, nil, err
			}
			var id int64
			err := tx.GetContext(ctx, &id, tx.Rebind(`INSERT INTO materials (company, modified, owner_nr, owner_type, product_nr, product_name, unit, quantity, price)
				VALUES (?, ?, ?, 'task', ?, ?, ?, ?, ?) RETURNING seq`), b.company, now, taskNr, m.ProductNr, p.Name, p.Unit, m.Quantity, p.Price)
			if err != nil {
				return 0, nil, err
			}
			materials = append(materials, map[string]any{"id": id, "productNr": m.ProductNr})
		}
		for _, t := range in.Times {
			var id int64
			err := tx.GetContext(ctx, &id, tx.Rebind(`INSERT INTO times (company, modified, owner_nr, owner_type, time_type, hours)
				VALUES (?, ?, ?, 'task', ?, ?) RETURNING seq`), b.company, now, taskNr, t.TimeType, t.Hours)
			if err != nil {
				return 0, nil, err
			}
			times = append(times, map[string]any{"id": id, "timeType": t.TimeType})
		}
		for register, n := range map[string]int{"tasks": 1, "materials": len(materials), "times": len(times)} {
			if n == 0 {
				continue
			}
			if _, err := tx.ExecContext(ctx, tx.Rebind(`UPDATE record_counts SET n = n + ? WHERE company = ? AND register = ?`), n, b.company, register); err != nil {
				return 0, nil, err
			}
		}
		reply["materials"], reply["times"] = materials, times
		return http.StatusCreated, reply, nil
	})
}

func (b *baseline) patchTask(w http.ResponseWriter, r *http.Request) {
	b.inWriteTx(w, r, func(ctx context.Context, tx *sqlx.Tx, in taskBody, now string) (int, any, error) {
		res, err := tx.ExecContext(ctx, tx.Rebind(`UPDATE tasks SET task_note = ?, modified = ? WHERE company = ? AND nr = ?`),
			in.TaskNote, now, b.company, r.PathValue("nr"))
		if err != nil {
			return 0, nil, err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return http.StatusNotFound, map[string]string{"error": "not found"}, nil
		}
		tasks, err := query(ctx, tx, `SELECT * FROM tasks WHERE company = ? AND nr = ?`, b.company, r.PathValue("nr"))
		if err == nil {
			err = b.withLines(ctx, tx, tasks)
		}
		if err != nil || len(tasks) == 0 {
			return 0, nil, fmt.Errorf("read back: %v", err)
		}
		return http.StatusOK, tasks[0], nil
	})
}

// isBaselineCommand reports whether the process was started as the baseline.
func isBaselineCommand() bool { return len(os.Args) > 1 && os.Args[1] == "baseline" }
