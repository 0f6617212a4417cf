package sqlengine

import (
	"context"
	"strings"
)

// Record counts: the unfiltered total of a list is read from the
// "record_counts" row of the company and register, so the first page of a
// list costs what any page costs instead of a scan of the company's rows.
//
// The count is exact because it changes in the transaction that changes the
// rows: every insert into a register table (API creates, their lines,
// Import, the bulk path) adds to it before the transaction commits, so a
// rollback or a crash takes the row and its count away together. No path
// deletes register rows or moves them between companies. Concurrent creates
// queue on the counter row the way they queue on their number series row.
//
// A missing counter row means the company has no rows in that register:
// Migrate fills the rows of a database that predates the counters
// (backfillCounts) and never replaces a row.

// addCount adds n to a register's count for a company inside tx.
func addCount(ctx context.Context, tx *txn, company string, t *table, n int64) error {
	return addCounts(ctx, tx, company, []registerCount{{table: t, n: n}})
}

// registerCount is a number of rows written to one register.
type registerCount struct {
	table *table
	n     int64
}

// addCounts adds the counts of several registers in one statement, locking
// their counter rows in the order given. A register appears once: an
// upsert may not touch a row twice on PostgreSQL.
func addCounts(ctx context.Context, tx *txn, company string, counts []registerCount) error {
	if len(counts) == 0 {
		return nil
	}
	values := make([]string, len(counts))
	args := make([]any, 0, 3*len(counts))
	for i, c := range counts {
		values[i] = "(?, ?, ?)"
		args = append(args, company, c.table.reg.Name, c.n)
	}
	_, err := exec(ctx, tx, `INSERT INTO "record_counts" ("company", "register", "n") VALUES `+strings.Join(values, ", ")+`
		ON CONFLICT ("company", "register") DO UPDATE SET "n" = "record_counts"."n" + excluded."n"`, args...)
	return err
}

// backfillCounts counts a register whose rows have never been counted: it
// has no counter row at all (a database from before the counters). Once
// counted, every write keeps the counts, so a register with counter rows
// is not scanned again (a start of serve on a million rows stays quick),
// and a company's existing row is never replaced: counting again could
// miss a create committing meanwhile.
func backfillCounts(ctx context.Context, tx *txn, t *table) error {
	// The NOT EXISTS is evaluated once, before any row is read. The WHERE
	// also keeps SQLite's parser from reading ON CONFLICT as a join clause.
	_, err := exec(ctx, tx, `INSERT INTO "record_counts" ("company", "register", "n")
		SELECT "company", ?, COUNT(*) FROM `+t.name()+`
		WHERE NOT EXISTS (SELECT 1 FROM "record_counts" WHERE "register" = ?) GROUP BY "company"
		ON CONFLICT ("company", "register") DO NOTHING`, t.reg.Name, t.reg.Name)
	return err
}

// storedCount is the number of the company's rows in a register.
func storedCount(ctx context.Context, q db, company string, t *table) (int, error) {
	var n []int
	err := sel(ctx, q, &n, `SELECT "n" FROM "record_counts" WHERE "company" = ? AND "register" = ?`, company, t.reg.Name)
	if err != nil || len(n) == 0 {
		return 0, err
	}
	return n[0], nil
}
