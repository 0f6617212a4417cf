package sqldb

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"
)

// TestSweeperKeepsAQueueTableSmall: rows that pass through a queue table
// (inserted, then all deleted, 40 times over) leave it at the size of a
// few passes when its sweeper is told of the deletes, where PostgreSQL
// without autovacuum (this project's CI server runs without) keeps every
// dead row: 40 passes of 1,000 rows, some 5 MB. The table is read back
// as the merges read it, by a DELETE of every row. It runs in a database
// of its own: a vacuum removes no row a transaction still running in the
// same database may see, and other packages' tests run beside it.
func TestSweeperKeepsAQueueTableSmall(t *testing.T) {
	ctx := context.Background()
	const table = "sweeper_test_queue"
	db, exec := queueTable(t, table)
	sweeper := db.Sweeper(table)
	for range 40 {
		exec(`INSERT INTO ` + table + ` SELECT i, repeat('x', 80) FROM generate_series(1, 1000) AS i`)
		exec(`DELETE FROM ` + table)
		sweeper.Deleted(1000)
		db.upkeep.wait()
	}
	var size int64
	if err := db.pool.QueryRowxContext(ctx, `SELECT pg_relation_size('`+table+`')`).Scan(&size); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s after 40 passes of 1,000 rows: %d kB", table, size/1024)
	if size > 1<<20 {
		t.Errorf("%s holds %d kB after 40 passes of 1,000 rows; want at most 1 MB (a few passes' dead rows)", table, size/1024)
	}
}

// TestSweeperLeavesEmptiedPages: a sweeper's vacuum does not truncate
// its table (which takes the table's exclusive lock, waited for while
// every write inserts into it): a queue table emptied and vacuumed keeps
// its pages, for the next rows.
func TestSweeperLeavesEmptiedPages(t *testing.T) {
	ctx := context.Background()
	const table = "sweeper_test_emptied"
	db, exec := queueTable(t, table)
	exec(`INSERT INTO ` + table + ` SELECT i, repeat('x', 80) FROM generate_series(1, 5000) AS i`)
	exec(`DELETE FROM ` + table)
	db.Sweeper(table).Deleted(5000)
	db.upkeep.wait()
	var pages, dead int64
	if err := db.pool.QueryRowxContext(ctx, `SELECT pg_relation_size('`+table+`') / 8192, n_dead_tup FROM pg_stat_user_tables WHERE relname = '`+table+`'`).Scan(&pages, &dead); err != nil {
		t.Fatal(err)
	}
	if pages == 0 {
		t.Errorf("%s has no pages left after its vacuum: it was truncated", table)
	}
	if dead != 0 {
		t.Errorf("%s holds %d dead rows after its vacuum, want 0 (not vacuumed)", table, dead)
	}
}

// queueTable creates a queue table in a database of the test's own (a
// vacuum removes no row a transaction still running in the same database
// may see, and other packages' tests run beside it), and returns the
// database and a statement runner; PostgreSQL only.
func queueTable(t *testing.T, table string) (*DB, func(query string)) {
	t.Helper()
	dsn := os.Getenv(postgresEnv)
	if dsn == "" {
		t.Skipf("%s is not set: the sweeper does nothing on SQLite", postgresEnv)
	}
	db := open(t, ownDatabase(t, dsn), Options{})
	exec := func(query string) {
		t.Helper()
		if _, err := db.pool.ExecContext(context.Background(), query); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
	}
	exec(`CREATE TABLE ` + table + ` ("n" BIGINT NOT NULL, "note" TEXT NOT NULL)`)
	return db, exec
}

