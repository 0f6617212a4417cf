package sqlstore

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strings"

	"fieldapi/engine/sqldb"
	"fieldapi/engine/store"
)

// The store's own tables: number series and row counts, one row per
// company and series (or table), and the changes of the counts not yet
// added to them.
var ownTables = []struct{ name, ddl string }{
	{"number_series", `CREATE TABLE IF NOT EXISTS "number_series" (
		"company" TEXT NOT NULL,
		"register" TEXT NOT NULL,
		"next" BIGINT NOT NULL,
		PRIMARY KEY ("company", "register"))`},
	{"record_counts", `CREATE TABLE IF NOT EXISTS "record_counts" (
		"company" TEXT NOT NULL,
		"register" TEXT NOT NULL,
		"n" BIGINT NOT NULL,
		PRIMARY KEY ("company", "register"))`},
	{"record_count_deltas", `CREATE TABLE IF NOT EXISTS "record_count_deltas" (
		"company" TEXT NOT NULL,
		"register" TEXT NOT NULL,
		"n" BIGINT NOT NULL)`},
}

// countDeltasTable is the queue of count changes the merges empty.
const countDeltasTable = "record_count_deltas"

// ownIndexes are the indexes of the store's own tables.
var ownIndexes = []string{
	`CREATE INDEX IF NOT EXISTS "record_count_deltas_company" ON "record_count_deltas" ("company", "register")`,
}

// Number series. On SQLite a series is its row in number_series, taken by
// an upsert … RETURNING under the one writer's lock: numbers are
// consecutive and a rollback gives them back. On PostgreSQL a series is a
// sequence of its own, which locks nothing to the end of the transaction,
// so parallel creates never queue on their series; a rollback leaves a
// gap, and parallel transactions' numbers interleave. number_series holds
// where a series stood before its sequence (a database from before the
// sequences) and is not kept after.

// NextNumbers takes n numbers of the company's series, in one statement.
func (t *Tx) NextNumbers(ctx context.Context, company, series string, n int) ([]int64, error) {
	if n < 1 {
		return nil, fmt.Errorf("sqlstore: %d numbers of series %q asked for", n, series)
	}
	if t.s.db.Dialect().Postgres() {
		seq, err := t.sequence(ctx, company, series)
		if err != nil {
			return nil, err
		}
		var numbers []int64
		err = t.tx.ReadEach(ctx, []sqldb.Query{{SQL: `SELECT nextval(CAST(? AS regclass)) FROM generate_series(1, ?)`, Args: []any{seq, n}}},
			func(_ int, r sqldb.Rows) (err error) {
				numbers, err = scanSeqs(r)
				return err
			})
		return numbers, err
	}
	var first int64
	err := sqldb.Get(ctx, t.tx, &first, `INSERT INTO "number_series" ("company", "register", "next") VALUES (?, ?, ?)
		ON CONFLICT ("company", "register") DO UPDATE SET "next" = "number_series"."next" + ?
		RETURNING "next" - ?`, company, series, 1+n, n, n)
	return store.Consecutive(first, n), err
}

// NextFreeNumber takes the series' next number and checks it is no key
// of table's field in the company, in one statement.
func (t *Tx) NextFreeNumber(ctx context.Context, company, series, table, field string) (int64, bool, error) {
	var next freeNumber
	if t.s.db.Dialect().Postgres() {
		seq, err := t.sequence(ctx, company, series)
		if err != nil {
			return 0, false, err
		}
		q, err := t.s.nextFreeQuery(company, seq, table, field)
		if err != nil {
			return 0, false, err
		}
		err = t.readRows(ctx, q, next.scan)
		return next.N, !next.Used, err
	}
	used, err := t.s.numberUsed(table, field, `"number_series"."next" - 1`)
	if err != nil {
		return 0, false, err
	}
	err = sqldb.Get(ctx, t.tx, &next, `INSERT INTO "number_series" ("company", "register", "next") VALUES (?, ?, 2)
		ON CONFLICT ("company", "register") DO UPDATE SET "next" = "number_series"."next" + 1
		RETURNING "next" - 1 AS "n", `+used+` AS "used"`, company, series, company)
	return next.N, !next.Used, err
}

