package store

import (
	"fmt"
	"strconv"
)

// Schema is every table a store keeps. The pipeline derives the register
// tables from the catalog and adds its own (settings, change log, extra
// fields, ...); modules add theirs (locations, documents). A store creates
// what is missing when it migrates and never drops anything.
type Schema struct {
	Tables []*Table
}

// Table returns the table with the given name, or nil.
func (s *Schema) Table(name string) *Table {
	for _, t := range s.Tables {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// Add appends tables, refusing a name taken already.
func (s *Schema) Add(tables ...*Table) error {
	for _, t := range tables {
		if s.Table(t.Name) != nil {
			return fmt.Errorf("store schema: table %q is declared twice", t.Name)
		}
		s.Tables = append(s.Tables, t)
	}
	return nil
}

// Table is one table.
type Table struct {
	Name string
	// Company: every row belongs to a company, named by every call, and
	// leads the key and every index.
	Company bool
	// Seq: every row gets a Seq on insert, increasing in insert order
	// across the table: newest first, cursors, engine-assigned ids.
	Seq bool
	// Counted: the store keeps each company's number of rows (Counted),
	// changed in the transaction that inserts or deletes them.
	Counted bool
	// Key is the primary key's fields after the company (none with Seq:
	// the Seq is the key).
	Key     []string
	Columns []Column
	Indexes []Index
}

// Column is one column of a table.
type Column struct {
	Field   string // the name rows and conditions use
	Name    string // the storage's name for it (SQL column)
	Type    Type
	NotNull bool
	// SeqText: a row inserted without a value for the column (absent or
	// nil) gets its own Seq there, as decimal text (SeqText), written
	// with the row (in the SQL store by the INSERT itself); a value the
	// row gives is kept. Only on a Text column of a Seq table.
	SeqText bool
}

// SeqText is what a SeqText column holds for a row whose Seq is seq.
func SeqText(seq int64) string { return strconv.FormatInt(seq, 10) }

// Type is a column's value type.
type Type uint8

// The column types and the Go types of their values.
const (
	Text   Type = iota // string (dates too: kept as sent)
	Number             // float64
	Int                // int64
	Bool               // bool
	Bytes              // []byte
	List               // []string
	Object             // map[string]string
)

// Index is an index of a table: the company (of a Company table) and then
// Fields, in order. A unique one makes a repeat a *DuplicateError.
type Index struct {
	Name   string // unique across the schema
	Fields []string
	Unique bool
}

// Column returns the column with the given field name, or nil.
func (t *Table) Column(field string) *Column {
	for i := range t.Columns {
		if t.Columns[i].Field == field {
			return &t.Columns[i]
		}
	}
	return nil
}

// Check refuses a schema a store could not keep: a table without columns,
// a column or index naming what the table lacks, a name used twice, a
// SeqText column that is not Text or whose table has no Seq.
func (s *Schema) Check() error {
	indexes := map[string]bool{}
	for _, t := range s.Tables {
		if t.Name == "" || len(t.Columns) == 0 {
			return fmt.Errorf("store schema: table %q needs a name and columns", t.Name)
		}
		if t.Seq && len(t.Key) > 0 {
			return fmt.Errorf("store schema: table %s has a Seq, which is its key; Key must be empty", t.Name)
		}
		fields, names := map[string]bool{}, map[string]bool{}
		for _, c := range t.Columns {
			if c.Field == "" || c.Name == "" || fields[c.Field] || names[c.Name] || c.Field == SeqField {
				return fmt.Errorf("store schema: table %s: column %q/%q is unnamed, reserved or declared twice", t.Name, c.Field, c.Name)
			}
			fields[c.Field], names[c.Name] = true, true
			if c.SeqText && (c.Type != Text || !t.Seq) {
				return fmt.Errorf("store schema: table %s: column %s holds the Seq as text: it must be Text, in a table with a Seq", t.Name, c.Field)
			}
		}
		for _, f := range t.Key {
			if !fields[f] {
				return fmt.Errorf("store schema: table %s: key field %q is no column", t.Name, f)
			}
		}
		for _, ix := range t.Indexes {
			if ix.Name == "" || indexes[ix.Name] {
				return fmt.Errorf("store schema: table %s: index %q is unnamed or its name is taken", t.Name, ix.Name)
			}
			indexes[ix.Name] = true
			for _, f := range ix.Fields {
				if !fields[f] && f != SeqField {
					return fmt.Errorf("store schema: table %s: index %s names %q, which is no column", t.Name, ix.Name, f)
				}
			}
		}
	}
	return nil
}
