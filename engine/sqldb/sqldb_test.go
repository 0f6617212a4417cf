package sqldb

import (
	"bytes"
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"fieldapi/engine"
	"fieldapi/engine/sqldb/health"
)

// postgresEnv names the PostgreSQL the tests also run against, e.g.
// postgres://postgres@127.0.0.1:5432/test?sslmode=disable.
const postgresEnv = "FIELDAPI_TEST_POSTGRES"

// unreachablePostgres is a PostgreSQL address nobody answers.
const unreachablePostgres = "postgres://postgres@127.0.0.1:1/test?sslmode=disable&connect_timeout=2"

type backend struct {
	name string
	dsn  string
}

// backends are a SQLite file of the test and, with FIELDAPI_TEST_POSTGRES,
// that PostgreSQL (these tests create no table).
func backends(t *testing.T) []backend {
	list := []backend{{"sqlite", "sqlite:" + filepath.Join(t.TempDir(), "sqldb.db")}}
	if pg := os.Getenv(postgresEnv); pg != "" {
		return append(list, backend{"postgres", pg})
	}
	t.Logf("%s is not set: PostgreSQL runs are skipped", postgresEnv)
	return list
}

func open(t *testing.T, dsn string, opt Options) *DB {
	t.Helper()
	db, err := Open(context.Background(), dsn, opt)
	if err != nil {
		t.Fatalf("Open(%q): %v", dsn, err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// wireError is a pgconn I/O error: SafeToRetry says whether nothing of the
// statement was sent before the connection failed.
type wireError struct {
	safe bool
	err  error
}

func (e wireError) Error() string     { return fmt.Sprintf("wire (safe to retry: %v): %v", e.safe, e.err) }
func (e wireError) Unwrap() error     { return e.err }
func (e wireError) SafeToRetry() bool { return e.safe }

func pgCode(code string) *pgconn.PgError { return &pgconn.PgError{Code: code} }

func wrapped(err error) error { return fmt.Errorf("create customers: %w", err) }

func expired() context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 0)
	cancel()
	return ctx
}

func cancelled() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

// silenced is the context of a call the health probe ended.
func silenced() context.Context {
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(fmt.Errorf("%w: %w", health.ErrSilent, context.DeadlineExceeded))
	return ctx
}

// faultOf is the engine fault err carries, or nil.
func faultOf(err error) error {
	for _, fault := range []error{engine.ErrUnreachable, engine.ErrBusy, engine.ErrTimeout, context.Canceled} {
		if errors.Is(err, fault) {
			return fault
		}
	}
	return nil
}

// TestClassifyPostgresFaults: 503 (unreachable, busy) only when the
// database cannot have run the statement; 504 (timeout) when it may have;
// a write that failed before its COMMIT was sent wrote nothing (503); the
// engine's verdicts pass as they are.
func TestClassifyPostgresFaults(t *testing.T) {
	t.Parallel()
	db := &DB{dialect: postgresDialect}
	live := context.Background()
	for _, c := range []struct {
		name string
		ctx  context.Context
		err  error
		want error // the engine fault; nil: none
	}{
		{"connect refused", live, wrapped(&pgconn.ConnectError{}), engine.ErrUnreachable},
		{"connect timed out past the deadline", expired(), &pgconn.ConnectError{}, engine.ErrUnreachable},
		{"write failed before sending", live, wireError{true, syscall.ECONNRESET}, engine.ErrUnreachable},
		{"connection lost after sending", live, wireError{false, io.ErrUnexpectedEOF}, engine.ErrTimeout},
		{"raw EOF", live, io.EOF, engine.ErrTimeout},
		{"pool gave up on bad connections", live, driver.ErrBadConn, engine.ErrUnreachable},
		{"server shutting down", live, pgCode("57P01"), engine.ErrUnreachable},
		{"no such database", live, pgCode("3D000"), engine.ErrUnreachable},
		{"statement_timeout", live, pgCode("57014"), engine.ErrTimeout},
		{"serialization failure", live, pgCode("40001"), engine.ErrBusy},
		{"too many connections", live, pgCode("53300"), engine.ErrBusy},
		{"lock not available", live, pgCode("55P03"), engine.ErrBusy},
		{"deadline passed mid-statement", expired(), wrapped(context.DeadlineExceeded), engine.ErrTimeout},
		{"caller gave up", cancelled(), context.Canceled, context.Canceled},
		{"unique violation is no fault", live, pgCode("23505"), nil},
		{"refusal passes", live, engine.Refuse("no"), nil},
		// A write transaction that failed before its COMMIT was sent wrote nothing: 503.
		{"deadline passed before COMMIT", expired(), nothingWritten(wrapped(context.DeadlineExceeded)), engine.ErrBusy},
		{"connection lost before COMMIT", live, nothingWritten(wireError{false, io.ErrUnexpectedEOF}), engine.ErrBusy},
		{"unreachable before COMMIT", live, nothingWritten(&pgconn.ConnectError{}), engine.ErrUnreachable},
		{"refusal before COMMIT passes", live, nothingWritten(engine.Refuse("no")), nil},
		// A read wrote nothing either: 503 whatever ended it.
		{"read past the deadline", expired(), nothingWritten(wrapped(context.DeadlineExceeded)), engine.ErrBusy},
		{"read lost its connection", live, nothingWritten(wireError{false, io.ErrUnexpectedEOF}), engine.ErrBusy},
		// The health probe ended the call: the server went silent.
		{"silent server mid-statement", silenced(), wrapped(context.Canceled), engine.ErrTimeout},
		{"silent server before COMMIT", silenced(), nothingWritten(wrapped(context.Canceled)), engine.ErrUnreachable},
		{"silent server mid-read", silenced(), nothingWritten(wrapped(context.Canceled)), engine.ErrUnreachable},
		{"silent server while connecting", silenced(), &pgconn.ConnectError{}, engine.ErrUnreachable},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := db.classify(c.ctx, c.err)
			if !errors.Is(got, c.err) {
				t.Fatalf("classify lost the driver error: %v", got)
			}
			if faultOf(got) != c.want {
				t.Fatalf("classify(%v) = %v, want %v", c.err, got, c.want)
			}
		})
	}
	// The engine's verdicts are never faults, not even past the deadline.
	for _, verdict := range []error{engine.Refuse("no"), &engine.PermissionError{Sign: "X", Action: "write x"},
		engine.ErrNotFound, engine.ErrPreconditionFailed, engine.ErrClaimLost} {
		if got := db.classify(expired(), verdict); got != verdict {
			t.Errorf("classify(%v) past the deadline = %v; want it as it is", verdict, got)
		}
	}
}

