package reference_test

import (
	"context"
	"os"
	"testing"
	"time"

	"fieldapi/engine/reference"
	"fieldapi/internal/dbtest"
)

// TestMigrateBesideLiveWrites: a process starting on a PostgreSQL database
// whose schema is current migrates without waiting on the writes of the
// processes already serving it. CREATE INDEX IF NOT EXISTS locks its table
// against writes even when the index is there, so a migration that asked
// for every index again queued behind any open write transaction (and,
// holding some tables while waiting on another, could deadlock with one).
func TestMigrateBesideLiveWrites(t *testing.T) {
	base := os.Getenv(dbtest.PostgresEnv)
	if base == "" {
		t.Skipf("set %s: this holds PostgreSQL table locks", dbtest.PostgresEnv)
	}
	dsn := dbtest.Schema(t, base)
	openDemo(t, dsn, builtin(t), reference.Options{})

	// A write in flight on the tables every create touches.
	live := rawDB(t, dsn)
	tx, err := live.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`LOCK TABLE "tasks", "materials", "event_outbox", "record_count_deltas" IN ROW EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}

	e := openEngine(t, dsn, builtin(t), reference.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	started := time.Now()
	if err := e.Migrate(ctx); err != nil {
		t.Fatalf("migrating a current schema beside an open write: %v after %s", err, time.Since(started).Round(time.Millisecond))
	}
}
