package sqlplatform

import (
	"context"
	"fmt"

	"fieldapi/engine/sqldb"
)

// The platform's tables, exactly as the engine before the pipeline
// created them: a database it made is migrated to no change. {bool}, {number}, {bytes}
// and {seq} are the dialect's (sqldb.Dialect.DDL).
var tables = []struct{ name, ddl string }{
	{"api_keys", `CREATE TABLE IF NOT EXISTS "api_keys" (
		"client_id" TEXT PRIMARY KEY,
		"company" TEXT NOT NULL,
		"sign" TEXT NOT NULL,
		"scopes" TEXT NOT NULL,
		"allowed_ips" TEXT NOT NULL,
		"secret_hash" TEXT NOT NULL,
		"created" TEXT NOT NULL,
		"revoked" TEXT)`},
	{"api_tokens", `CREATE TABLE IF NOT EXISTS "api_tokens" (
		"id" TEXT PRIMARY KEY,
		"secret_hash" TEXT NOT NULL,
		"client_id" TEXT NOT NULL,
		"expires" TEXT NOT NULL)`},
	{"idempotency", `CREATE TABLE IF NOT EXISTS "idempotency" (
		"scope" TEXT NOT NULL,
		"key" TEXT NOT NULL,
		"fingerprint" TEXT NOT NULL,
		"token" TEXT NOT NULL,
		"state" TEXT NOT NULL,
		"status" INTEGER NOT NULL,
		"body" {bytes},
		"created" TEXT NOT NULL,
		"lease_until" TEXT NOT NULL,
		PRIMARY KEY ("scope", "key"))`},
	{"events", `CREATE TABLE IF NOT EXISTS "events" (
		"company" TEXT NOT NULL,
		"position" BIGINT NOT NULL,
		"id" TEXT NOT NULL,
		"type" TEXT NOT NULL,
		"register" TEXT NOT NULL,
		"record_key" TEXT NOT NULL,
		"occurred_at" TEXT NOT NULL,
		"payload" TEXT NOT NULL,
		PRIMARY KEY ("company", "position"))`},
	{"event_outbox", `CREATE TABLE IF NOT EXISTS "event_outbox" (
		{seq},
		"company" TEXT NOT NULL,
		"events" TEXT NOT NULL)`}, // and outboxColumns
	{"event_counters", `CREATE TABLE IF NOT EXISTS "event_counters" (
		"company" TEXT PRIMARY KEY,
		"last" BIGINT NOT NULL,
		"pruned_through" BIGINT NOT NULL)`},
	{"webhooks", `CREATE TABLE IF NOT EXISTS "webhooks" (
		"id" TEXT PRIMARY KEY,
		"company" TEXT NOT NULL,
		"sign" TEXT NOT NULL,
		"url" TEXT NOT NULL,
		"event_types" TEXT NOT NULL,
		"description" TEXT NOT NULL,
		"enabled" {bool} NOT NULL,
		"disabled_reason" TEXT NOT NULL,
		"secret" TEXT NOT NULL,
		"previous_secret" TEXT NOT NULL,
		"previous_until" TEXT NOT NULL,
		"cursor" BIGINT NOT NULL,
		"created" TEXT NOT NULL,
		"modified" TEXT NOT NULL)`},
	{"webhook_deliveries", `CREATE TABLE IF NOT EXISTS "webhook_deliveries" (
		{seq},
		"company" TEXT NOT NULL,
		"webhook_id" TEXT NOT NULL,
		"message_id" TEXT NOT NULL,
		"event_type" TEXT NOT NULL,
		"payload" TEXT NOT NULL,
		"state" TEXT NOT NULL,
		"tries" INTEGER NOT NULL,
		"next_attempt_at" TEXT NOT NULL,
		"lease" TEXT NOT NULL,
		"lease_until" TEXT NOT NULL,
		"created" TEXT NOT NULL)`},
	{"webhook_attempts", `CREATE TABLE IF NOT EXISTS "webhook_attempts" (
		{seq},
		"delivery_seq" BIGINT NOT NULL,
		"at" TEXT NOT NULL,
		"status_code" INTEGER NOT NULL,
		"latency_ms" {number} NOT NULL,
		"error" TEXT NOT NULL)`},
}

// outboxColumns were added to event_outbox since; Migrate adds those a
// database lacks. An event_outbox row with an id holds one event
// (record); one without, written before, a write's events, with no
// column but "events" set (sequenceArrays).
var outboxColumns = []sqldb.ColumnDef{
	{Name: "write_id", Type: "TEXT"},
	{Name: "id", Type: "TEXT"},
	{Name: "type", Type: "TEXT"},
	{Name: "register", Type: "TEXT"},
	{Name: "record_key", Type: "TEXT"},
	{Name: "occurred_at", Type: "TEXT"},
	{Name: "position_at", Type: "INTEGER"},
}