// freeNumber is a number taken from a series, and whether a row holds it.
type freeNumber struct {
	N    int64 `db:"n"`
	Used bool  `db:"used"`
}

func (f *freeNumber) scan(r sqldb.Rows) error { return r.Scan(&f.N, &f.Used) }

// nextFreeQuery takes the next number of PostgreSQL's sequence seq and
// checks it beside the nextval.
func (s *Store) nextFreeQuery(company, seq, table, field string) (sqldb.Query, error) {
	used, err := s.numberUsed(table, field, `"next"."n"`)
	if err != nil {
		return sqldb.Query{}, err
	}
	return sqldb.Query{SQL: `SELECT "next"."n", ` + used + ` AS "used"
		FROM (SELECT nextval(CAST(? AS regclass)) AS "n") AS "next"`, Args: []any{company, seq}}, nil
}

// numberUsed is the SQL of whether a row of the company (its one ?) in
// table holds the number in field, as decimal text in a text column.
func (s *Store) numberUsed(table, field, number string) (string, error) {
	tb, err := s.table(table)
	if err != nil {
		return "", err
	}
	column, c, err := tb.column(field)
	if err != nil {
		return "", err
	}
	if c != nil && c.Type == store.Text {
		number = `CAST(` + number + ` AS TEXT)`
	}
	return `EXISTS (SELECT 1 FROM ` + tb.name + ` WHERE "company" = ? AND ` + column + ` = ` + number + `)`, nil
}

// AlignNumbers moves the series' next number up to next, never down.
func (t *Tx) AlignNumbers(ctx context.Context, company, series string, next int64) error {
	if t.s.db.Dialect().Postgres() {
		seq, err := t.sequence(ctx, company, series)
		if err != nil {
			return err
		}
		// The sequence's next number is last_value, or the one after once
		// nextval has handed last_value out (is_called).
		_, err = sqldb.Exec(ctx, t.tx, `SELECT setval(CAST(? AS regclass), ?, false) FROM `+sqldb.Quote(seq)+`
			WHERE CASE WHEN is_called THEN last_value + 1 ELSE last_value END < ?`, seq, next, next)
		return err
	}
	_, err := sqldb.Exec(ctx, t.tx, `INSERT INTO "number_series" ("company", "register", "next") VALUES (?, ?, ?)
		ON CONFLICT ("company", "register") DO UPDATE SET "next" =
			CASE WHEN excluded."next" > "number_series"."next" THEN excluded."next" ELSE "number_series"."next" END`,
		company, series, next)
	return err
}

// ReturnNumbers moves a series back to from when it stands at next: on
// SQLite, whose series' row this transaction holds. A PostgreSQL sequence
// cannot go back (a parallel transaction may have taken the numbers after
// them): they stay taken, a gap.
func (t *Tx) ReturnNumbers(ctx context.Context, company, series string, from, next int64) error {
	if t.s.db.Dialect().Postgres() || from >= next {
		return nil
	}
	_, err := sqldb.Exec(ctx, t.tx, `UPDATE "number_series" SET "next" = ? WHERE "company" = ? AND "register" = ? AND "next" = ?`,
		from, company, series, next)
	return err
}

