package sqlstore

import (
	"context"
	"fmt"
	"strings"

	"fieldapi/engine/sqldb"
	"fieldapi/engine/store"
	"fieldapi/engine/store/migration"
)

// Migrate creates or upgrades the schema in one transaction: the store's
// own tables, then every schema table with its columns and indexes.
// Missing tables, columns and indexes are added; nothing is dropped or
// retyped. Running it again changes nothing.
func (s *Store) Migrate(ctx context.Context) error {
	_, err := s.Evolve(ctx, migration.Evolution{})
	return err
}

// Evolve is Migrate after the evolution's renames and removals (evolve.go),
// all in the one transaction, and returns the plan it carried out. A plan
// that refuses (a leftover holding values, a rename into a column holding
// values) changes nothing: the error is a *migration.RefusedError with the plan.
func (s *Store) Evolve(ctx context.Context, ev migration.Evolution) (*migration.Plan, error) {
	var plan *migration.Plan
	err := s.db.Write(ctx, func(ctx context.Context, tx *sqldb.Tx) error {
		if err := s.db.Dialect().LockMigration(ctx, tx); err != nil {
			return err
		}
		var err error
		if plan, err = s.plan(ctx, tx, ev); err != nil {
			return err
		}
		if plan.Refused() {
			return &migration.RefusedError{Plan: plan}
		}
		for _, own := range ownTables {
			if _, err := tx.ExecContext(ctx, own.ddl); err != nil {
				return fmt.Errorf("create %s: %w", own.name, err)
			}
		}
		if err := s.apply(ctx, tx, plan); err != nil {
			return err
		}
		have, err := sqldb.Indexes(ctx, tx) // after the plan, which may have dropped some
		if err != nil {
			return err
		}
		for _, stmt := range ownIndexes {
			if have[sqldb.IndexName(stmt)] {
				continue
			}
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("%s: %w", stmt, err)
			}
		}
		for _, st := range s.schema.Tables {
			t := s.tables[st.Name]
			if err := s.migrateTable(ctx, tx, t, have); err != nil {
				return fmt.Errorf("migrate %s: %w", t.Name, err)
			}
			if t.Counted {
				if err := backfillCounts(ctx, tx, t); err != nil {
					return fmt.Errorf("count %s: %w", t.Name, err)
				}
			}
		}
		return nil
	})
	if err != nil || s.db.Dialect().Postgres() {
		return plan, err
	}
	// SQLite plans from table statistics only once they exist: gather them
	// for tables that lack them (PostgreSQL's autovacuum does this itself).
	return plan, s.analyze(ctx, `PRAGMA optimize=0x10002`)
}

// Analyze refreshes the statistics the query planner picks indexes by:
// run it after a bulk load. On PostgreSQL it vacuums too, leaving the
// visibility and free-space maps autovacuum would: without them (its
// autovacuum off, or not run yet) a freshly seeded database ran the
// engine's writes at about half their rate (make bench: POST task 0.45× →
// 0.63× the baseline, PATCH 0.35× → 0.67×).
func (s *Store) Analyze(ctx context.Context) error {
	if s.db.Dialect().Postgres() {
		return s.analyze(ctx, `VACUUM (ANALYZE)`)
	}
	return s.analyze(ctx, `ANALYZE`)
}

// analyze runs a statement that gathers statistics. On SQLite it drops
// the samples of sqlite_stat4, keeping sqlite_stat1: with samples, SQLite
// plans a prepared statement again on every call whose parameters it
// sampled (a fifth of GET one's CPU; make bench: 4,200 → 5,800 req/s in
// process without them), and picks the same index lookups without them.
func (s *Store) analyze(ctx context.Context, gather string) error {
	return s.db.Read(ctx, func(ctx context.Context, q sqldb.Querier) error {
		if _, err := q.ExecContext(ctx, gather); err != nil || s.db.Dialect().Postgres() {
			return err
		}
		samples, err := sqldb.Exists(ctx, q, `SELECT 1 FROM sqlite_master WHERE "type" = 'table' AND "name" = 'sqlite_stat4'`)
		if err != nil || !samples {
			return err
		}
		if _, err := q.ExecContext(ctx, `DELETE FROM sqlite_stat4`); err != nil {
			return err
		}
		// Connections load the statistics when they read the schema; this
		// makes every one read them again.
		_, err = q.ExecContext(ctx, `ANALYZE sqlite_schema`)
		return err
	})
}

// migrateTable creates a table with all its columns, or adds the columns
// an existing one lacks; then the indexes the database does not have.
func (s *Store) migrateTable(ctx context.Context, tx *sqldb.Tx, t *table, have map[string]bool) error {
	var existing []string
	if err := sqldb.Select(ctx, tx, &existing, s.db.Dialect().ColumnsQuery(), t.Name); err != nil {
		return err
	}
	if len(existing) == 0 {
		if _, err := tx.ExecContext(ctx, s.createTable(t)); err != nil {
			return err
		}
	} else {
		columns := make([]sqldb.ColumnDef, len(t.allCols))
		for i, c := range t.allCols {
			columns[i] = sqldb.ColumnDef{Name: c.Name, Type: s.columnType(c)}
		}
		if err := sqldb.AddMissingColumns(ctx, tx, t.Name, existing, columns); err != nil {
			return err
		}
	}
	for _, ix := range t.Indexes {
		if have[ix.Name] {
			continue
		}
		if _, err := tx.ExecContext(ctx, t.createIndex(ix)); err != nil {
			return fmt.Errorf("index %s: %w", ix.Name, err)
		}
	}
	return nil
}

// createTable is the CREATE TABLE statement of a table.
func (s *Store) createTable(t *table) string {
	d := s.db.Dialect()
	var defs []string
	if t.Seq {
		defs = append(defs, d.SeqColumn())
	}
	if t.Company {
		defs = append(defs, `"company" TEXT NOT NULL`)
	}
	for _, c := range t.allCols {
		def := sqldb.Quote(c.Name) + " " + s.columnType(c)
		if c.NotNull {
			def += " NOT NULL"
		}
		defs = append(defs, def)
	}
	if !t.Seq && len(t.Key) > 0 {
		key, _ := t.keyColumns(t.Key) // Schema.Check made sure the columns exist
		defs = append(defs, "PRIMARY KEY ("+strings.Join(key, ", ")+")")
	}
	return fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s (\n\t%s)", t.name, strings.Join(defs, ",\n\t"))
}

// columnType is the SQL type of a column. Lists and objects are JSON text.
func (s *Store) columnType(c *store.Column) string {
	d := s.db.Dialect()
	switch c.Type {
	case store.Number:
		return d.NumberType()
	case store.Int:
		return "BIGINT"
	case store.Bool:
		return d.BoolType()
	case store.Bytes:
		return d.BytesType()
	}
	return "TEXT"
}

// createIndex is the CREATE INDEX statement of an index: the company of a
// Company table first, then the index's fields.
func (t *table) createIndex(ix store.Index) string {
	cols, _ := t.keyColumns(ix.Fields) // Schema.Check made sure the columns exist
	kind := "INDEX"
	if ix.Unique {
		kind = "UNIQUE INDEX"
	}
	return fmt.Sprintf("CREATE %s IF NOT EXISTS %s ON %s (%s)", kind, sqldb.Quote(ix.Name), t.name, strings.Join(cols, ", "))
}