var indexes = []string{
	`CREATE INDEX IF NOT EXISTS "api_tokens_client" ON "api_tokens" ("client_id")`,
	`CREATE INDEX IF NOT EXISTS "idempotency_created" ON "idempotency" ("state", "created")`,
	`CREATE INDEX IF NOT EXISTS "events_occurred" ON "events" ("occurred_at")`,
	`CREATE INDEX IF NOT EXISTS "event_outbox_company" ON "event_outbox" ("company", "seq")`,
	`CREATE INDEX IF NOT EXISTS "webhook_deliveries_due" ON "webhook_deliveries" ("state", "next_attempt_at")`,
	`CREATE INDEX IF NOT EXISTS "webhook_deliveries_webhook" ON "webhook_deliveries" ("webhook_id", "seq")`,
	`CREATE INDEX IF NOT EXISTS "webhook_attempts_delivery" ON "webhook_attempts" ("delivery_seq")`,
}

// TableNames are the tables the platform keeps in the database it shares
// with the record store, whose schema must not take them.
func TableNames() []string {
	names := make([]string, len(tables))
	for i, t := range tables {
		names[i] = t.name
	}
	return names
}

// Migrate creates the platform's tables and indexes that are missing, in
// one transaction; running it again changes nothing. On PostgreSQL it
// takes the migration lock the record store takes, so two processes
// starting together do not both create them.
func (p *Platform) Migrate(ctx context.Context) error {
	d := p.db.Dialect()
	return p.db.Write(ctx, func(ctx context.Context, tx *sqldb.Tx) error {
		if err := d.LockMigration(ctx, tx); err != nil {
			return err
		}
		for _, t := range tables {
			if _, err := tx.ExecContext(ctx, d.DDL(t.ddl)); err != nil {
				return fmt.Errorf("create %s: %w", t.name, err)
			}
		}
		var existing []string
		if err := sqldb.Select(ctx, tx, &existing, d.ColumnsQuery(), outboxTable); err != nil {
			return fmt.Errorf("columns of %s: %w", outboxTable, err)
		}
		if err := sqldb.AddMissingColumns(ctx, tx, outboxTable, existing, outboxColumns); err != nil {
			return err
		}
		have, err := sqldb.Indexes(ctx, tx)
		if err != nil {
			return err
		}
		for _, stmt := range indexes {
			if have[sqldb.IndexName(stmt)] {
				continue
			}
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("%s: %w", stmt, err)
			}
		}
		if d.Postgres() {
			return compressWithLZ4(ctx, tx)
		}
		return nil
	})
}

// lz4Columns hold events and stored responses, which PostgreSQL
// compresses when a row passes about 2 kB (an event of a task with three
// lines is 2.5 kB). Its default, pglz, took 78 µs of the database's time
// per event in the feed and 68 µs per outbox row, more than inserting a
// task; lz4 takes 28 and 34 µs, for some 13 % more space.
var lz4Columns = []struct{ table, column string }{
	{"events", "payload"}, {"event_outbox", "events"}, {"webhook_deliveries", "payload"}, {"idempotency", "body"},
}

// compressWithLZ4 sets lz4Columns to lz4 where the server has it (built
// with lz4, PostgreSQL 14 or later) and they are not yet. Values already
// stored stay as they were compressed.
func compressWithLZ4(ctx context.Context, tx *sqldb.Tx) error {
	var available bool
	if err := sqldb.Get(ctx, tx, &available, `SELECT EXISTS (SELECT 1 FROM pg_settings
		WHERE name = 'default_toast_compression' AND 'lz4' = ANY(enumvals))`); err != nil || !available {
		return err
	}
	for _, c := range lz4Columns {
		var lz4 bool
		if err := sqldb.Get(ctx, tx, &lz4, `SELECT attcompression = 'l' FROM pg_attribute
			WHERE attrelid = to_regclass(?) AND attname = ?`, sqldb.Quote(c.table), c.column); err != nil {
			return fmt.Errorf("compression of %s.%s: %w", c.table, c.column, err)
		}
		if lz4 {
			continue
		}
		if _, err := tx.ExecContext(ctx, `ALTER TABLE `+sqldb.Quote(c.table)+` ALTER COLUMN `+sqldb.Quote(c.column)+` SET COMPRESSION lz4`); err != nil {
			return fmt.Errorf("compress %s.%s with lz4: %w", c.table, c.column, err)
		}
	}
	return nil
}