// sequence returns the name of the PostgreSQL sequence of a company's
// series, creating it in the transaction on the series' first use, from
// where number_series left it. A parallel first use waits, fails to
// create it and finds it made (the savepoint keeps the failure from
// ending its transaction); a rollback takes the sequence away.
func (t *Tx) sequence(ctx context.Context, company, series string) (string, error) {
	tx := t.tx
	name := sequenceName(company, series)
	if _, known := t.s.sequences.Load(name); known {
		return name, nil
	}
	var exists bool
	if err := sqldb.Get(ctx, tx, &exists, `SELECT to_regclass(?) IS NOT NULL`, name); err != nil {
		return "", err
	}
	if exists {
		t.s.sequences.Store(name, true)
		return name, nil
	}
	var start []int64
	if err := sqldb.Select(ctx, tx, &start, `SELECT "next" FROM "number_series" WHERE "company" = ? AND "register" = ?`, company, series); err != nil {
		return "", err
	}
	first := int64(1)
	if len(start) == 1 {
		first = max(start[0], 1)
	}
	if _, err := sqldb.Exec(ctx, tx, `SAVEPOINT "number_sequence"`); err != nil {
		return "", err
	}
	_, err := sqldb.Exec(ctx, tx, fmt.Sprintf(`CREATE SEQUENCE IF NOT EXISTS %s START WITH %d`, sqldb.Quote(name), first))
	undo := `RELEASE SAVEPOINT "number_sequence"`
	if err != nil {
		undo = `ROLLBACK TO SAVEPOINT "number_sequence"` // made by a parallel first use, which committed
	}
	if _, err := sqldb.Exec(ctx, tx, undo); err != nil {
		return "", err
	}
	if err != nil {
		if err := sqldb.Get(ctx, tx, &exists, `SELECT to_regclass(?) IS NOT NULL`, name); err != nil || !exists {
			return "", fmt.Errorf("sqlstore: create the sequence of series %q: %w", series, err)
		}
	}
	t.created = append(t.created, name) // known once committed: a rollback takes it away
	return name, nil
}

// sequenceName is the name of the PostgreSQL sequence of a company's
// series.
func sequenceName(company, series string) string {
	sum := sha256.Sum256([]byte(company + "\x00" + series))
	return "number_" + hex.EncodeToString(sum[:12])
}

// Row counts of Counted tables: a list's total is one row read (and a few
// deltas), not a scan. A count changes in the transaction that inserts or
// deletes the rows (a rollback or a crash takes both away together): it
// inserts its changes as delta rows in one statement just before its
// commit. Inserting locks no row, so creates of one company never queue on
// their count, as an UPDATE of its row would. A count is its row plus its
// deltas; every mergeEvery delta rows the store adds them to the count
// rows. A missing count row means no rows: Migrate counts a table that was
// never counted, and never replaces a count.

// mergeEvery is how many delta rows a store writes before it merges
// them: reading a count sums a handful, merging costs writes little.
const mergeEvery = 256

// countKey is one count row.
type countKey struct{ table, company string }

// addCount notes n rows inserted (or, negative, deleted) in a Counted
// table.
func (t *Tx) addCount(tb *table, company string, n int64) {
	if !tb.Counted || n == 0 {
		return
	}
	if t.counts == nil {
		t.counts = map[countKey]int64{}
	}
	t.counts[countKey{tb.Name, company}] += n
}

