package reference

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"fieldapi/catalog"
	"fieldapi/engine/platform/sqlplatform"
	"fieldapi/engine/store/migration"
	"fieldapi/engine/store/sqlstore"
)

// Catalog evolution: a migration compares the database's register tables
// with the catalog. A field or register no longer declared that holds
// data is refused, naming the catalog file and the ways forward
// (renamedFrom, or an explicit removal); an empty one is noted and left.
// See README "Changing the catalog safely".

// Migration is what a migration of a database changes, worded for its
// operator.
type Migration struct {
	// Fresh: the database had none of the tables; every one is created.
	Fresh bool
	// Changes are the tables and columns created, renamed and dropped, in
	// the order they are made.
	Changes []string
	// Notes are the leftovers kept as they are: a table or column the
	// catalog no longer declares that holds no data.
	Notes []string
	// Refusals are what keeps the migration from changing anything: data
	// the catalog no longer declares. Each is several lines.
	Refusals []string
}

// Refused reports whether the migration changes nothing because of data
// the catalog no longer declares.
func (m *Migration) Refused() bool { return len(m.Refusals) > 0 }

// RefusedError is a migration refused: the database holds data the
// catalog no longer declares. Nothing was changed.
type RefusedError struct{ Migration *Migration }

func (e *RefusedError) Error() string {
	var b strings.Builder
	b.WriteString("the database holds data that the catalog no longer declares; nothing was changed.\n")
	for _, r := range e.Migration.Refusals {
		b.WriteString("\n" + r)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// IsRefused reports whether err is a migration refused for data the
// catalog no longer declares.
func IsRefused(err error) bool {
	_, ok := errors.AsType[*RefusedError](err)
	return ok
}

// PlanMigration returns what ApplyMigration would do, changing nothing:
// it reads the database's catalog and counts the values concerned, and
// takes no write lock. dropRegisters are former registers (no catalog
// file any more) whose tables are to be dropped with their records. On
// memory storage nothing is kept across starts: nothing to compare.
func (e *Engine) PlanMigration(ctx context.Context, dropRegisters ...string) (*Migration, error) {
	if e.sqlStore == nil {
		return &Migration{}, nil
	}
	ev, err := e.evolution(dropRegisters)
	if err != nil {
		return nil, err
	}
	plan, err := e.sqlStore.Plan(ctx, ev)
	if err != nil {
		return nil, err
	}
	return e.describe(plan), nil
}

// ApplyMigration creates or upgrades the schema: renames and removals the
// catalog declares, dropRegisters (as PlanMigration), then every table,
// column and index missing, in one transaction. Data the catalog no
// longer declares refuses it all: the error is a *RefusedError, and the
// Migration says why. Running it again changes nothing.
func (e *Engine) ApplyMigration(ctx context.Context, dropRegisters ...string) (*Migration, error) {
	if e.sqlStore == nil {
		return &Migration{}, nil
	}
	ev, err := e.evolution(dropRegisters)
	if err != nil {
		return nil, err
	}
	plan, err := e.sqlStore.Evolve(ctx, ev)
	if refused, ok := errors.AsType[*migration.RefusedError](err); ok {
		m := e.describe(refused.Plan)
		return m, &RefusedError{Migration: m}
	}
	if err != nil {
		return nil, err
	}
	if err := e.platformMigrate(ctx); err != nil {
		return nil, err
	}
	return e.describe(plan), nil
}

// evolution is what the catalog says of the register tables: every one
// is compared; its fields' renamedFrom and its removedFields.
func (e *Engine) evolution(dropRegisters []string) (migration.Evolution, error) {
	ev := migration.Evolution{
		Foreign: sqlplatform.TableNames(),
		Renamed: map[string]map[string]string{},
		Removed: map[string][]string{},
	}
	for _, r := range e.cat.Registers {
		ev.Compared = append(ev.Compared, r.Name)
		table := e.schema.Table(r.Name)
		for _, f := range r.Fields {
			if f.RenamedFrom == "" || table.Column(f.Name) == nil {
				continue // no rename, or a field with no column (an engine-assigned key)
			}
			if ev.Renamed[r.Name] == nil {
				ev.Renamed[r.Name] = map[string]string{}
			}
			ev.Renamed[r.Name][f.Column] = catalog.Column(f.RenamedFrom)
		}
		for _, name := range r.RemovedFields {
			ev.Removed[r.Name] = append(ev.Removed[r.Name], catalog.Column(name))
		}
	}
	for _, name := range dropRegisters {
		switch {
		case e.cat.Register(name) != nil:
			return ev, fmt.Errorf("register %s is in the catalog (%s): only a register whose file is gone can be dropped", name, catalog.FileFor(name))
		case e.schema.Table(name) != nil || slices.Contains(sqlplatform.TableNames(), name) || slices.Contains(sqlstore.OwnTableNames(), name):
			return ev, fmt.Errorf("%s is a table the service keeps its own state in, not a register: it cannot be dropped", name)
		}
		ev.RemovedTables = append(ev.RemovedTables, name)
	}
	return ev, nil
}

// describe words a plan for the operator: register, field and catalog
// file rather than table and column alone.
func (e *Engine) describe(p *migration.Plan) *Migration {
	m := &Migration{Fresh: p.Fresh}
	for _, st := range p.Steps {
		if p.Fresh && st.Kind == migration.CreateTable {
			continue // a new database: "every table is created" says it
		}
		m.Changes = append(m.Changes, e.describeStep(st))
	}
	for _, l := range p.Leftovers {
		if l.Held.Total() == 0 {
			m.Notes = append(m.Notes, e.describeEmpty(l))
			continue
		}
		m.Refusals = append(m.Refusals, e.describeRefusal(l, p))
	}
	for _, c := range p.Conflicts {
		m.Refusals = append(m.Refusals, e.describeConflict(c))
	}
	return m
}

func (e *Engine) describeStep(st migration.Step) string {
	switch st.Kind {
	case migration.CreateTable:
		if r := e.cat.Register(st.Table); r != nil {
			return fmt.Sprintf("create table %s: register %s, %s", st.Table, r.Name, catalog.FileFor(r.Name))
		}
		return fmt.Sprintf("create table %s (the engine's own)", st.Table)
	case migration.AddColumn:
		if r := e.cat.Register(st.Table); r != nil {
			return fmt.Sprintf("add column %s.%s: field %s of %s", st.Table, st.Column, fieldOf(st.Column), catalog.FileFor(r.Name))
		}
		return fmt.Sprintf("add column %s.%s (the engine's own)", st.Table, st.Column)
	case migration.RenameColumn:
		return fmt.Sprintf("rename column %s.%s to %s, carrying %s: field %s, renamedFrom: %s in %s",
			st.Table, st.From, st.Column, values(st.Held), fieldOf(st.Column), fieldOf(st.From), catalog.FileFor(st.Table))
	case migration.CopyColumn:
		return fmt.Sprintf("copy %s of column %s.%s into the empty %s, then drop %s: field %s, renamedFrom: %s in %s",
			values(st.Held), st.Table, st.From, st.Column, st.From, fieldOf(st.Column), fieldOf(st.From), catalog.FileFor(st.Table))
	case migration.DropColumn:
		return fmt.Sprintf("drop column %s.%s%s: removedFields: [%s] in %s",
			st.Table, st.Column, andIts(st.Held, values), fieldOf(st.Column), catalog.FileFor(st.Table))
	case migration.DropTable:
		return fmt.Sprintf("drop table %s%s: register %s, dropped as asked (--drop-register %s)",
			st.Table, andIts(st.Held, records), st.Table, st.Table)
	}
	return fmt.Sprintf("change %s", st.Table)
}

// describeEmpty notes a leftover that holds no data.
func (e *Engine) describeEmpty(l migration.Leftover) string {
	if l.Column == "" {
		return fmt.Sprintf("table %s: register %s has no %s any more; the table holds no records (fieldapi migrate --drop-register %s drops it)",
			l.Table, l.Table, catalog.FileFor(l.Table), l.Table)
	}
	return fmt.Sprintf("column %s.%s: field %s is not in %s; no record holds a value in it (removedFields: [%s] drops the column)",
		l.Table, l.Column, fieldOf(l.Column), catalog.FileFor(l.Table), fieldOf(l.Column))
}

// describeRefusal says which data the catalog no longer declares, how
// much, and the two ways forward.
func (e *Engine) describeRefusal(l migration.Leftover, p *migration.Plan) string {
	if l.Column == "" {
		return fmt.Sprintf("register %s (table %s) has no %s any more, but the table holds %s.\n"+
			"  To keep them, put %s back.\n"+
			"  To remove them, run: fieldapi migrate --drop-register %s (with --db), which drops the table and its records.\n",
			l.Table, l.Table, catalog.FileFor(l.Table), records(l.Held), catalog.FileFor(l.Table), l.Table)
	}
	field := fieldOf(l.Column)
	var added []string // the fields new in the register: a misspelling is one of them
	for _, st := range p.Steps {
		if st.Kind == migration.AddColumn && st.Table == l.Table {
			added = append(added, fieldOf(st.Column))
		}
	}
	keep := fmt.Sprintf("  To keep them, declare %s again, or add renamedFrom: %s to the field that takes them.\n", field, field)
	if len(added) > 0 {
		which := strings.Join(added, ", ")
		if len(added) > 1 {
			which = "one of " + which
		}
		keep = fmt.Sprintf("  To keep them under a new name, add renamedFrom: %s to the field that takes them (%s, new in %s?).\n", field, which, catalog.FileFor(l.Table))
	}
	return fmt.Sprintf("register %s, field %s (column %s.%s) is not in %s, but the database holds values of it in %s.\n"+
		"%s"+
		"  To remove them, add removedFields: [%s] to %s, which drops the column and its values.\n",
		l.Table, field, l.Table, l.Column, catalog.FileFor(l.Table), records(l.Held), keep, field, catalog.FileFor(l.Table))
}

// describeConflict refuses a rename into a field that holds values.
func (e *Engine) describeConflict(c migration.Conflict) string {
	to, from := fieldOf(c.Column), fieldOf(c.From)
	return fmt.Sprintf("register %s, field %s renamedFrom: %s (%s): both hold values, %s in %s and %s in %s; carrying %s's over would overwrite %s's.\n"+
		"  To keep %s's and drop %s's, replace renamedFrom: %s by removedFields: [%s].\n"+
		"  To carry %s's over, first empty column %s.%s (set it to NULL).\n",
		c.Table, to, from, catalog.FileFor(c.Table), records(c.HeldNew), c.Column, records(c.HeldOld), c.From, from, to,
		to, from, from, from,
		from, c.Table, c.Column)
}

// andIts words what a drop takes with it: " and its 12 values in total
// (...)", or ", which holds no values".
func andIts(h migration.Held, count func(migration.Held) string) string {
	if h.Total() == 0 {
		return ", which holds " + count(h)
	}
	return " and its " + count(h)
}

// fieldOf names the field of a register column: the catalog's PascalCase
// name (custom4 → Custom4), or the column itself when no field name
// gives it.
func fieldOf(column string) string {
	if name, ok := catalog.FieldName(column); ok {
		return name
	}
	return column
}

// values counts held values: "12 values in total (by company: demo 10, demo2 2)".
func values(h migration.Held) string { return counted(h, "value", "values") }

// records counts held records: "12 records in total (by company: demo 10, demo2 2)".
func records(h migration.Held) string { return counted(h, "record", "records") }

// shownCompanies is how many companies a count names before "and N more".
const shownCompanies = 5

// counted words a count: the total, then each company's share (the
// first few, most first), so the operator sees whose data it is.
func counted(h migration.Held, one, many string) string {
	total := h.Total()
	noun := many
	if total == 1 {
		noun = one
	}
	if total == 0 {
		return "no " + many
	}
	byCompany := slices.Clone(h)
	slices.SortStableFunc(byCompany, func(a, b migration.CompanyCount) int {
		return cmp.Or(cmp.Compare(b.N, a.N), strings.Compare(a.Company, b.Company))
	})
	if len(byCompany) == 1 && byCompany[0].Company == "" {
		return fmt.Sprintf("%d %s", total, noun)
	}
	var parts []string
	for i, c := range byCompany {
		if i == shownCompanies {
			parts = append(parts, fmt.Sprintf("and %d more companies", len(byCompany)-i))
			break
		}
		parts = append(parts, fmt.Sprintf("%s %d", c.Company, c.N))
	}
	return fmt.Sprintf("%d %s in total (by company: %s)", total, noun, strings.Join(parts, ", "))
}
