package sqlstore

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"

	"fieldapi/engine/sqldb"
	"fieldapi/engine/store/migration"
)

// Schema evolution: what a migration does beyond adding what is missing.
// A column or table holding data the schema no longer has is never
// dropped quietly: the caller says which were renamed (their values
// carried over) and which removed (dropped with their values); any other
// that holds a value refuses the whole migration, and one that holds none
// is noted and left as it is.

// Plan compares the database with the schema and returns what Migrate
// would do, changing nothing: it reads the catalog and counts values,
// without a write lock.
func (s *Store) Plan(ctx context.Context, ev migration.Evolution) (*migration.Plan, error) {
	return read(ctx, s, func(ctx context.Context, q sqldb.Querier) (*migration.Plan, error) { return s.plan(ctx, q, ev) })
}

// plan is Plan on q: the pool, or the migration's transaction.
func (s *Store) plan(ctx context.Context, q sqldb.Querier, ev migration.Evolution) (*migration.Plan, error) {
	existing, err := s.tableNames(ctx, q)
	if err != nil {
		return nil, err
	}
	p := &migration.Plan{Fresh: true}
	for _, st := range s.schema.Tables {
		if !existing[st.Name] {
			p.Steps = append(p.Steps, migration.Step{Kind: migration.CreateTable, Table: st.Name})
			continue
		}
		p.Fresh = false
		if err := s.planTable(ctx, q, p, s.tables[st.Name], ev); err != nil {
			return nil, fmt.Errorf("%s: %w", st.Name, err)
		}
	}
	if err := s.planFormerTables(ctx, q, p, existing, ev); err != nil {
		return nil, err
	}
	return p, nil
}

// planTable plans the renames, removals and additions of columns of a
// table that exists, and notes its leftovers when it is compared.
func (s *Store) planTable(ctx context.Context, q sqldb.Querier, p *migration.Plan, t *table, ev migration.Evolution) error {
	columns, err := s.columnNames(ctx, q, t.Name)
	if err != nil {
		return err
	}
	has := func(c string) bool { return slices.Contains(columns, c) }
	schemaColumns := t.columnNames()
	done := map[string]bool{} // columns of the database a step takes care of
	renamed := ev.Renamed[t.Name]
	for _, to := range slices.Sorted(maps.Keys(renamed)) {
		from := renamed[to]
		switch {
		case slices.Contains(schemaColumns, from):
			return fmt.Errorf("column %s is renamed to %s but is in the schema itself", from, to)
		case !slices.Contains(schemaColumns, to):
			return fmt.Errorf("column %s is renamed from %s but is not in the schema", to, from)
		case !has(from):
			continue // carried over by an earlier migration, or never there
		}
		done[from] = true
		old, err := s.held(ctx, q, t.Name, t.Company, from)
		if err != nil {
			return err
		}
		if !has(to) {
			p.Steps = append(p.Steps, migration.Step{Kind: migration.RenameColumn, Table: t.Name, Column: to, From: from, Held: old})
			columns = append(columns, to)
			continue
		}
		current, err := s.held(ctx, q, t.Name, t.Company, to)
		if err != nil {
			return err
		}
		if current.Total() > 0 && old.Total() > 0 {
			p.Conflicts = append(p.Conflicts, migration.Conflict{Table: t.Name, Column: to, From: from, HeldNew: current, HeldOld: old})
			continue
		}
		p.Steps = append(p.Steps, migration.Step{Kind: migration.CopyColumn, Table: t.Name, Column: to, From: from, Held: old})
	}
	for _, c := range ev.Removed[t.Name] {
		if slices.Contains(schemaColumns, c) {
			return fmt.Errorf("column %s is removed but is in the schema", c)
		}
		if !has(c) {
			continue // dropped by an earlier migration, or never there
		}
		done[c] = true
		held, err := s.held(ctx, q, t.Name, t.Company, c)
		if err != nil {
			return err
		}
		p.Steps = append(p.Steps, migration.Step{Kind: migration.DropColumn, Table: t.Name, Column: c, Held: held})
	}
	for _, c := range schemaColumns {
		if !has(c) {
			p.Steps = append(p.Steps, migration.Step{Kind: migration.AddColumn, Table: t.Name, Column: c})
		}
	}
	if !slices.Contains(ev.Compared, t.Name) {
		return nil // another's table: extra columns are its business
	}
	for _, c := range columns {
		if done[c] || slices.Contains(schemaColumns, c) {
			continue
		}
		held, err := s.held(ctx, q, t.Name, t.Company, c)
		if err != nil {
			return err
		}
		p.Leftovers = append(p.Leftovers, migration.Leftover{Table: t.Name, Column: c, Held: held})
	}
	return nil
}

