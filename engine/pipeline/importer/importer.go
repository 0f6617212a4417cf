// Package importer writes data as it is given, outside the API: the
// companies of a data set (Import: the demo companies, with what modules
// keep beside each record) and bulk loads (BulkInsert, with numbers taken
// by ReserveNumbers). No rule, reference check or change log runs; values
// must still have their fields' types.
package importer

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"fieldapi/catalog"
	"fieldapi/engine/dataset"
	"fieldapi/engine/extrafields"
	"fieldapi/engine/pipeline/registers"
	"fieldapi/engine/pipeline/settings"
	"fieldapi/engine/store"
)

// Import writes a company's data as it is given (package dataset): the
// engine's own load path, used for the demo companies. It is not an API
// write: any stored field may be set, nothing is logged in the change log,
// no status transition, reference or extra-field definition is checked,
// and no rule of a register runs. Values must still have their fields'
// types. The company is created if it is new; its batches are imported in
// one transaction, each at most once (see dataset.Batch); afterwards each
// number series of the company is moved past the highest key in use.
func (e *Importer) Import(ctx context.Context, c dataset.Company) error {
	// The company's settings may have changed: the next write reads them.
	defer e.settings.Forget(c.ID)
	return e.store.Write(ctx, func(ctx context.Context, tx store.Tx) error {
		if err := tx.Upsert(ctx, registers.CompaniesTable, "", store.Values{"id": c.ID, "name": c.Name}, []string{"id"}, nil); err != nil {
			return err
		}
		im := companyImport{e: e, tx: tx, company: c.ID, now: registers.FormatTime(e.now())}
		for _, b := range c.Batches {
			if err := im.batch(ctx, b); err != nil {
				return fmt.Errorf("import %s, %s: %w", c.ID, b.Name, err)
			}
		}
		return im.alignNumberSeries(ctx)
	})
}

// Importer writes data sets into one store. Wire it (ImportsWith) before
// it imports.
type Importer struct {
	cat       *catalog.Catalog
	store     store.Store
	registers registers.Set
	settings  *settings.Cache // forgets the settings an import writes
	now       func() time.Time
	importers []RecordImporter // the modules' parts of Import
}

// New makes the importer of a catalog's registers over a store, stamping
// what it writes with the clock's time; the writes' cache of settings
// forgets the companies it imports.
func New(cat *catalog.Catalog, regs registers.Set, st store.Store, cache *settings.Cache, now func() time.Time) *Importer {
	return &Importer{cat: cat, store: st, registers: regs, settings: cache, now: now}
}

// RecordImporter writes what a dataset record keeps beside its fields (its
// documents, its position) for the module that keeps them, in the
// import's transaction; seq is the record's row.
type RecordImporter func(ctx context.Context, tx store.Tx, company, register string, seq int64, rec dataset.Record) error

// ImportsWith adds a module's part of the import path. Call it while
// wiring the engine, before it serves.
func (e *Importer) ImportsWith(fn RecordImporter) { e.importers = append(e.importers, fn) }

// companyImport writes the batches of one company inside one transaction.
type companyImport struct {
	e       *Importer
	tx      store.Tx
	company string
	now     string // Modified of everything imported, and the batch markers
}

func (im companyImport) batch(ctx context.Context, b dataset.Batch) error {
	if slices.ContainsFunc(b.Registers, func(r dataset.Register) bool { return im.e.registers[r.Name] == nil }) {
		return nil // not in this catalog (yet): imported once it is
	}
	done, err := im.tx.Count(ctx, store.Select{Table: registers.SettingsTable, Company: im.company, Where: []store.Cond{store.Equal("name", b.Name)}})
	if err != nil || done > 0 {
		return err
	}
	for _, s := range b.Settings {
		if err := im.tx.Upsert(ctx, registers.SettingsTable, im.company, store.Values{"name": s.Name, "value": s.Value}, []string{"name"}, nil); err != nil {
			return err
		}
	}
	if err := extrafields.Import(ctx, im.tx, im.company, b.ExtraFieldDefs); err != nil {
		return err
	}
	if len(b.FieldNames) > 0 {
		rows := make([]store.Values, len(b.FieldNames))
		for i, n := range b.FieldNames {
			rows[i] = store.Values{"db_field_name": n.DbFieldName, "user_field_name": n.UserFieldName, "list_only": n.ListOnly, "hidden": n.Hidden}
		}
		if _, err := im.tx.Insert(ctx, registers.FieldNamesTable, im.company, rows); err != nil {
			return err
		}
	}
	for _, r := range b.Registers {
		if err := im.records(ctx, im.e.registers[r.Name], r.Records); err != nil {
			return err
		}
	}
	_, err = im.tx.Insert(ctx, registers.SettingsTable, im.company, []store.Values{{"name": b.Name, "value": im.now}})
	return err
}