// TestStatementTimeout: a call running past Options.StatementTimeout
// ends without waiting for the statement to end. One that may have
// written answers engine.ErrTimeout; a read cannot have, and answers
// engine.ErrBusy (503, safe to retry), never ErrTimeout.
func TestStatementTimeout(t *testing.T) {
	t.Parallel()
	for _, b := range backends(t) {
		t.Run(b.name, func(t *testing.T) {
			db := open(t, b.dsn, Options{StatementTimeout: testStatementTimeout})
			slow := `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT COUNT(*) FROM (SELECT x FROM c LIMIT 1000000000) AS n`
			if db.Dialect().Postgres() {
				slow = `SELECT CAST(pg_sleep(5) AS TEXT)`
			}
			run := func(ctx context.Context, q Querier) error {
				var out string
				return Get(ctx, q, &out, slow)
			}
			for _, c := range []struct {
				name string
				call func(context.Context, func(context.Context, Querier) error) error
				want error
			}{
				{"read", db.Read, engine.ErrBusy},
				{"autocommit", db.Autocommit, engine.ErrTimeout},
			} {
				start := time.Now()
				err := c.call(context.Background(), run)
				if faultOf(err) != c.want {
					t.Errorf("a %s past the statement timeout: %v; want %v", c.name, err, c.want)
				}
				if took := time.Since(start); took > 3*time.Second {
					t.Errorf("the %s answered after %s; want soon after the %s timeout", c.name, took, testStatementTimeout)
				}
			}
		})
	}
}