// planFormerTables finds the tables of the database that look like a
// compared table but are in no list: a former register's. A removed one
// is dropped, any other is a leftover.
func (s *Store) planFormerTables(ctx context.Context, q sqldb.Querier, p *migration.Plan, existing map[string]bool, ev migration.Evolution) error {
	inUse := func(name string) bool {
		return s.tables[name] != nil || slices.Contains(ev.Foreign, name) || isOwnTable(name)
	}
	for _, name := range ev.RemovedTables {
		if inUse(name) {
			return fmt.Errorf("table %s is to be removed but is not a former one: it is in use", name)
		}
	}
	signature := s.comparedSignature(ev.Compared)
	if len(signature) == 0 {
		return nil // nothing is compared: no table can look like a former one
	}
	for _, name := range slices.Sorted(maps.Keys(existing)) {
		if inUse(name) {
			continue
		}
		columns, err := s.columnNames(ctx, q, name)
		if err != nil {
			return err
		}
		if slices.ContainsFunc(signature, func(c string) bool { return !slices.Contains(columns, c) }) {
			continue // not the shape of a compared table: not the store's
		}
		held, err := s.held(ctx, q, name, slices.Contains(columns, companyColumn), "")
		if err != nil {
			return err
		}
		if slices.Contains(ev.RemovedTables, name) {
			p.Steps = append(p.Steps, migration.Step{Kind: migration.DropTable, Table: name, Held: held})
			continue
		}
		p.Leftovers = append(p.Leftovers, migration.Leftover{Table: name, Held: held})
	}
	return nil
}

// comparedSignature is the columns every compared table has (seq,
// company and those the caller gives them all).
func (s *Store) comparedSignature(compared []string) []string {
	var shared []string
	for i, name := range compared {
		t := s.tables[name]
		if t == nil {
			continue
		}
		if i == 0 {
			shared = t.columnNames()
			continue
		}
		shared = slices.DeleteFunc(shared, func(c string) bool { return !slices.Contains(t.columnNames(), c) })
	}
	return shared
}

// columnNames is every column of the table in the database's terms: seq
// and company when it has them, then the schema's columns.
func (t *table) columnNames() []string {
	var names []string
	if t.Seq {
		names = append(names, seqColumn)
	}
	if t.Company {
		names = append(names, companyColumn)
	}
	for _, c := range t.allCols {
		names = append(names, c.Name)
	}
	return names
}

// held counts the rows of a table that hold a value in column (every row
// when column is ""), per company when it has companies.
func (s *Store) held(ctx context.Context, q sqldb.Querier, table string, byCompany bool, column string) (migration.Held, error) {
	counted := "COUNT(*)"
	if column != "" {
		counted = "COUNT(" + sqldb.Quote(column) + ")" // counts the values that are not NULL
	}
	query := `SELECT '' AS "company", ` + counted + ` AS "n" FROM ` + sqldb.Quote(table)
	if byCompany {
		query = `SELECT "company", ` + counted + ` AS "n" FROM ` + sqldb.Quote(table) + ` GROUP BY "company" ORDER BY "company"`
	}
	var all migration.Held
	if err := sqldb.Select(ctx, q, &all, query); err != nil {
		return nil, fmt.Errorf("count %s: %w", table, err)
	}
	return slices.DeleteFunc(all, func(c migration.CompanyCount) bool { return c.N == 0 }), nil
}

// tableNames lists the tables of the database the store works in: on
// PostgreSQL the current schema's, on SQLite every one but its own.
func (s *Store) tableNames(ctx context.Context, q sqldb.Querier) (map[string]bool, error) {
	query := `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\_%' ESCAPE '\'`
	if s.db.Dialect().Postgres() {
		query = `SELECT tablename FROM pg_tables WHERE schemaname = current_schema()`
	}
	var names []string
	if err := sqldb.Select(ctx, q, &names, query); err != nil {
		return nil, fmt.Errorf("list tables: %w", err)
	}
	set := map[string]bool{}
	for _, n := range names {
		set[n] = true
	}
	return set, nil
}