// records inserts the records of one register, with their extra-field
// values, permissions and what modules keep beside them. An error names
// the register and the record: "customers[1]: ...".
func (im companyImport) records(ctx context.Context, r *registers.Register, recs []dataset.Record) error {
	if len(recs) == 0 {
		return nil
	}
	rows := make([]store.Values, len(recs))
	for i, rec := range recs {
		row, err := storedRow(r, rec.Values, im.now)
		if err != nil {
			return fmt.Errorf("%s[%d]: %w", r.Reg.Name, i, err)
		}
		if rec.Permissions != "" {
			if r.Reg.Name != registers.Users {
				return fmt.Errorf("%s[%d]: only %s have permissions", r.Reg.Name, i, registers.Users)
			}
			row[registers.PermissionsColumn] = rec.Permissions
		}
		rows[i] = row
	}
	seqs, err := im.tx.Insert(ctx, r.Reg.Name, im.company, rows)
	if err != nil {
		return fmt.Errorf("%s: %w", r.Reg.Name, err)
	}
	for i, rec := range recs {
		if err := extrafields.Write(ctx, im.tx, im.company, r.Reg.Name, seqs[i], rec.Extra); err != nil {
			return fmt.Errorf("%s[%d]: %w", r.Reg.Name, i, err)
		}
		for _, fn := range im.e.importers {
			if err := fn(ctx, im.tx, im.company, r.Reg.Name, seqs[i], rec); err != nil {
				return fmt.Errorf("%s[%d]: %w", r.Reg.Name, i, err)
			}
		}
	}
	return nil
}

// storedRow is a dataset record's values as a row modified at now: every
// field stored, typed as the catalog says, an empty lookup key none, as an
// API write stores it (registers.Normalize).
func storedRow(r *registers.Register, values map[string]any, now string) (store.Values, error) {
	row := make(store.Values, len(values)+2)
	for name, v := range values {
		f := r.Reg.Field(name)
		if f == nil {
			return nil, fmt.Errorf("%s has no field %q", r.Reg.Name, name)
		}
		if r.EngineKeyed && f == r.Key {
			return nil, registers.RefuseEngineAssigned(name)
		}
		n, err := registers.Normalize(f, v)
		if err != nil {
			return nil, err
		}
		row[name] = n
	}
	row[registers.ModifiedField] = now
	return row, nil
}

// alignNumberSeries moves each number series of the company past the
// highest numeric key in use, so new numbers never collide with imported keys.
func (im companyImport) alignNumberSeries(ctx context.Context) error {
	for _, reg := range im.e.cat.Registers {
		r := im.e.registers[reg.Name]
		if !reg.NumberSeries || r.EngineKeyed {
			continue
		}
		rows, err := im.tx.Select(ctx, store.Select{Table: reg.Name, Company: im.company, Columns: []string{r.Key.Name},
			Where: []store.Cond{{Field: r.Key.Name, Op: store.NotNull}}})
		if err != nil {
			return err
		}
		next := int64(1)
		for _, row := range rows {
			if n, err := strconv.ParseInt(fmt.Sprint(row.Values[r.Key.Name]), 10, 64); err == nil && n >= next {
				next = n + 1
			}
		}
		if err := im.tx.AlignNumbers(ctx, im.company, reg.Name, next); err != nil {
			return err
		}
	}
	return nil
}

// BulkInsert writes the records of each register, in order, for a company
// that exists, in one transaction: the path for data sets too large for
// Import, such as "fieldapi seed"'s million tasks. Like Import it writes
// values as they are given (no rule, reference or change log) but only
// plain values: no extra fields, documents or positions. A record's key
// must be given where the register is not keyed by the engine: take
// numbers with ReserveNumbers.
func (e *Importer) BulkInsert(ctx context.Context, company string, regs []dataset.Register) error {
	now := registers.FormatTime(e.now())
	return e.store.Write(ctx, func(ctx context.Context, tx store.Tx) error {
		for _, reg := range regs {
			r, err := e.registers.Get(reg.Name)
			if err != nil {
				return err
			}
			rows := make([]store.Values, len(reg.Records))
			for i, rec := range reg.Records {
				if rows[i], err = storedRow(r, rec.Values, now); err != nil {
					return fmt.Errorf("bulk %s[%d]: %w", reg.Name, i, err)
				}
			}
			if _, err := tx.Insert(ctx, r.Reg.Name, company, rows); err != nil {
				return fmt.Errorf("bulk %s: %w", reg.Name, err)
			}
		}
		return nil
	})
}

// ReserveNumbers takes n numbers of a register's number series for a
// company, in increasing order (consecutive where the store's series
// are: store.Tx.NextNumbers). Keys above the series' next (given by hand)
// are the caller's to avoid: a bulk load takes its numbers here before
// anyone else writes.
func (e *Importer) ReserveNumbers(ctx context.Context, company, register string, n int) ([]int64, error) {
	r, err := e.registers.Get(register)
	if err != nil {
		return nil, err
	}
	if !r.Reg.NumberSeries || r.EngineKeyed {
		return nil, fmt.Errorf("%s has no number series", register)
	}
	var numbers []int64
	err = e.store.Write(ctx, func(ctx context.Context, tx store.Tx) error {
		numbers, err = tx.NextNumbers(ctx, company, register, n)
		return err
	})
	return numbers, err
}

// ImportedBatches names the import batches (dataset.Batch) a company has
// imported (its settings hold one per batch, beside its own: ask it about
// batch names only); empty for a company that does not exist.
func (e *Importer) ImportedBatches(ctx context.Context, company string) (map[string]bool, error) {
	rows, err := e.store.Select(ctx, store.Select{Table: registers.SettingsTable, Company: company, Columns: []string{"name"}})
	if err != nil {
		return nil, err
	}
	names := make(map[string]bool, len(rows))
	for _, row := range rows {
		name, _ := row.Values["name"].(string)
		names[name] = true
	}
	return names, nil
}
