package sqldb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib" // also registers driver "pgx"
	"github.com/jmoiron/sqlx"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"fieldapi/engine"
)

// Dialect holds everything that differs between SQLite and PostgreSQL.
// The rest writes portable SQL with ? placeholders (rebound for the
// dialect) and double-quotes every identifier.
type Dialect struct{ *dialectSQL } // a pointer: the stores copy it often

type dialectSQL struct {
	postgres bool
	driver   string // database/sql driver name
	// The SQL that differs, as the methods of the same names give it.
	seqColumn, boolType, numberType, bytesType, forUpdate, columnsQuery, indexesQuery string
}

var (
	sqliteDialect = Dialect{&dialectSQL{
		driver:       "sqlite",
		seqColumn:    `"seq" INTEGER PRIMARY KEY AUTOINCREMENT`,
		boolType:     "INTEGER",
		numberType:   "REAL",
		bytesType:    "BLOB",
		columnsQuery: `SELECT name FROM pragma_table_info(?)`,
		indexesQuery: `SELECT name FROM sqlite_master WHERE type = 'index'`,
	}}
	postgresDialect = Dialect{&dialectSQL{
		postgres:   true,
		driver:     "pgx",
		seqColumn:  `"seq" BIGSERIAL PRIMARY KEY`,
		boolType:   "BOOLEAN",
		numberType: "DOUBLE PRECISION",
		bytesType:  "BYTEA",
		forUpdate:  " FOR UPDATE",
		// pg_attribute rather than information_schema.columns, a slow view.
		columnsQuery: `SELECT attname FROM pg_attribute WHERE attrelid = to_regclass(quote_ident(CAST(? AS TEXT))) AND attnum > 0 AND NOT attisdropped`,
		indexesQuery: `SELECT indexname FROM pg_indexes WHERE schemaname = current_schema()`,
	}}
)

// Postgres reports whether the database is PostgreSQL (else SQLite).
func (d Dialect) Postgres() bool { return d.postgres }

// parseDSN picks the dialect from a DSN and returns the DSN its driver takes.
func parseDSN(dsn string, busyTimeout time.Duration) (Dialect, string, error) {
	switch {
	case strings.HasPrefix(dsn, "sqlite:"):
		path := strings.TrimPrefix(dsn, "sqlite:")
		if path == "" || strings.HasPrefix(path, "?") {
			return Dialect{}, "", fmt.Errorf("DSN %q: want sqlite:PATH", dsn)
		}
		if strings.Contains(path, ":memory:") || strings.Contains(path, "mode=memory") {
			// Every connection of the pool would see a database of its own.
			return Dialect{}, "", fmt.Errorf("DSN %q: an in-memory SQLite database is not supported; use a file", dsn)
		}
		// WAL lets readers run beside the one writer; _txlock=immediate takes
		// the write lock up front, so two writers never deadlock upgrading a
		// read lock; the log is checkpointed beside the writes
		// (walCheckpointer), not in a commit.
		// temp_store(MEMORY): a statement's journal (what undoes a multi-row
		// INSERT failing half-way) cost a disk write per page it changed.
		// cache_size(-1024): 1 MiB of pages per connection, not 2 MB; the OS
		// caches the file anyway, and under 64 readers the pool's ten caches
		// were a sixth of the memory (peak RSS 142 → 121 MB, speed the same).
		// cache_spill(4096): a write keeps up to 16 MiB of changed pages
		// before writing them to the log mid-transaction, which cost a batch
		// of 100 task creates 2.5 % of its CPU; the cache shrinks back after.
		// journal_size_limit(64 MiB): the log file shrinks back after a burst
		// of writes grew it, when a write starts the log over.
		sep := "?"
		if strings.Contains(path, "?") {
			sep = "&"
		}
		params := fmt.Sprintf("_pragma=busy_timeout(%d)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=temp_store(MEMORY)&_pragma=wal_autocheckpoint(0)&_pragma=cache_size(-1024)&_pragma=cache_spill(4096)&_pragma=journal_size_limit(67108864)&_txlock=immediate",
			busyTimeout.Milliseconds())
		return sqliteDialect, path + sep + params, nil
	case strings.HasPrefix(dsn, "postgres://"), strings.HasPrefix(dsn, "postgresql://"):
		if _, err := pgconn.ParseConfig(dsn); err != nil {
			return Dialect{}, "", fmt.Errorf("bad PostgreSQL DSN: %w", err)
		}
		return postgresDialect, dsn, nil
	default:
		scheme, _, _ := strings.Cut(dsn, ":")
		return Dialect{}, "", fmt.Errorf("unsupported database %q: want sqlite:PATH or postgres://USER@HOST:PORT/DB", scheme)
	}
}