// flushCounts writes the transaction's count changes as delta rows and
// returns how many.
func (t *Tx) flushCounts(ctx context.Context) (int, error) {
	keys := make([]countKey, 0, len(t.counts))
	for k, n := range t.counts {
		if n != 0 {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return 0, nil
	}
	values, args := countRows(keys, t.counts)
	t.counts = nil
	err := t.tx.ExecLater(ctx, nil, `INSERT INTO "record_count_deltas" ("company", "register", "n") VALUES `+values, args...)
	return len(keys), err
}

// countRows are the VALUES of the rows of keys: company, table, n.
func countRows(keys []countKey, n map[countKey]int64) (string, []any) {
	values := make([]string, len(keys))
	args := make([]any, 0, 3*len(keys))
	for i, k := range keys {
		values[i] = "(?, ?, ?)"
		args = append(args, k.company, k.table, n[k])
	}
	return strings.Join(values, ", "), args
}

// noteDeltas counts delta rows a committed transaction wrote, and merges
// them into the counts once there are mergeEvery. A merge that fails is
// left to the next: the deltas stay, and every count with them.
func (s *Store) noteDeltas(ctx context.Context, n int) {
	if n == 0 || s.unmerged.Add(int64(n)) < mergeEvery {
		return
	}
	s.unmerged.Store(0)
	_ = s.mergeCounts(context.WithoutCancel(ctx))
}

// mergeCounts adds every delta row to its count row and deletes it, in
// one transaction. On PostgreSQL a parallel merge takes other rows (each
// DELETE removes those it saw, which no other removes as well), and
// writes go on inserting deltas meanwhile.
func (s *Store) mergeCounts(ctx context.Context) error {
	var deltas []struct {
		Company  string `db:"company"`
		Register string `db:"register"`
		N        int64  `db:"n"`
	}
	err := s.db.Write(ctx, func(ctx context.Context, tx *sqldb.Tx) error {
		if err := sqldb.Select(ctx, tx, &deltas, `DELETE FROM "record_count_deltas" RETURNING "company", "register", "n"`); err != nil {
			return err
		}
		sums := map[countKey]int64{}
		for _, d := range deltas {
			sums[countKey{d.Register, d.Company}] += d.N
		}
		keys := slices.SortedFunc(maps.Keys(sums), func(a, b countKey) int {
			return cmp.Or(cmp.Compare(a.company, b.company), cmp.Compare(a.table, b.table))
		})
		// Sorted, so parallel merges lock the count rows in one order.
		for chunk := range slices.Chunk(keys, 500) {
			values, args := countRows(chunk, sums)
			if _, err := sqldb.Exec(ctx, tx, `INSERT INTO "record_counts" ("company", "register", "n") VALUES `+values+`
				ON CONFLICT ("company", "register") DO UPDATE SET "n" = "record_counts"."n" + excluded."n"`, args...); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	s.deltas.Deleted(len(deltas))
	return nil
}

// counted reads a company's count of a table: its row and its deltas.
func (s *Store) counted(ctx context.Context, q sqldb.Querier, table, company string) (int64, error) {
	var n int64
	err := sqldb.Get(ctx, q, &n, `SELECT
		COALESCE((SELECT "n" FROM "record_counts" WHERE "company" = ? AND "register" = ?), 0) +
		COALESCE((SELECT CAST(SUM("n") AS BIGINT) FROM "record_count_deltas" WHERE "company" = ? AND "register" = ?), 0)`,
		company, table, company, table)
	return n, err
}

// backfillCounts counts the rows of a Counted table that has never been
// counted (no count row and no delta). The NOT EXISTS is evaluated once,
// before any row is read; the WHERE also keeps SQLite's parser from
// reading ON CONFLICT as a join clause.
func backfillCounts(ctx context.Context, tx *sqldb.Tx, t *table) error {
	_, err := sqldb.Exec(ctx, tx, `INSERT INTO "record_counts" ("company", "register", "n")
		SELECT "company", ?, COUNT(*) FROM `+t.name+`
		WHERE NOT EXISTS (SELECT 1 FROM "record_counts" WHERE "register" = ?)
			AND NOT EXISTS (SELECT 1 FROM "record_count_deltas" WHERE "register" = ?) GROUP BY "company"
		ON CONFLICT ("company", "register") DO NOTHING`, t.Name, t.Name, t.Name)
	return err
}

// readRows hands each row of a query to scan, through ReadEach: on
// PostgreSQL the query goes with the transaction's BEGIN, if first.
func (t *Tx) readRows(ctx context.Context, q sqldb.Query, scan func(sqldb.Rows) error) error {
	return t.tx.ReadEach(ctx, []sqldb.Query{q}, func(_ int, rows sqldb.Rows) error {
		for rows.Next() {
			if err := scan(rows); err != nil {
				return err
			}
		}
		return nil
	})
}
