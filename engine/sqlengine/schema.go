package sqlengine

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"fieldapi/catalog"
)

// internalTables are the engine's own tables, created before the register
// tables. A register may not take one of these names.
var internalTables = []struct{ name, ddl string }{
	{"companies", `CREATE TABLE IF NOT EXISTS "companies" (
		"id" TEXT PRIMARY KEY,
		"name" TEXT NOT NULL)`},
	{"settings", `CREATE TABLE IF NOT EXISTS "settings" (
		"company" TEXT NOT NULL,
		"name" TEXT NOT NULL,
		"value" TEXT NOT NULL,
		PRIMARY KEY ("company", "name"))`},
	{"number_series", `CREATE TABLE IF NOT EXISTS "number_series" (
		"company" TEXT NOT NULL,
		"register" TEXT NOT NULL,
		"next" BIGINT NOT NULL,
		PRIMARY KEY ("company", "register"))`},
	{"record_counts", `CREATE TABLE IF NOT EXISTS "record_counts" (
		"company" TEXT NOT NULL,
		"register" TEXT NOT NULL,
		"n" BIGINT NOT NULL,
		PRIMARY KEY ("company", "register"))`},
	{"change_log", `CREATE TABLE IF NOT EXISTS "change_log" (
		{seq},
		"company" TEXT NOT NULL,
		"register" TEXT NOT NULL,
		"record_key" TEXT NOT NULL,
		"sign" TEXT NOT NULL,
		"client_id" TEXT NOT NULL,
		"via_api" {bool} NOT NULL,
		"action" TEXT NOT NULL,
		"detail" TEXT NOT NULL,
		"at" TEXT NOT NULL)`},
	{"extra_field_defs", `CREATE TABLE IF NOT EXISTS "extra_field_defs" (
		"company" TEXT NOT NULL,
		"register" TEXT NOT NULL,
		"key" TEXT NOT NULL,
		"name" TEXT NOT NULL,
		"category" TEXT NOT NULL,
		"type" TEXT NOT NULL,
		"writable" {bool} NOT NULL,
		"read_only" {bool} NOT NULL,
		"computed" {bool} NOT NULL,
		"options" TEXT NOT NULL,
		"sql_expr" TEXT NOT NULL,
		PRIMARY KEY ("company", "register", "key"))`},
	{"extra_field_values", `CREATE TABLE IF NOT EXISTS "extra_field_values" (
		"company" TEXT NOT NULL,
		"register" TEXT NOT NULL,
		"record_seq" BIGINT NOT NULL,
		"key" TEXT NOT NULL,
		"value" TEXT NOT NULL,
		PRIMARY KEY ("company", "register", "record_seq", "key"))`},
	{"field_names", `CREATE TABLE IF NOT EXISTS "field_names" (
		"company" TEXT NOT NULL,
		"db_field_name" TEXT NOT NULL,
		"user_field_name" TEXT NOT NULL,
		"list_only" {bool} NOT NULL,
		"hidden" {bool} NOT NULL,
		PRIMARY KEY ("company", "db_field_name"))`},
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
	{"locations", `CREATE TABLE IF NOT EXISTS "locations" (
		"company" TEXT NOT NULL,
		"register" TEXT NOT NULL,
		"record_seq" BIGINT NOT NULL,
		"latitude" {number},
		"longitude" {number},
		"address" TEXT NOT NULL,
		"status" TEXT NOT NULL,
		"source_type" TEXT NOT NULL,
		"provider" TEXT NOT NULL,
		"fixed" {bool} NOT NULL,
		"ambiguous" {bool} NOT NULL,
		"modified" TEXT NOT NULL,
		PRIMARY KEY ("company", "register", "record_seq"))`},
	{"documents", documentsTable},
	{"events", eventsTable},
	{"event_counters", eventCountersTable},
	{"webhooks", webhooksTable},
	{"webhook_deliveries", deliveriesTable},
	{"webhook_attempts", attemptsTable},
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
}

var internalIndexes = []string{
	`CREATE INDEX IF NOT EXISTS "change_log_record" ON "change_log" ("company", "register", "record_key")`,
	`CREATE INDEX IF NOT EXISTS "api_tokens_client" ON "api_tokens" ("client_id")`,
	`CREATE INDEX IF NOT EXISTS "idempotency_created" ON "idempotency" ("state", "created")`,
	documentsIndex,
	eventsIndex,
	deliveriesDueIndex,
	deliveriesListIndex,
	attemptsIndex,
}