// connectTimeout bounds opening one PostgreSQL connection (dial, TLS,
// authentication) when the DSN sets no connect_timeout: a database that is
// down must answer 503 within a second, and a pool refills one call at a
// time. A database far away sets connect_timeout=N (seconds) in the DSN.
const connectTimeout = 500 * time.Millisecond

// Keep-alive probes on PostgreSQL connections, so one whose peer vanished
// without closing it (a partition, a host gone) is found dead within about
// 4 s. A server that stops answering is the health probe's to notice.
var pgKeepAlive = net.KeepAliveConfig{Enable: true, Idle: 2 * time.Second, Interval: time.Second, Count: 2}

// open opens the connection pool for a DSN returned by parseDSN; on
// PostgreSQL it also returns the connection settings the health probe uses.
// wrap, when set, wraps the database driver (Options.WrapDriver).
func (d Dialect) open(driverDSN string, statementTimeout time.Duration, wrap func(driver.Driver) driver.Driver) (*sqlx.DB, *pgx.ConnConfig, error) {
	if !d.postgres {
		if wrap != nil {
			return sqlx.NewDb(sql.OpenDB(dsnConnector{wrap(&sqlite.Driver{}), driverDSN}), d.driver), nil, nil
		}
		db, err := sqlx.Open(d.driver, driverDSN)
		return db, nil, err
	}
	cfg, err := pgx.ParseConfig(driverDSN)
	if err != nil {
		return nil, nil, fmt.Errorf("bad PostgreSQL DSN: %w", err)
	}
	if cfg.ConnectTimeout <= 0 {
		cfg.ConnectTimeout = connectTimeout
	}
	// When a call's deadline passes, pgx closes the connection, but the
	// server would run the statement to its end. A server-side timeout a
	// little past the engine's stops it there too; the client's deadline
	// still answers first. A DSN that sets statement_timeout keeps its own.
	if _, set := cfg.RuntimeParams["statement_timeout"]; !set && statementTimeout > 0 {
		cfg.RuntimeParams["statement_timeout"] = strconv.FormatInt((statementTimeout + time.Second).Milliseconds(), 10)
	}
	dialer := &net.Dialer{Timeout: cfg.ConnectTimeout, KeepAliveConfig: pgKeepAlive}
	cfg.DialFunc = dialer.DialContext
	if wrap != nil {
		// The registered configuration stays for the process's life: a
		// wrapped driver is for tests and tracing.
		name := stdlib.RegisterConnConfig(cfg)
		return sqlx.NewDb(sql.OpenDB(dsnConnector{wrap(stdlib.GetDefaultDriver()), name}), d.driver), cfg, nil
	}
	return sqlx.NewDb(stdlib.OpenDB(*cfg), d.driver), cfg, nil
}

// dsnConnector opens connections of a driver with one DSN.
type dsnConnector struct {
	driver driver.Driver
	dsn    string
}

func (c dsnConnector) Connect(context.Context) (driver.Conn, error) { return c.driver.Open(c.dsn) }
func (c dsnConnector) Driver() driver.Driver                        { return c.driver }

// SeqColumn is the column definition of an increasing row number.
func (d Dialect) SeqColumn() string { return d.seqColumn }