// TestUpkeepRunsBesideTheCall: a write that notes rows inside its
// transaction, on a pool of one connection (--max-open-conns 1), ends;
// its ANALYZE runs after, on the connection the write gave back. Run in
// the call, it waited for that connection for ever.
func TestUpkeepRunsBesideTheCall(t *testing.T) {
	dsn := os.Getenv(postgresEnv)
	if dsn == "" {
		t.Skipf("%s is not set: no upkeep on SQLite", postgresEnv)
	}
	ctx := context.Background()
	db := open(t, dsn, Options{MaxOpenConns: 1})
	table := "upkept_" + strings.ReplaceAll(fmt.Sprint(time.Now().UnixNano()), "-", "")
	if _, err := db.pool.ExecContext(ctx, `CREATE TABLE `+Quote(table)+` ("x" INTEGER)`); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = db.pool.ExecContext(ctx, `DROP TABLE `+Quote(table)) })
	a := db.Analyzer(table)
	a.Grew(1) // reads where the schedule starts
	db.upkeep.wait()
	err := db.Write(ctx, func(ctx context.Context, tx *Tx) error {
		if _, err := Exec(ctx, tx, `INSERT INTO `+Quote(table)+` SELECT generate_series(1, 2000)`); err != nil {
			return err
		}
		a.Grew(2000)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	db.upkeep.wait()
	var tuples float64
	if err := db.pool.QueryRowxContext(ctx, `SELECT reltuples FROM pg_class WHERE oid = to_regclass($1)`, Quote(table)).Scan(&tuples); err != nil {
		t.Fatal(err)
	}
	if tuples != 2000 {
		t.Errorf("reltuples after the write: %v, want 2000 (analyzed after it)", tuples)
	}
}

// ownDatabase creates a database for the test on the server of dsn, drops
// it when the test ends, and returns its address.
func ownDatabase(t *testing.T, dsn string) string {
	t.Helper()
	ctx := context.Background()
	admin := open(t, dsn, Options{})
	name := fmt.Sprintf("sqldb_test_%d", time.Now().UnixNano())
	if _, err := admin.pool.ExecContext(ctx, `CREATE DATABASE `+name); err != nil {
		t.Skipf("cannot create a database of the test's own: %v", err)
	}
	t.Cleanup(func() { _, _ = admin.pool.ExecContext(ctx, `DROP DATABASE IF EXISTS `+name+` WITH (FORCE)`) })
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

// TestAnalyzerFollowsItsSchedule: on PostgreSQL an analyzer analyzes its
// table when the rows noted reach 1,024, then 2,048, and not between
// (the table's reltuples, -1 until the first ANALYZE, tell). The
// analyzer of a process started later, when the statistics describe
// 5,000 rows, first analyzes when it has noted 5,000.
func TestAnalyzerFollowsItsSchedule(t *testing.T) {
	for _, b := range backends(t) {
		if b.name != "postgres" {
			// SQLite has none: its statements are planned when prepared.
			if a := open(t, b.dsn, Options{}).Analyzer("x"); a != nil {
				t.Errorf("SQLite's analyzer: %v, want none", a)
			}
			continue
		}
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			db := open(t, b.dsn, Options{})
			table := "analyzed_" + strings.ReplaceAll(fmt.Sprint(time.Now().UnixNano()), "-", "")
			exec := func(query string) {
				t.Helper()
				if err := db.Write(ctx, func(ctx context.Context, tx *Tx) error { _, err := Exec(ctx, tx, query); return err }); err != nil {
					t.Fatal(err)
				}
			}
			exec(`CREATE TABLE ` + Quote(table) + ` ("x" INTEGER)`)
			t.Cleanup(func() { exec(`DROP TABLE ` + Quote(table)) })
			tuples := func() (n float64) {
				t.Helper()
				if err := db.Read(ctx, func(ctx context.Context, q Querier) error {
					return Get(ctx, q, &n, `SELECT reltuples FROM pg_class WHERE oid = CAST(? AS regclass)`, Quote(table))
				}); err != nil {
					t.Fatal(err)
				}
				return n
			}
			a := db.Analyzer(table)
			grow := func(rows, noted int, want float64) {
				t.Helper()
				exec(fmt.Sprintf(`INSERT INTO %s SELECT generate_series(1, %d)`, Quote(table), rows))
				a.Grew(noted)
				db.upkeep.wait()
				if got := tuples(); got != want {
					t.Fatalf("reltuples after noting %d rows more: %v, want %v", noted, got, want)
				}
			}
			grow(10, 1023, -1) // not analyzed yet
			grow(10, 1, 20)    // 1,024: analyzed
			grow(10, 1000, 20) // 2,024: not yet
			grow(10, 24, 40)   // 2,048: analyzed again

			exec(fmt.Sprintf(`INSERT INTO %s SELECT generate_series(1, 4960)`, Quote(table)))
			exec(`ANALYZE ` + Quote(table))
			a = db.Analyzer(table) // a process started now
			grow(10, 1, 5000)      // the schedule's start read
			grow(10, 1023, 5000)   // not at 1,024: the statistics describe 5,000 rows
			grow(10, 3975, 5000)   // 4,999: not yet
			grow(10, 1, 5040)      // 5,000: analyzed
		})
	}
}

// TestBackgroundCloseEndsItsJobs: closing a database ends its upkeep's
// statements (an ANALYZE of a large table, a server gone silent) rather
// than waiting them out, and starts none after.
func TestBackgroundCloseEndsItsJobs(t *testing.T) {
	var b background
	started := make(chan struct{})
	var ended error
	b.start(func(ctx context.Context) {
		close(started)
		<-ctx.Done()
		ended = ctx.Err()
	})
	<-started
	b.close()
	if ended == nil {
		t.Error("the job's context had not ended when close returned")
	}
	if b.start(func(context.Context) { t.Error("a job ran after close") }) {
		t.Error("start after close reports the job started")
	}
}

// TestUpkeepFailureIsLogged: a vacuum that fails (here its table is
// gone) is told to the logger: no call returns it.
func TestUpkeepFailureIsLogged(t *testing.T) {
	dsn := os.Getenv(postgresEnv)
	if dsn == "" {
		t.Skipf("%s is not set: no upkeep on SQLite", postgresEnv)
	}
	var logged bytes.Buffer
	db := open(t, dsn, Options{Logger: slog.New(slog.NewTextHandler(&logged, nil))})
	db.Sweeper("sweeper_test_no_such_table").Deleted(sweepEvery)
	db.upkeep.wait()
	if got := logged.String(); !strings.Contains(got, "database upkeep failed") || !strings.Contains(got, "sweeper_test_no_such_table") {
		t.Errorf("logged %q, want the failed vacuum of sweeper_test_no_such_table", got)
	}
}