// Migrate creates or upgrades the schema: the engine's own tables, then one
// table per register with a column per stored field. Missing tables,
// columns and indexes are added; nothing is dropped or retyped. Running it
// again changes nothing.
func (e *Engine) Migrate(ctx context.Context) error {
	_, err := call(e, ctx, func(ctx context.Context) (struct{}, error) {
		return struct{}{}, e.inTx(ctx, func(tx *txn) error {
			if err := e.dialect.lockMigration(ctx, tx); err != nil {
				return err
			}
			for _, it := range internalTables {
				if _, err := tx.ExecContext(ctx, e.dialect.ddl(it.ddl)); err != nil {
					return fmt.Errorf("create %s: %w", it.name, err)
				}
			}
			for _, stmt := range internalIndexes {
				if _, err := tx.ExecContext(ctx, stmt); err != nil {
					return fmt.Errorf("%s: %w", stmt, err)
				}
			}
			for _, r := range e.cat.Registers {
				if err := e.migrateTable(ctx, tx, e.tables[r.Name]); err != nil {
					return fmt.Errorf("migrate %s: %w", r.Name, err)
				}
				if err := backfillCounts(ctx, tx, e.tables[r.Name]); err != nil {
					return fmt.Errorf("count %s: %w", r.Name, err)
				}
			}
			return nil
		})
	})
	if err != nil || e.dialect.postgres {
		return err
	}
	// SQLite plans from table statistics only once they exist: gather them
	// for tables that lack them (PostgreSQL's autovacuum does this itself).
	_, err = e.db.ExecContext(ctx, `PRAGMA optimize=0x10002`)
	return err
}

// migrateTable creates a register's table with all its columns, or adds
// the columns an existing table lacks; then its indexes.
func (e *Engine) migrateTable(ctx context.Context, tx *txn, t *table) error {
	columns := []string{e.dialect.seqColumn(), `"company" TEXT NOT NULL`, `"modified" TEXT NOT NULL`}
	var names []string
	for _, f := range t.stored {
		columns = append(columns, quote(f.Column)+" "+e.columnType(f))
		names = append(names, f.Column)
	}
	if t.reg.Name == usersRegister {
		columns = append(columns, quote(permissionsColumn)+" TEXT")
		names = append(names, permissionsColumn)
	}

	var existing []string
	if err := sel(ctx, tx, &existing, e.dialect.columnsQuery(), t.reg.Name); err != nil {
		return err
	}
	if len(existing) == 0 {
		create := fmt.Sprintf("CREATE TABLE %s (\n\t%s)", t.name(), strings.Join(columns, ",\n\t"))
		if _, err := tx.ExecContext(ctx, create); err != nil {
			return err
		}
	} else {
		for i, name := range names {
			if slices.Contains(existing, name) {
				continue
			}
			// columns[i+3]: the first three are the internal columns.
			alter := fmt.Sprintf("ALTER TABLE %s ADD COLUMN %s", t.name(), columns[i+3])
			if _, err := tx.ExecContext(ctx, alter); err != nil {
				return err
			}
		}
	}

	for _, stmt := range e.tableIndexes(t) {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("%s: %w", stmt, err)
		}
	}
	return nil
}

// columnType is the SQL type of a field's column. Lists and objects are
// JSON text; dates are text kept as sent.
func (e *Engine) columnType(f *catalog.Field) string {
	switch f.Type {
	case catalog.Number:
		return e.dialect.numberType()
	case catalog.Bool:
		return e.dialect.boolType()
	default:
		return "TEXT"
	}
}

// tableIndexes are a register table's indexes: the key is unique within a
// company; (company, seq) makes a cursor page cost the same at any depth;
// (company, modified) serves modifiedSince; filtered fields get one each,
// which also serves their filtered totals (a "contains" filter cannot use
// one: it scans); a line register gets one for finding an owner's lines.
func (e *Engine) tableIndexes(t *table) []string {
	name := t.reg.Name
	index := func(unique bool, suffix string, cols ...string) string {
		kind := "INDEX"
		if unique {
			kind = "UNIQUE INDEX"
		}
		quoted := make([]string, len(cols))
		for i, c := range cols {
			quoted[i] = quote(c)
		}
		return fmt.Sprintf("CREATE %s IF NOT EXISTS %s ON %s (%s)",
			kind, quote(name+"_"+suffix), t.name(), strings.Join(quoted, ", "))
	}
	stmts := []string{
		index(false, "company_seq", companyColumn, seqColumn),
		index(false, "company_modified", companyColumn, modifiedColumn),
	}
	if !t.engineKeyed {
		stmts = append(stmts, index(true, "key", companyColumn, t.key.Column))
	}
	// A line register is read by its owner: one index on the parent and
	// the list's fixed values finds an owner's lines exactly. Without it
	// the planner may pick a filter's index on a fixed value alone
	// (materials by OwnerType), which holds every line of every owner.
	lineIndexes := map[string]bool{}
	for _, o := range t.owners {
		cols := []string{companyColumn, t.reg.Field(o.line.Parent).Column}
		set := slices.Sorted(maps.Keys(o.line.Set))
		for _, name := range set {
			cols = append(cols, t.reg.Field(name).Column)
		}
		suffix := "lines_" + strings.Join(cols[1:], "_")
		if !lineIndexes[suffix] {
			lineIndexes[suffix] = true
			stmts = append(stmts, index(false, suffix, cols...))
		}
	}
	indexed := map[string]bool{t.key.Column: true}
	for _, fl := range t.reg.Filters {
		f := t.reg.Field(fl.Field)
		if fl.Match == catalog.Contains || indexed[f.Column] || (t.engineKeyed && f == t.key) {
			continue
		}
		indexed[f.Column] = true
		stmts = append(stmts, index(false, f.Column, companyColumn, f.Column))
	}
	return stmts
}