// InsertedSeq is the SQL of the Seq a row takes in an INSERT that gives
// the "seq" column itself (INSERT ... SELECT), so that other columns of
// the row can hold it too; ordinal is the SQL of the row's place in the
// statement, 1 for the first. The Seqs are those the column's own
// numbering would give, unique and never used again, increasing with
// ordinal: on PostgreSQL the next value of the column's sequence, one per
// row of a SELECT that computes it once per row, in ordinal order when it
// is ordered by ordinal (PostgreSQL evaluates volatile functions of a
// select list after its sort); on SQLite one more than the largest Seq the
// table ever had (its AUTOINCREMENT counter, which an insert of a given
// seq moves up too, or its largest row if greater, as SQLite's own
// numbering takes) plus ordinal-1, read while the statement holds the
// write lock.
func (d Dialect) InsertedSeq(table, ordinal string) string {
	if d.postgres {
		return `nextval(CAST((SELECT pg_get_serial_sequence(` + literal(Quote(table)) + `, 'seq')) AS regclass))`
	}
	return `(SELECT max(COALESCE((SELECT "seq" FROM sqlite_sequence WHERE "name" = ` + literal(table) + `), 0), ` +
		`COALESCE((SELECT MAX("seq") FROM ` + Quote(table) + `), 0))) + ` + ordinal
}

// TypedParam is a placeholder for a value of SQL type sqlType where no
// column types it, such as a VALUES list in a subquery: PostgreSQL would
// take it as text, SQLite stores any value as it comes.
func (d Dialect) TypedParam(sqlType string) string {
	if d.postgres {
		return "CAST(? AS " + sqlType + ")"
	}
	return "?"
}

// literal single-quotes a text as an SQL string.
func literal(text string) string { return `'` + strings.ReplaceAll(text, `'`, `''`) + `'` }

// BoolType is the type of a bool column (TEXT is the same in both).
func (d Dialect) BoolType() string { return d.boolType }

// NumberType is the type of a float64 column.
func (d Dialect) NumberType() string { return d.numberType }

// BytesType is the type of a bytes column.
func (d Dialect) BytesType() string { return d.bytesType }

// DDL fills the type placeholders {seq}, {bool}, {number} and {bytes} of
// a CREATE TABLE statement.
func (d Dialect) DDL(stmt string) string {
	return strings.NewReplacer(
		"{seq}", d.SeqColumn(),
		"{bool}", d.BoolType(),
		"{number}", d.NumberType(),
		"{bytes}", d.BytesType(),
	).Replace(stmt)
}

// ColumnsQuery lists the columns of a table (one parameter: the table name).
func (d Dialect) ColumnsQuery() string { return d.columnsQuery }

