// Package migration is the vocabulary of a schema migration, shared by
// the store that carries one out (engine/store/sqlstore) and whoever
// decides and reports it (engine/reference, from the catalog): what the
// caller tells the store about tables and columns the schema lacks
// (Evolution), what the store will change (Plan and its Steps), what it
// leaves (Leftover) and what refuses it (Conflict, RefusedError).
package migration

import (
	"fmt"
	"slices"
	"strings"
)

// Evolution is what the caller, who knows where the schema came from,
// tells the store about the tables and columns the schema lacks.
type Evolution struct {
	// Compared are the tables whose columns are compared with the schema
	// (a register's): a column the schema lacks is a leftover. A table of
	// the database that the schema lacks is a leftover too when it has
	// every column the compared tables share (a former register's).
	Compared []string
	// Foreign are tables others keep in the same database (the
	// platform's): never compared, never leftovers.
	Foreign []string
	// Renamed are columns whose values move to another, by table: new
	// column → old column.
	Renamed map[string]map[string]string
	// Removed are columns to drop with their values, by table.
	Removed map[string][]string
	// RemovedTables are former tables to drop with their rows.
	RemovedTables []string
}

// Plan is what Migrate changes in a database: its steps in the order they
// run, and the leftovers it keeps.
type Plan struct {
	// Fresh: the database has none of the schema's tables yet.
	Fresh bool
	Steps []Step
	// Leftovers are tables and columns the schema lacks and no step
	// removes. One that holds values refuses the migration (Refused).
	Leftovers []Leftover
	// Conflicts are renames whose new column holds values already: the
	// old values would overwrite them, so they refuse the migration.
	Conflicts []Conflict
}

// Refused reports whether the plan keeps Migrate from changing anything.
func (p *Plan) Refused() bool {
	return len(p.Conflicts) > 0 || slices.ContainsFunc(p.Leftovers, func(l Leftover) bool { return l.Held.Total() > 0 })
}

// StepKind is what a step does.
type StepKind uint8

// The steps of a plan.
const (
	CreateTable  StepKind = iota // Table, with every column and index
	AddColumn                    // Column, to Table's rows (empty)
	RenameColumn                 // From becomes Column; Held: the values it carries
	CopyColumn                   // From's values into the empty Column, then From is dropped; Held: the values copied
	DropColumn                   // Column and its values; Held: the values dropped
	DropTable                    // Table and its rows; Held: the rows dropped
)

// Step is one change of a plan.
type Step struct {
	Kind   StepKind
	Table  string
	Column string
	From   string // RenameColumn and CopyColumn: the old column
	Held   Held
}

// Leftover is a table (Column "") or a column of a compared table that
// the schema lacks.
type Leftover struct {
	Table  string
	Column string
	Held   Held // rows of the table, or rows holding a value (not NULL) in the column
}

// Conflict is a rename whose both columns hold values.
type Conflict struct {
	Table            string
	Column, From     string
	HeldNew, HeldOld Held
}

// Held counts the rows holding a value, per company (company "" for a
// table without companies); only companies with some, by company.
type Held []CompanyCount

// CompanyCount is one company's number of rows.
type CompanyCount struct {
	Company string `db:"company"`
	N       int64  `db:"n"`
}

// Total is the rows of every company.
func (h Held) Total() int64 {
	var n int64
	for _, c := range h {
		n += c.N
	}
	return n
}

// RefusedError is a migration refused by its plan: nothing was changed.
type RefusedError struct{ Plan *Plan }

func (e *RefusedError) Error() string {
	var what []string
	for _, l := range e.Plan.Leftovers {
		name := "table " + l.Table
		if l.Column != "" {
			name = l.Table + "." + l.Column
		}
		if l.Held.Total() > 0 {
			what = append(what, fmt.Sprintf("%s holds %d values the schema lacks", name, l.Held.Total()))
		}
	}
	for _, c := range e.Plan.Conflicts {
		what = append(what, fmt.Sprintf("%s.%s cannot take %s's values: it holds %d of its own", c.Table, c.Column, c.From, c.HeldNew.Total()))
	}
	return "migration refused, nothing changed: " + strings.Join(what, "; ")
}
