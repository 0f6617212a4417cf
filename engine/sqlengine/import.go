package sqlengine

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"fieldapi/engine"
	"fieldapi/engine/dataset"
)

// Import writes a company's data as it is given (package dataset): the
// engine's own load path, used for the demo companies. It is not an API
// write: any stored field may be set, nothing is logged in the change log,
// no status transition, reference or extra-field definition is checked,
// and no rule of a register runs. Values must still have their fields'
// types. The company is created if it is new; its batches are imported in
// one transaction, each at most once (see dataset.Batch); afterwards each
// number series of the company is moved past the highest key in use.
func (e *Engine) Import(ctx context.Context, c dataset.Company) error {
	_, err := call(e, ctx, func(ctx context.Context) (struct{}, error) {
		return struct{}{}, e.inTx(ctx, func(tx *txn) error {
			_, err := exec(ctx, tx, `INSERT INTO "companies" ("id", "name") VALUES (?, ?) ON CONFLICT ("id") DO NOTHING`, c.ID, c.Name)
			if err != nil {
				return err
			}
			im := importer{e: e, tx: tx, company: c.ID, now: e.now()}
			for _, b := range c.Batches {
				if err := im.batch(ctx, b); err != nil {
					return fmt.Errorf("import %s, %s: %w", c.ID, b.Name, err)
				}
			}
			return im.alignNumberSeries(ctx)
		})
	})
	return err
}

// importer writes the batches of one company inside one transaction.
type importer struct {
	e       *Engine
	tx      *txn
	company string
	now     string // Modified of everything imported, and the batch markers
}

func (im importer) batch(ctx context.Context, b dataset.Batch) error {
	for _, r := range b.Registers {
		if im.e.tables[r.Name] == nil {
			return nil // not in this catalog (yet): imported once it is
		}
	}
	var done int
	if err := get(ctx, im.tx, &done, `SELECT COUNT(*) FROM "settings" WHERE "company" = ? AND "name" = ?`, im.company, b.Name); err != nil {
		return err
	}
	if done > 0 {
		return nil
	}
	for _, s := range b.Settings {
		_, err := exec(ctx, im.tx, `INSERT INTO "settings" ("company", "name", "value") VALUES (?, ?, ?)
			ON CONFLICT ("company", "name") DO NOTHING`, im.company, s.Name, s.Value)
		if err != nil {
			return err
		}
	}
	if err := im.extraFieldDefs(ctx, b.ExtraFieldDefs); err != nil {
		return err
	}
	for _, n := range b.FieldNames {
		_, err := exec(ctx, im.tx, `INSERT INTO "field_names" ("company", "db_field_name", "user_field_name", "list_only", "hidden")
			VALUES (?, ?, ?, ?, ?)`, im.company, n.DbFieldName, n.UserFieldName, n.ListOnly, n.Hidden)
		if err != nil {
			return err
		}
	}
	for _, r := range b.Registers {
		t := im.e.tables[r.Name]
		for i, rec := range r.Records {
			if err := im.record(ctx, t, rec); err != nil {
				return fmt.Errorf("%s[%d]: %w", r.Name, i, err)
			}
		}
	}
	_, err := exec(ctx, im.tx, `INSERT INTO "settings" ("company", "name", "value") VALUES (?, ?, ?)`, im.company, b.Name, im.now)
	return err
}

func (im importer) extraFieldDefs(ctx context.Context, defs []dataset.ExtraFieldDef) error {
	for _, d := range defs {
		computed := d.SQLExpr != ""
		options, err := json.Marshal(nonNil(d.Options))
		if err != nil {
			return err
		}
		_, err = exec(ctx, im.tx, `INSERT INTO "extra_field_defs"
			("company", "register", "key", "name", "category", "type", "writable", "read_only", "computed", "options", "sql_expr")
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			im.company, d.Register, d.Key, d.Name, d.Category, d.Type,
			!d.ReadOnly && !computed, d.ReadOnly, computed, string(options), d.SQLExpr)
		if err != nil {
			return err
		}
	}
	return nil
}

// record inserts one record with its extra-field values, permissions,
// documents and location.
func (im importer) record(ctx context.Context, t *table, rec dataset.Record) error {
	values := make(map[string]any, len(rec.Values))
	for name, v := range rec.Values {
		f, err := t.field(name)
		if err != nil {
			return err
		}
		if t.engineKeyed && f == t.key {
			return fmt.Errorf("%s is assigned by the engine", name)
		}
		if values[name], err = normalize(f, v); err != nil {
			return err
		}
	}
	w := &writer{e: im.e, tx: im.tx, s: engine.Session{Company: im.company}, now: im.now}
	seq, err := w.insert(ctx, t, values)
	if err != nil {
		return err
	}
	if err := writeExtra(ctx, im.tx, t, im.company, seq, rec.Extra); err != nil {
		return err
	}
	if rec.Permissions != "" {
		if t.reg.Name != usersRegister {
			return fmt.Errorf("only %s have permissions", usersRegister)
		}
		_, err := exec(ctx, im.tx, `UPDATE "users" SET "permissions" = ? WHERE "seq" = ?`, rec.Permissions, seq)
		if err != nil {
			return err
		}
	}
	for _, d := range rec.Documents {
		doc := document{Name: d.Name, DocType: d.DocType, Kind: d.Kind, Internal: d.Internal, Content: d.Content, LinkPath: d.LinkPath, HTML: d.HTML}
		if _, err := w.addDocument(ctx, t, seq, doc); err != nil {
			return err
		}
	}
	if rec.Location != nil {
		return im.e.saveLocation(ctx, im.tx, t, im.company, seq, locationRowOf(*rec.Location))
	}
	return nil
}

// alignNumberSeries moves each number series of the company past the
// highest numeric key in use, so new numbers never collide with imported keys.
func (im importer) alignNumberSeries(ctx context.Context) error {
	for _, r := range im.e.cat.Registers {
		t := im.e.tables[r.Name]
		if !r.NumberSeries || t.engineKeyed {
			continue
		}
		var keys []string
		query := `SELECT ` + quote(t.key.Column) + ` FROM ` + t.name() + ` WHERE "company" = ? AND ` + quote(t.key.Column) + ` IS NOT NULL`
		if err := sel(ctx, im.tx, &keys, query, im.company); err != nil {
			return err
		}
		next := int64(1)
		for _, k := range keys {
			if n, err := strconv.ParseInt(k, 10, 64); err == nil && n >= next {
				next = n + 1
			}
		}
		_, err := exec(ctx, im.tx, `INSERT INTO "number_series" ("company", "register", "next") VALUES (?, ?, ?)
			ON CONFLICT ("company", "register") DO UPDATE SET "next" =
				CASE WHEN excluded."next" > "number_series"."next" THEN excluded."next" ELSE "number_series"."next" END`,
			im.company, r.Name, next)
		if err != nil {
			return err
		}
	}
	return nil
}