// columnNames lists a table's columns in the database.
func (s *Store) columnNames(ctx context.Context, q sqldb.Querier, table string) ([]string, error) {
	var names []string
	if err := sqldb.Select(ctx, q, &names, s.db.Dialect().ColumnsQuery(), table); err != nil {
		return nil, fmt.Errorf("list the columns of %s: %w", table, err)
	}
	return names, nil
}

// isOwnTable reports whether a table is one the store keeps for itself.
func isOwnTable(name string) bool {
	return slices.ContainsFunc(ownTables, func(own struct{ name, ddl string }) bool { return own.name == name })
}

// OwnTableNames are the tables the store keeps for itself beside the
// schema's (number series, record counts).
func OwnTableNames() []string {
	names := make([]string, len(ownTables))
	for i, own := range ownTables {
		names[i] = own.name
	}
	return names
}

// apply carries out the steps that change what exists (the renames,
// copies and drops); Migrate then creates and adds what is missing.
func (s *Store) apply(ctx context.Context, tx *sqldb.Tx, p *migration.Plan) error {
	for _, st := range p.Steps {
		table := sqldb.Quote(st.Table)
		var stmts []string
		switch st.Kind {
		case migration.RenameColumn:
			// An index on the old column keeps its old name: drop it, and
			// Migrate creates the schema's under their names.
			drops, err := s.indexesOn(ctx, tx, st.Table, st.From)
			if err != nil {
				return err
			}
			stmts = append(drops, fmt.Sprintf("ALTER TABLE %s RENAME COLUMN %s TO %s", table, sqldb.Quote(st.From), sqldb.Quote(st.Column)))
		case migration.CopyColumn, migration.DropColumn:
			drops, err := s.indexesOn(ctx, tx, st.Table, cmp.Or(st.From, st.Column))
			if err != nil {
				return err
			}
			if st.Kind == migration.CopyColumn {
				stmts = append(stmts, fmt.Sprintf("UPDATE %s SET %s = %s WHERE %s IS NOT NULL",
					table, sqldb.Quote(st.Column), sqldb.Quote(st.From), sqldb.Quote(st.From)))
			}
			// SQLite cannot drop an indexed column; PostgreSQL would drop
			// the index with it.
			stmts = append(stmts, drops...)
			stmts = append(stmts, fmt.Sprintf("ALTER TABLE %s DROP COLUMN %s", table, sqldb.Quote(cmp.Or(st.From, st.Column))))
		case migration.DropTable:
			stmts = append(stmts, "DROP TABLE "+table)
		default:
			continue // created and added by Migrate
		}
		for _, stmt := range stmts {
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("%s: %w", stmt, err)
			}
		}
		if st.Kind == migration.DropTable {
			for _, counts := range []string{`DELETE FROM "record_counts" WHERE "register" = ?`, `DELETE FROM "record_count_deltas" WHERE "register" = ?`} {
				if _, err := sqldb.Exec(ctx, tx, counts, st.Table); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// indexesOn returns the statements that drop the indexes of a table that
// cover a column (none of them a primary key).
func (s *Store) indexesOn(ctx context.Context, q sqldb.Querier, table, column string) ([]string, error) {
	query := `SELECT DISTINCT il.name FROM pragma_index_list(?) AS il, pragma_index_info(il.name) AS ii
		WHERE ii.name = ? AND il.origin = 'c'`
	if s.db.Dialect().Postgres() {
		query = `SELECT DISTINCT i.relname FROM pg_index x
			JOIN pg_class i ON i.oid = x.indexrelid
			JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = ANY(x.indkey)
			WHERE x.indrelid = to_regclass(quote_ident(CAST(? AS TEXT))) AND a.attname = ? AND NOT x.indisprimary`
	}
	var names []string
	if err := sqldb.Select(ctx, q, &names, query, table, column); err != nil {
		return nil, fmt.Errorf("list the indexes on %s.%s: %w", table, column, err)
	}
	stmts := make([]string, len(names))
	for i, n := range names {
		stmts[i] = "DROP INDEX " + sqldb.Quote(n)
	}
	return stmts, nil
}
