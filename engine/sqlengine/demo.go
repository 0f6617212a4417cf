package sqlengine

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/jmoiron/sqlx"

	"fieldapi/engine"
)

// demoCompany is one company of the demo data, loaded step by step.
type demoCompany struct {
	id, name string
	steps    []demoStep
}

// demoStep loads one part of a company's demo data. It runs once: a marker
// in settings records it, so LoadDemo can run again without adding
// anything, and a step added later (a new register's demo data) still runs
// on an existing database. A step whose registers are missing from the
// catalog is skipped until they exist.
type demoStep struct {
	name  string
	needs []string // registers the step writes
	load  func(ctx context.Context, w *writer) error
}

// LoadDemo loads the demo companies "demo" and "demo2". It is idempotent.
// Records go through the same rules as API writes (references, lookups,
// defaults), as the engine's own import: not logged as API changes.
func (e *Engine) LoadDemo(ctx context.Context) error {
	// The file the demo's link documents point to, restored on every load.
	if _, err := writeDemoManual(); err != nil {
		return fmt.Errorf("demo files: %w", err)
	}
	_, err := call(e, ctx, func(ctx context.Context) (struct{}, error) {
		for _, c := range demoCompanies() {
			err := e.inTx(ctx, func(tx *sqlx.Tx) error { return e.loadDemoCompany(ctx, tx, c) })
			if err != nil {
				return struct{}{}, fmt.Errorf("demo company %s: %w", c.id, err)
			}
		}
		return struct{}{}, nil
	})
	return err
}

func (e *Engine) loadDemoCompany(ctx context.Context, tx *sqlx.Tx, c demoCompany) error {
	_, err := exec(ctx, tx, `INSERT INTO "companies" ("id", "name") VALUES (?, ?) ON CONFLICT ("id") DO NOTHING`, c.id, c.name)
	if err != nil {
		return err
	}
	w := &writer{e: e, tx: tx, s: engine.Session{Company: c.id, Sign: "API", ClientID: "demo"}, now: e.now(), trusted: true}
	for _, step := range c.steps {
		if !e.hasRegisters(step.needs) {
			continue
		}
		marker := "demo." + step.name
		var done int
		if err := get(ctx, tx, &done, `SELECT COUNT(*) FROM "settings" WHERE "company" = ? AND "name" = ?`, c.id, marker); err != nil {
			return err
		}
		if done > 0 {
			continue
		}
		if err := step.load(ctx, w); err != nil {
			return fmt.Errorf("%s: %w", step.name, err)
		}
		_, err := exec(ctx, tx, `INSERT INTO "settings" ("company", "name", "value") VALUES (?, ?, ?)`, c.id, marker, w.now)
		if err != nil {
			return err
		}
	}
	return e.alignNumberSeries(ctx, w)
}

func (e *Engine) hasRegisters(names []string) bool {
	for _, n := range names {
		if e.tables[n] == nil {
			return false
		}
	}
	return true
}

// createAll creates records of one register through the engine's rules.
func (w *writer) createAll(ctx context.Context, register string, inputs ...engine.Input) error {
	t := w.e.tables[register]
	for i, in := range inputs {
		if _, err := w.create(ctx, t, in, nil, nil); err != nil {
			return fmt.Errorf("%s[%d]: %w", register, i, err)
		}
	}
	return nil
}

// alignNumberSeries moves each number series of the company past the
// highest numeric key in use, so new numbers never collide with demo keys.
func (e *Engine) alignNumberSeries(ctx context.Context, w *writer) error {
	for _, r := range e.cat.Registers {
		t := e.tables[r.Name]
		if !r.NumberSeries || t.engineKeyed {
			continue
		}
		var keys []string
		query := `SELECT ` + quote(t.key.Column) + ` FROM ` + t.name() + ` WHERE "company" = ? AND ` + quote(t.key.Column) + ` IS NOT NULL`
		if err := sel(ctx, w.tx, &keys, query, w.s.Company); err != nil {
			return err
		}
		next := int64(1)
		for _, k := range keys {
			if n, err := strconv.ParseInt(k, 10, 64); err == nil && n >= next {
				next = n + 1
			}
		}
		_, err := exec(ctx, w.tx, `INSERT INTO "number_series" ("company", "register", "next") VALUES (?, ?, ?)
			ON CONFLICT ("company", "register") DO UPDATE SET "next" =
				CASE WHEN excluded."next" > "number_series"."next" THEN excluded."next" ELSE "number_series"."next" END`,
			w.s.Company, r.Name, next)
		if err != nil {
			return err
		}
	}
	return nil
}

// demoUser is a signature of the engine with its permissions.
type demoUser struct {
	sign, name, status, phone, email, permissions string
}

func insertUsers(users []demoUser) func(context.Context, *writer) error {
	return func(ctx context.Context, w *writer) error {
		for _, u := range users {
			in := record(map[string]any{"Sign": u.sign, "Name": u.name, "Status": u.status, "Phone": u.phone, "Email": u.email})
			if err := w.createAll(ctx, usersRegister, in); err != nil {
				return err
			}
			_, err := exec(ctx, w.tx, `UPDATE "users" SET "permissions" = ? WHERE "company" = ? AND "sign" = ?`,
				u.permissions, w.s.Company, u.sign)
			if err != nil {
				return err
			}
		}
		return nil
	}
}

// demoExtraDef is an extra-field definition of the demo data.
type demoExtraDef struct {
	register, key, name, category, typ string
	readOnly                           bool
	options                            []string
	sqlExpr                            string // makes the field computed
}

func insertExtraDefs(defs []demoExtraDef) func(context.Context, *writer) error {
	return func(ctx context.Context, w *writer) error {
		for _, d := range defs {
			computed := d.sqlExpr != ""
			options, _ := json.Marshal(nonNil(d.options))
			_, err := exec(ctx, w.tx, `INSERT INTO "extra_field_defs"
				("company", "register", "key", "name", "category", "type", "writable", "read_only", "computed", "options", "sql_expr")
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				w.s.Company, d.register, d.key, d.name, d.category, d.typ,
				!d.readOnly && !computed, d.readOnly, computed, string(options), d.sqlExpr)
			if err != nil {
				return err
			}
		}
		return nil
	}
}

func insertFieldNames(names []engine.FieldName) func(context.Context, *writer) error {
	return func(ctx context.Context, w *writer) error {
		for _, n := range names {
			_, err := exec(ctx, w.tx, `INSERT INTO "field_names" ("company", "db_field_name", "user_field_name", "list_only", "hidden")
				VALUES (?, ?, ?, ?, ?)`, w.s.Company, n.DbFieldName, n.UserFieldName, n.ListOnly, n.Hidden)
			if err != nil {
				return err
			}
		}
		return nil
	}
}

// record is an input with the given field values.
func record(values map[string]any) engine.Input { return engine.Input{Values: values} }
