package sqldb

import (
	"context"
	"os"
	"testing"
)

// TestSweeperKeepsAQueueTableSmall: rows that pass through a queue table
// (inserted, then all deleted, 40 times over) leave it at the size of a
// few passes when its sweeper is told of the deletes, where PostgreSQL
// without autovacuum (this project's CI server runs without) keeps every
// dead row: 40 passes of 1,000 rows, some 5 MB. The table is read back
// as the merges read it, by a DELETE of every row.
func TestSweeperKeepsAQueueTableSmall(t *testing.T) {
	dsn := os.Getenv(postgresEnv)
	if dsn == "" {
		t.Skipf("%s is not set: the sweeper does nothing on SQLite", postgresEnv)
	}
	ctx := context.Background()
	db := open(t, dsn, Options{})
	const table = "sweeper_test_queue"
	exec := func(query string) {
		t.Helper()
		if _, err := db.pool.ExecContext(ctx, query); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
	}
	exec(`DROP TABLE IF EXISTS ` + table)
	exec(`CREATE TABLE ` + table + ` ("n" BIGINT NOT NULL, "note" TEXT NOT NULL)`)
	t.Cleanup(func() { _, _ = db.pool.ExecContext(ctx, `DROP TABLE IF EXISTS `+table) })
	sweeper := db.Sweeper(table)
	for range 40 {
		exec(`INSERT INTO ` + table + ` SELECT i, repeat('x', 80) FROM generate_series(1, 1000) AS i`)
		exec(`DELETE FROM ` + table)
		if err := sweeper.Deleted(ctx, 1000); err != nil {
			t.Fatalf("vacuum: %v", err)
		}
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