// LockMigration keeps two processes from migrating the same database at
// once. SQLite needs nothing: the migration transaction holds the write lock.
func (d Dialect) LockMigration(ctx context.Context, tx *Tx) error {
	if !d.postgres {
		return nil
	}
	_, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(7244531)`)
	return err
}

// registerSQLiteCase readies SQLite's driver before its first connection
// opens. SQLite's own UPPER and LOWER fold ASCII only, so "ö" would not
// match "Ö" in a contains filter and UPPER("city") would give "UMEå";
// they are replaced by Unicode versions, as PostgreSQL folds with a UTF-8
// locale.
var registerSQLiteCase = sync.OnceValue(func() error {
	for name, fold := range map[string]func(string) string{"lower": strings.ToLower, "upper": strings.ToUpper} {
		if err := sqlite.RegisterDeterministicScalarFunction(name, 1, unicodeCase(fold)); err != nil {
			return err
		}
	}
	return nil
})

func unicodeCase(fold func(string) string) func(*sqlite.FunctionContext, []driver.Value) (driver.Value, error) {
	return func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		switch v := args[0].(type) {
		case string:
			return fold(v), nil
		case []byte:
			return fold(string(v)), nil
		default:
			return v, nil // NULL and numbers, as the built-ins do
		}
	}
}

// IsUniqueViolation reports whether an insert hit a unique index.
func (d Dialect) IsUniqueViolation(err error) bool {
	hit, _, _ := d.UniqueViolation(err)
	return hit
}

// IsNotNullViolation reports whether a write left table's column NULL.
func (d Dialect) IsNotNullViolation(err error, table, column string) bool {
	if pgErr, ok := errors.AsType[*pgconn.PgError](err); ok {
		return pgErr.Code == "23502" && pgErr.TableName == table && pgErr.ColumnName == column
	}
	liteErr, ok := errors.AsType[*sqlite.Error](err)
	return ok && liteErr.Code() == sqlite3.SQLITE_CONSTRAINT_NOTNULL &&
		strings.Contains(liteErr.Error(), "NOT NULL constraint failed: "+table+"."+column)
}

// UniqueViolation reports whether a write hit a unique index, and which,
// as the database names it: PostgreSQL the index (its constraint name),
// SQLite the columns, table-qualified ("t.company", "t.nr"); both empty
// when the database does not say.
func (d Dialect) UniqueViolation(err error) (hit bool, index string, columns []string) {
	if pgErr, ok := errors.AsType[*pgconn.PgError](err); ok {
		return pgErr.Code == "23505", pgErr.ConstraintName, nil
	}
	liteErr, ok := errors.AsType[*sqlite.Error](err)
	if !ok {
		return false, "", nil
	}
	if code := liteErr.Code(); code != sqlite3.SQLITE_CONSTRAINT_UNIQUE && code != sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY {
		return false, "", nil
	}
	// "UNIQUE constraint failed: t.company, t.nr" (SQLite's wording).
	if _, list, ok := strings.Cut(liteErr.Error(), "UNIQUE constraint failed: "); ok {
		for _, part := range strings.Split(list, ", ") {
			column, _, _ := strings.Cut(part, " ") // a trailing " (2067)" is the code
			columns = append(columns, column)
		}
	}
	return true, "", columns
}

// fault says which engine fault a driver error is: engine.ErrBusy,
// engine.ErrUnreachable, engine.ErrTimeout, or nil for any other error.
// ErrUnreachable promises that the database did not run the statement
// (503, retry is safe); a fault that may have run it is ErrTimeout (504).
func (d Dialect) fault(err error) error {
	if liteErr, ok := errors.AsType[*sqlite.Error](err); ok {
		switch liteErr.Code() & 0xff {
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
			return engine.ErrBusy
		case sqlite3.SQLITE_INTERRUPT:
			return engine.ErrTimeout
		case sqlite3.SQLITE_CANTOPEN:
			return engine.ErrUnreachable
		}
		return nil
	}
	if _, ok := errors.AsType[*pgconn.ConnectError](err); ok {
		return engine.ErrUnreachable // wrong host, port, database or password
	}
	if pgErr, ok := errors.AsType[*pgconn.PgError](err); ok {
		switch {
		case pgErr.Code == "57014": // query_canceled: statement_timeout
			return engine.ErrTimeout
		case pgErr.Code == "53300", pgErr.Code == "40001", pgErr.Code == "40P01", pgErr.Code == "55P03":
			// too many connections, serialization failure, deadlock, lock not available
			return engine.ErrBusy
		case strings.HasPrefix(pgErr.Code, "08"), strings.HasPrefix(pgErr.Code, "57P"), pgErr.Code == "3D000":
			// connection exception, server shutting down, no such database
			return engine.ErrUnreachable
		}
		return nil
	}
	if pgconn.Timeout(err) {
		return engine.ErrTimeout
	}
	if d.postgres && lostConnection(err) {
		if pgconn.SafeToRetry(err) {
			return engine.ErrUnreachable // failed before the statement was sent
		}
		// The statement was sent and the connection died before the answer:
		// it may have run (a COMMIT may have succeeded), so it is a timeout.
		return engine.ErrTimeout
	}
	if errors.Is(err, driver.ErrBadConn) {
		return engine.ErrUnreachable // database/sql gave up on fresh connections
	}
	return nil
}

// lostConnection reports whether err means the connection broke.
func lostConnection(err error) bool {
	var netErr net.Error
	return errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, io.EOF) ||
		errors.As(err, &netErr)
}

// ForUpdate is the clause that holds the rows a SELECT reads until the
// transaction ends. SQLite needs none: a write transaction (immediate)
// holds the whole database.
func (d Dialect) ForUpdate() string { return d.forUpdate }

// SkipLocked is ForUpdate for a queue: rows another transaction holds are
// passed over, so workers of several processes claim different rows.
// SQLite's single writer needs none. alias names the table whose rows are
// held (the others of a join are not).
func (d Dialect) SkipLocked(alias string) string {
	if d.postgres {
		return " FOR UPDATE OF " + alias + " SKIP LOCKED"
	}
	return ""
}
