package read

import (
	"context"
	"fmt"

	"fieldapi/catalog"
	"fieldapi/engine"
	"fieldapi/engine/pipeline/permissions"
	"fieldapi/engine/pipeline/registers"
	"fieldapi/engine/store"
)

// expand sets the relations asked (catalog Register.Expansions) on a page
// of r's records under the expansion's name: the referenced record (nil
// when none) or the line list. Each is one query for the page (with what
// completes the expanded records), and needs the expanded register's read
// permission.
func (e *Reads) expand(ctx context.Context, s engine.Session, r *registers.Register, recs []engine.Record, asked []engine.Expand) error {
	for _, x := range asked {
		ex := r.Reg.Expansion(x.Name)
		if ex == nil {
			return fmt.Errorf("%s has no expansion %q", r.Reg.Name, x.Name)
		}
		target := e.registers[ex.Register]
		if err := e.perms.Check(ctx, e.store, s, target.Reg.Name, permissions.Read); err != nil {
			return err
		}
		sh, err := e.shapeOf(target, engine.Shape{Fields: x.Fields})
		if err != nil {
			return err
		}
		if ex.Line != nil {
			err = e.attachLines(ctx, e.store, r, s.Company, recs, ex.Line, sh, x.MaxLines)
		} else {
			err = e.attachReferenced(ctx, s.Company, recs, ex, target, sh)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// attachReferenced sets on each record the record its reference field
// ex.Field names, read in one query by the key (or the lookup key the
// field holds, catalog referencesBy).
func (e *Reads) attachReferenced(ctx context.Context, company string, recs []engine.Record, ex *catalog.Expansion, target *registers.Register, sh readShape) error {
	by := target.Key
	if ex.Field.ReferencesBy != "" {
		by = target.Reg.Field(ex.Field.ReferencesBy)
	}
	var values []any
	seen := map[string]bool{}
	for _, rec := range recs {
		rec[ex.Name] = nil
		if v, ok := rec[ex.Field.Name].(string); ok && v != "" && !seen[v] {
			seen[v] = true
			values = append(values, v)
		}
	}
	if len(values) == 0 {
		return nil
	}
	cond, err := condition(target, by, engine.Condition{Field: by.Name, Op: engine.OpIn, Values: values})
	if err != nil {
		return err
	}
	columns := sh.columns
	if !(target.EngineKeyed && by == target.Key) { // an engine key is the row's Seq, read always
		columns = withColumn(sh.columns, by.Name)
	}
	related, seqs, err := e.fetchAs(ctx, e.store, target, store.Select{Table: target.Reg.Name, Company: company, Where: []store.Cond{cond}, Columns: columns}, sh)
	if err != nil {
		return err
	}
	if err := e.completeAs(ctx, e.store, target, company, related, seqs, sh); err != nil {
		return err
	}
	byValue := make(map[string]engine.Record, len(related))
	for _, rel := range related {
		if v, ok := rel[by.Name].(string); ok {
			byValue[v] = rel
		}
	}
	for _, rec := range recs {
		if v, ok := rec[ex.Field.Name].(string); ok {
			if rel, found := byValue[v]; found {
				rec[ex.Name] = rel
			}
		}
	}
	return nil
}