// testStatementTimeout is the statement timeout of the tests that pass
// it. It bounds opening a connection and creating a table too, which
// took longer than 100 ms under the load of other packages' tests.
const testStatementTimeout = 500 * time.Millisecond

// TestWriteTimingOutBeforeCommitIsBusy: a write transaction that runs
// past the deadline before its COMMIT was sent wrote nothing, so it is
// engine.ErrBusy (503, safe to retry), never ErrTimeout ("may have
// written", 504); the database rolled it back.
func TestWriteTimingOutBeforeCommitIsBusy(t *testing.T) {
	t.Parallel()
	for _, b := range backends(t) {
		t.Run(b.name, func(t *testing.T) {
			db := open(t, b.dsn, Options{StatementTimeout: testStatementTimeout})
			table := "sqldb_test_" + strings.ReplaceAll(fmt.Sprint(time.Now().UnixNano()), "-", "")
			create := `CREATE TABLE ` + Quote(table) + ` ("x" INTEGER)`
			if err := db.Write(context.Background(), func(ctx context.Context, tx *Tx) error {
				_, err := tx.ExecContext(ctx, create)
				return err
			}); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				_ = db.Write(context.Background(), func(ctx context.Context, tx *Tx) error {
					_, err := tx.ExecContext(ctx, `DROP TABLE `+Quote(table))
					return err
				})
			})
			err := db.Write(context.Background(), func(ctx context.Context, tx *Tx) error {
				if _, err := Exec(ctx, tx, `INSERT INTO `+Quote(table)+` ("x") VALUES (?)`, 1); err != nil {
					return err
				}
				<-ctx.Done() // the statement timeout passes inside the transaction
				return ctx.Err()
			})
			if !errors.Is(err, engine.ErrBusy) || errors.Is(err, engine.ErrTimeout) {
				t.Errorf("a write past the deadline before its COMMIT: %v; want engine.ErrBusy and not ErrTimeout", err)
			}
			var n int
			if err := db.Read(context.Background(), func(ctx context.Context, q Querier) error {
				return Get(ctx, q, &n, `SELECT COUNT(*) FROM `+Quote(table))
			}); err != nil || n != 0 {
				t.Errorf("rows after the write that timed out: %d, %v; want 0: it was rolled back", n, err)
			}
		})
	}
}

