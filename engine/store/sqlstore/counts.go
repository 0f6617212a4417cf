package sqlstore

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"fieldapi/engine/sqldb"
)

// The store's own tables: number series and row counts, one row per
// company and series (or table).
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
}

// NextNumbers takes n numbers of the company's series in one statement:
// the series' first use starts it at 1, every other use advances it. The
// row stays locked until the transaction ends (PostgreSQL; SQLite's write
// lock covers the whole transaction), so parallel transactions never get
// the same numbers, and a rolled-back one gives its numbers back.
func (t *Tx) NextNumbers(ctx context.Context, company, series string, n int64) (int64, error) {
	var first int64
	err := sqldb.Get(ctx, t.tx, &first, `INSERT INTO "number_series" ("company", "register", "next") VALUES (?, ?, ?)
		ON CONFLICT ("company", "register") DO UPDATE SET "next" = "number_series"."next" + ?
		RETURNING "next" - ?`, company, series, 1+n, n, n)
	return first, err
}

// AlignNumbers moves the series' next number up to next, never down.
func (t *Tx) AlignNumbers(ctx context.Context, company, series string, next int64) error {
	_, err := sqldb.Exec(ctx, t.tx, `INSERT INTO "number_series" ("company", "register", "next") VALUES (?, ?, ?)
		ON CONFLICT ("company", "register") DO UPDATE SET "next" =
			CASE WHEN excluded."next" > "number_series"."next" THEN excluded."next" ELSE "number_series"."next" END`,
		company, series, next)
	return err
}

// Row counts of Counted tables: the total of a list is one row read
// instead of a scan of the company's rows. A count changes in the
// transaction that inserts or deletes the rows (a rollback or a crash
// takes both away together): the transaction notes its changes and writes
// them in one statement just before its commit, locking the count rows in
// one order for every transaction. A missing count row means no rows:
// Migrate counts the rows of a table that has none yet (a database from
// before the counts) and never replaces a row.

// countKey is one count row.
type countKey struct{ table, company string }

func (t *Tx) addCount(table, company string, n int64) {
	if t.counts == nil {
		t.counts = map[countKey]int64{}
	}
	t.counts[countKey{table, company}] += n
}

// flushCounts writes the transaction's count changes.
func (t *Tx) flushCounts(ctx context.Context) error {
	keys := make([]countKey, 0, len(t.counts))
	for k, n := range t.counts {
		if n != 0 {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return nil
	}
	slices.SortFunc(keys, func(a, b countKey) int {
		return cmp.Or(cmp.Compare(a.company, b.company), cmp.Compare(a.table, b.table))
	})
	values := make([]string, len(keys))
	args := make([]any, 0, 3*len(keys))
	for i, k := range keys {
		values[i] = "(?, ?, ?)"
		args = append(args, k.company, k.table, t.counts[k])
	}
	t.counts = nil
	_, err := sqldb.Exec(ctx, t.tx, `INSERT INTO "record_counts" ("company", "register", "n") VALUES `+strings.Join(values, ", ")+`
		ON CONFLICT ("company", "register") DO UPDATE SET "n" = "record_counts"."n" + excluded."n"`, args...)
	return err
}

// counted reads a company's count row of a table.
func (s *Store) counted(ctx context.Context, q sqldb.Querier, table, company string) (int64, error) {
	var n []int64
	err := sqldb.Select(ctx, q, &n, `SELECT "n" FROM "record_counts" WHERE "company" = ? AND "register" = ?`, company, table)
	if err != nil || len(n) == 0 {
		return 0, err
	}
	return n[0], nil
}

// backfillCounts counts the rows of a Counted table that has never been
// counted (no count row at all). The NOT EXISTS is evaluated once, before
// any row is read; the WHERE also keeps SQLite's parser from reading ON
// CONFLICT as a join clause.
func backfillCounts(ctx context.Context, tx *sqldb.Tx, t *table) error {
	_, err := sqldb.Exec(ctx, tx, `INSERT INTO "record_counts" ("company", "register", "n")
		SELECT "company", ?, COUNT(*) FROM `+t.name+`
		WHERE NOT EXISTS (SELECT 1 FROM "record_counts" WHERE "register" = ?) GROUP BY "company"
		ON CONFLICT ("company", "register") DO NOTHING`, t.Name, t.Name)
	return err
}
