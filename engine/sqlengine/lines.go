package sqlengine

import (
	"context"
	"sort"
	"time"

	"fieldapi/catalog"
	"fieldapi/engine"
)

// complete adds to records read from t what is not in their row: extra
// fields, and the line lists the catalog shows in the owner's read shape.
func (e *Engine) complete(ctx context.Context, q db, t *table, company string, recs []engine.Record, seqs []int64) error {
	if err := e.attachExtraFields(ctx, q, t, company, recs, seqs); err != nil {
		return err
	}
	return e.attachLines(ctx, q, t, company, recs)
}

// attachLines sets each line list marked read (catalog Line.Read) on the
// records under the list's ReadName, oldest line first; a record without
// lines gets an empty list. One query per list serves the whole page.
func (e *Engine) attachLines(ctx context.Context, q db, t *table, company string, recs []engine.Record) error {
	for _, l := range t.reg.Lines {
		if !l.Read || len(recs) == 0 {
			continue
		}
		lt := e.tables[l.Register]
		var keys []any
		for _, rec := range recs {
			rec[l.ReadName] = []engine.Record{}
			if key, ok := rec[t.key.Name].(string); ok {
				keys = append(keys, key)
			}
		}
		if len(keys) == 0 {
			continue
		}
		tail := " AND " + lt.column(lt.reg.Field(l.Parent)) + " IN (" + placeholders(len(keys)) + ")"
		args := keys
		cond, setArgs := lineSetCondition(lt, l)
		// No ORDER BY: asked to deliver rows in seq order, SQLite's planner
		// may walk an index on the fixed value alone (every task line, for
		// materials with OwnerType task) rather than sort a page's lines.
		tail += cond
		lines, seqs, err := e.fetch(ctx, q, lt, company, tail, append(args, setArgs...)...)
		if err != nil {
			return err
		}
		sortBySeq(lines, seqs)
		if err := e.complete(ctx, q, lt, company, lines, seqs); err != nil {
			return err
		}
		byOwner := map[string][]engine.Record{}
		for _, line := range lines {
			owner, _ := line[l.Parent].(string)
			byOwner[owner] = append(byOwner[owner], line)
		}
		for _, rec := range recs {
			key, _ := rec[t.key.Name].(string)
			if lines := byOwner[key]; lines != nil {
				rec[l.ReadName] = lines
			}
		}
	}
	return nil
}

// lineSetCondition selects the lines of one list among the line register's
// records: those carrying the list's fixed values (OwnerType task, not quote).
func lineSetCondition(lt *table, l *catalog.Line) (string, []any) {
	names := make([]string, 0, len(l.Set))
	for name := range l.Set {
		names = append(names, name)
	}
	sort.Strings(names)
	var cond string
	var args []any
	for _, name := range names {
		f := lt.reg.Field(name)
		cond += " AND " + lt.column(f) + " = ?"
		args = append(args, toDB(f, setValue(f, l.Set[name])))
	}
	return cond, args
}

// setValue is a line list's fixed value in its field's type.
func setValue(f *catalog.Field, text string) any {
	v, err := parseDefault(f, text, "", time.Time{})
	if err != nil {
		return text // the catalog validated the field; keep the text as is
	}
	return v
}

// sortBySeq puts records read together into seq order, oldest first.
func sortBySeq(recs []engine.Record, seqs []int64) {
	order := make([]int, len(recs))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return seqs[order[a]] < seqs[order[b]] })
	sortedRecs, sortedSeqs := make([]engine.Record, len(recs)), make([]int64, len(seqs))
	for i, j := range order {
		sortedRecs[i], sortedSeqs[i] = recs[j], seqs[j]
	}
	copy(recs, sortedRecs)
	copy(seqs, sortedSeqs)
}