// TestSQLiteBusy: a writer that cannot get the lock within the busy
// timeout answers engine.ErrBusy and writes nothing; readers are not
// blocked by the writer holding the lock; once it is released the write
// goes through.
func TestSQLiteBusy(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "busy.db")
	db := open(t, "sqlite:"+path, Options{BusyTimeout: 50 * time.Millisecond})
	write := func() error {
		return db.Write(ctx, func(ctx context.Context, tx *Tx) error {
			_, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS "t" ("x" INTEGER)`)
			if err == nil {
				_, err = tx.ExecContext(ctx, `INSERT INTO "t" ("x") VALUES (1)`)
			}
			return err
		})
	}
	if err := write(); err != nil {
		t.Fatal(err)
	}

	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	holder, err := raw.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	if _, err := holder.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil { // holds the write lock
		t.Fatal(err)
	}
	if err := write(); !errors.Is(err, engine.ErrBusy) {
		t.Errorf("a write while another connection holds the lock: %v; want engine.ErrBusy", err)
	}
	var n int
	if err := db.Read(ctx, func(ctx context.Context, q Querier) error { return Get(ctx, q, &n, `SELECT COUNT(*) FROM "t"`) }); err != nil || n != 1 {
		t.Errorf("a read while the lock is held: %d rows, %v; want the 1 row, not blocked", n, err)
	}
	if _, err := holder.ExecContext(ctx, `ROLLBACK`); err != nil {
		t.Fatal(err)
	}
	if err := write(); err != nil {
		t.Errorf("a write after the lock was released: %v", err)
	}
}

// TestPostgresUnreachable: a PostgreSQL that does not answer makes calls
// fail with engine.ErrUnreachable; Open itself does not need it.
func TestPostgresUnreachable(t *testing.T) {
	t.Parallel()
	db := open(t, unreachablePostgres, Options{})
	ctx := context.Background()
	if err := db.Ping(ctx); !errors.Is(err, engine.ErrUnreachable) {
		t.Errorf("Ping: %v; want engine.ErrUnreachable", err)
	}
	if err := db.Read(ctx, func(ctx context.Context, q Querier) error {
		var one int
		return Get(ctx, q, &one, `SELECT 1`)
	}); !errors.Is(err, engine.ErrUnreachable) {
		t.Errorf("Read: %v; want engine.ErrUnreachable", err)
	}
	if err := db.Write(ctx, func(ctx context.Context, tx *Tx) error { return nil }); !errors.Is(err, engine.ErrUnreachable) {
		t.Errorf("Write: %v; want engine.ErrUnreachable", err)
	}
}

// TestServerSideStatementTimeout: on PostgreSQL the server stops a
// statement a second after the engine's own deadline, so a call the
// client gave up on does not run on; a DSN that sets its own keeps it.
func TestServerSideStatementTimeout(t *testing.T) {
	base := os.Getenv(postgresEnv)
	if base == "" {
		t.Skipf("set %s: this checks a PostgreSQL session setting", postgresEnv)
	}
	t.Parallel()
	show := func(dsn string, opt Options) string {
		t.Helper()
		db := open(t, dsn, opt)
		var v string
		if err := db.Read(context.Background(), func(ctx context.Context, q Querier) error {
			return Get(ctx, q, &v, `SHOW statement_timeout`)
		}); err != nil {
			t.Fatal(err)
		}
		return v
	}
	sep := "?"
	if strings.Contains(base, "?") {
		sep = "&"
	}
	if got := show(base, Options{StatementTimeout: 2 * time.Second}); got != "3s" {
		t.Errorf("statement_timeout = %q, want 3s", got)
	}
	if got := show(base, Options{}); got != "0" {
		t.Errorf("without a timeout: statement_timeout = %q, want 0", got)
	}
	if got := show(base+sep+"statement_timeout=7000", Options{StatementTimeout: 2 * time.Second}); got != "7s" {
		t.Errorf("DSN's own: statement_timeout = %q, want 7s", got)
	}
}

// TestHealthProbeMarksASilentServer: a PostgreSQL address that accepts
// connections and never answers is marked unreachable by the health probe
// within a second; from then on calls fail with engine.ErrUnreachable at
// once instead of each waiting on a connection of its own.
func TestHealthProbeMarksASilentServer(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	accepted := make(chan net.Conn, 100) // held open, never answered
	defer func() {
		ln.Close()
		for len(accepted) > 0 {
			(<-accepted).Close()
		}
	}()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			select {
			case accepted <- c:
			default:
				c.Close()
			}
		}
	}()
	db := open(t, "postgres://postgres@"+ln.Addr().String()+"/test?sslmode=disable", Options{StatementTimeout: 5 * time.Second})

	// The probe marks a silent server within health.MarksWithin;
	// the margin is for a loaded machine. The promised second is asserted
	// end to end, over HTTP, by scaletest's fault test.
	markedWithin := 3 * health.MarksWithin
	start := time.Now()
	for !db.health.Down() {
		if time.Since(start) > markedWithin {
			t.Fatalf("the probe did not mark the silent server within %s", markedWithin)
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Logf("marked unreachable after %s", time.Since(start).Round(time.Millisecond))
	start = time.Now()
	err = db.Read(context.Background(), func(ctx context.Context, q Querier) error {
		var one int
		return Get(ctx, q, &one, `SELECT 1`)
	})
	if !errors.Is(err, engine.ErrUnreachable) {
		t.Errorf("a call once the server is marked: %v; want engine.ErrUnreachable", err)
	}
	// At once: a connection tried to the silent server would have waited
	// the whole connect timeout.
	if took := time.Since(start); took >= connectTimeout {
		t.Errorf("the call answered after %s; want at once, before the %s connect timeout", took, connectTimeout)
	}
}

// TestOpenRefusesBadDSN: a DSN of no database the engine knows, a SQLite
// DSN without a file, in memory or in a directory that does not exist,
// and a malformed PostgreSQL URL are refused by Open, saying why.
func TestOpenRefusesBadDSN(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ dsn, says string }{
		{"mysql://x", "unsupported database"},
		{"fieldapi.db", "unsupported database"},
		{"sqlite:", "want sqlite:PATH"},
		{"sqlite::memory:", "in-memory SQLite"},
		{"sqlite:/no/such/dir/x.db", "/no/such/dir/x.db"},
		{"postgres://bad host:x/", "bad PostgreSQL DSN"},
	} {
		db, err := Open(context.Background(), c.dsn, Options{})
		if err == nil {
			db.Close()
			t.Errorf("Open(%q) succeeded; want it refused", c.dsn)
			continue
		}
		if !strings.Contains(err.Error(), c.says) {
			t.Errorf("Open(%q): %v; want the error to say %q", c.dsn, err, c.says)
		}
	}
}

// TestWALCheckpointedBesideTheWrites: no SQLite commit copies the
// write-ahead log into the database file (the automatic checkpoint is
// off, so no write waits behind one); every checkpointEvery commits a
// checkpoint does it beside the writes.
func TestWALCheckpointedBesideTheWrites(t *testing.T) {
	t.Parallel()
	// Rows of some 37 pages each: the commits before the checkpoint log
	// more than the 1000 pages at which SQLite's own checkpoint would run.
	const rowBytes = 150_000
	path := filepath.Join(t.TempDir(), "wal.db")
	db := open(t, "sqlite:"+path, Options{})
	size := func() int64 {
		t.Helper()
		info, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return info.Size()
	}
	write := func(i int) { writeRow(t, db, i, rowBytes) }
	write(1)
	before := size()
	for i := 2; i < checkpointEvery; i++ {
		write(i)
	}
	db.wal.wait()
	if got := size(); got != before {
		t.Fatalf("after %d commits the database file went from %d to %d bytes: a commit checkpointed", checkpointEvery-1, before, got)
	}
	write(checkpointEvery)
	db.wal.wait()
	if got := size(); got < before+int64(checkpointEvery-1)*rowBytes {
		t.Errorf("after %d commits the database file holds %d bytes (%d before): want the log's %d rows of %d bytes copied in",
			checkpointEvery, got, before, checkpointEvery, rowBytes)
	}
}

// writeRow writes a row of size bytes into table "t" (made on first use),
// in a transaction of its own.
func writeRow(t *testing.T, db *DB, i, size int) {
	t.Helper()
	err := db.Write(context.Background(), func(ctx context.Context, tx *Tx) error {
		_, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS "t" ("x" TEXT)`)
		if err == nil {
			_, err = tx.ExecContext(ctx, tx.Rebind(`INSERT INTO "t" ("x") VALUES (?)`), strings.Repeat(fmt.Sprint(i%10), size))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestWALRestartedUnderSustainedWrites: writes that follow each other with
// no pause (the atomic batches of one client) keep the write-ahead log
// bounded. Each passive checkpoint runs beside the next write, so SQLite
// never finds the whole log copied when a write begins and never starts it
// over: the log grew by every write's pages. A checkpoint that leaves a
// log past maxLogFrames restarts it.
func TestWALRestartedUnderSustainedWrites(t *testing.T) {
	t.Parallel()
	const rowBytes = 40_000 // about ten pages a write
	const writes = 64 * checkpointEvery
	path := filepath.Join(t.TempDir(), "wal.db")
	db := open(t, "sqlite:"+path, Options{})
	db.wal.maxLogFrames = 100
	largestLog := int64(0)
	for i := range writes {
		writeRow(t, db, i, rowBytes)
		if info, err := os.Stat(path + "-wal"); err == nil {
			largestLog = max(largestLog, info.Size())
		}
	}
	db.wal.wait()
	// Never started over, the log holds every write (about 100 MB). A
	// checkpoint that comes while one waits for the gate is dropped, so a
	// restart can come a few checkpoints late: seen 3.5 to 6.4 MB alone,
	// 25 MB with the other tests of the package busy on both cores. Started
	// over, the log stays that size however many writes come, so the
	// bound is half of what they write.
	if bound := int64(writes / 2 * rowBytes); largestLog > bound {
		t.Errorf("after %d writes of %d bytes the log reached %d bytes; want at most %d (it was not started over)", writes, rowBytes, largestLog, bound)
	}
}

// TestSQLitePageCacheBounded: every connection of a SQLite pool keeps at
// most 1 MiB of pages, and a write transaction spills its changed pages
// to the log only past 4096 of them (the pragmas are in the DSN; SQLite
// ignores a pragma it does not know, so only reading them back shows they
// took).
func TestSQLitePageCacheBounded(t *testing.T) {
	t.Parallel()
	db := open(t, "sqlite:"+filepath.Join(t.TempDir(), "cache.db"), Options{})
	var kib, spill int
	if err := db.Read(context.Background(), func(ctx context.Context, q Querier) error {
		if err := q.QueryRowxContext(ctx, `PRAGMA cache_size`).Scan(&kib); err != nil {
			return err
		}
		return q.QueryRowxContext(ctx, `PRAGMA cache_spill`).Scan(&spill)
	}); err != nil {
		t.Fatal(err)
	}
	if kib != -1024 {
		t.Errorf("PRAGMA cache_size = %d; want -1024 (1 MiB)", kib)
	}
	if spill != 4096 {
		t.Errorf("PRAGMA cache_spill = %d; want 4096 pages", spill)
	}
}

// TestCheckpointFailuresLoggedOnce: a checkpoint that fails is told to
// the logger once, however many fail after it, and the next success once:
// failing every checkpointEvery commits, it would flood the log.
func TestCheckpointFailuresLoggedOnce(t *testing.T) {
	t.Parallel()
	var logged bytes.Buffer
	db := open(t, "sqlite:"+filepath.Join(t.TempDir(), "wal.db"), Options{Logger: slog.New(slog.NewTextHandler(&logged, nil))})
	ended, end := context.WithCancel(context.Background())
	end() // a checkpoint on an ended context fails
	for range 3 {
		db.wal.checkpoint(ended)
	}
	for range 2 {
		db.wal.checkpoint(context.Background())
	}
	db.wal.checkpoint(ended)
	lines := strings.Split(strings.TrimSpace(logged.String()), "\n")
	want := []string{"SQLite checkpoint failed", "SQLite checkpoint succeeded again", "SQLite checkpoint failed"}
	if len(lines) != len(want) {
		t.Fatalf("logged %d lines, want %d:\n%s", len(lines), len(want), logged.String())
	}
	for i, w := range want {
		if !strings.Contains(lines[i], w) {
			t.Errorf("line %d: %q, want it to say %q", i+1, lines[i], w)
		}
	}
}
