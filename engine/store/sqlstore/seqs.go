package sqlstore

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"fieldapi/engine/sqldb"
	"fieldapi/engine/store"
)

// TakeSeqs takes Seqs ahead of the inserts. PostgreSQL: the nextvals of
// each table's serial sequence, every table in one statement. SQLite:
// the transaction, holding the write lock, moves each table's
// AUTOINCREMENT counter (sqlite_sequence) past the Seqs it takes; a table
// that has never held a row has no counter yet, and none is taken.
func (t *Tx) TakeSeqs(ctx context.Context, want map[string]int) (map[string][]int64, bool, error) {
	tables := slices.Sorted(maps.Keys(want))
	for _, name := range tables {
		if tb, err := t.s.table(name); err != nil {
			return nil, false, err
		} else if !tb.Seq || want[name] < 1 {
			return nil, false, fmt.Errorf("sqlstore: %d Seqs of table %s asked for", want[name], name)
		}
	}
	if t.s.db.Dialect().Postgres() {
		return t.takeSequences(ctx, tables, want)
	}
	seqs := make(map[string][]int64, len(tables))
	for _, name := range tables {
		tb, _ := t.s.table(name)
		var last []int64
		if err := sqldb.Select(ctx, t.tx, &last, `UPDATE "sqlite_sequence"
			SET "seq" = max("seq", COALESCE((SELECT MAX("seq") FROM `+tb.name+`), 0)) + ?
			WHERE "name" = ? RETURNING "seq"`, want[name], tb.Name); err != nil {
			return nil, false, err
		}
		if len(last) != 1 {
			return nil, false, nil // the transaction rolls back what it moved
		}
		seqs[name] = store.Consecutive(last[0]-int64(want[name])+1, want[name])
	}
	return seqs, true, nil
}

// takeSequences takes Seqs of PostgreSQL's serial sequences.
func (t *Tx) takeSequences(ctx context.Context, tables []string, want map[string]int) (map[string][]int64, bool, error) {
	parts := make([]string, len(tables))
	args := make([]any, 0, 2*len(tables))
	for i, name := range tables {
		tb, _ := t.s.table(name)
		parts[i] = `SELECT ` + strconv.Itoa(i) + ` AS "t", nextval(CAST((SELECT pg_get_serial_sequence(?, 'seq')) AS regclass)) AS "seq" FROM generate_series(1, ?)`
		args = append(args, tb.name, want[name])
	}
	seqs := make(map[string][]int64, len(tables))
	err := t.readRows(ctx, sqldb.Query{SQL: strings.Join(parts, " UNION ALL "), Args: args}, func(r sqldb.Rows) error {
		var i int
		var seq int64
		if err := r.Scan(&i, &seq); err != nil {
			return err
		}
		seqs[tables[i]] = append(seqs[tables[i]], seq)
		return nil
	})
	if err != nil {
		return nil, false, err
	}
	for _, got := range seqs {
		slices.Sort(got)
	}
	return seqs, true, nil
}

// InsertLater inserts rows with their Seqs given (TakeSeqs), their
// SeqText columns filled with them where empty, queued as Append's are:
// PostgreSQL is sent them with the transaction's next statement or its
// commit. Their order against other tables' queued rows does not
// matter: no constraint ties one table to another, and a write reads a
// record (sending the queue first) before it changes it.
func (t *Tx) InsertLater(ctx context.Context, tableName, company string, rows []store.Values, seqs []int64, failed func(error) error) error {
	tb, err := t.s.table(tableName)
	if err != nil || len(rows) == 0 {
		return err
	}
	if !tb.Seq || len(seqs) != len(rows) {
		return fmt.Errorf("sqlstore: %d rows of table %s with %d Seqs", len(rows), tb.Name, len(seqs))
	}
	filled := make([]store.Values, len(rows))
	for i, row := range rows {
		filled[i] = row
		cloned := false // the caller's row stays as it was
		for _, c := range tb.allCols {
			if c.SeqText && row[c.Field] == nil {
				if !cloned {
					filled[i], cloned = maps.Clone(row), true
				}
				filled[i][c.Field] = store.SeqText(seqs[i])
			}
		}
	}
	ins, err := tb.insertion(filled)
	if err != nil {
		return err
	}
	ins.seqs = true
	named := func(err error) error {
		err = t.duplicate(tb, err)
		if failed != nil {
			err = failed(err)
		}
		return err
	}
	return t.queueRows(ctx, ins, company, filled, seqs, named)
}

// SendQueued sends the rows queued so far ahead (store.Sender).
func (t *Tx) SendQueued(ctx context.Context) { t.tx.SendQueued(ctx) }
