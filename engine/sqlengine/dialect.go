package sqlengine

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
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

// dialect holds everything that differs between SQLite and PostgreSQL. The
// rest of the package writes portable SQL with ? placeholders and sqlx
// Rebind, and double-quotes every identifier.
type dialect struct {
	postgres bool
	driver   string // database/sql driver name
}

var (
	sqliteDialect   = dialect{driver: "sqlite"}
	postgresDialect = dialect{postgres: true, driver: "pgx"}
)

// parseDSN picks the dialect from a DSN and returns the DSN its driver takes.
func parseDSN(dsn string, busyTimeout time.Duration) (dialect, string, error) {
	switch {
	case strings.HasPrefix(dsn, "sqlite:"):
		path := strings.TrimPrefix(dsn, "sqlite:")
		if path == "" || strings.HasPrefix(path, "?") {
			return dialect{}, "", fmt.Errorf("DSN %q: want sqlite:PATH", dsn)
		}
		if strings.Contains(path, ":memory:") || strings.Contains(path, "mode=memory") {
			// Every connection of the pool would see a database of its own.
			return dialect{}, "", fmt.Errorf("DSN %q: an in-memory SQLite database is not supported; use a file", dsn)
		}
		// WAL lets readers run beside the one writer; _txlock=immediate makes
		// every write transaction take the write lock up front, so two
		// writers never deadlock upgrading a read lock.
		sep := "?"
		if strings.Contains(path, "?") {
			sep = "&"
		}
		params := fmt.Sprintf("_pragma=busy_timeout(%d)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate",
			busyTimeout.Milliseconds())
		return sqliteDialect, path + sep + params, nil
	case strings.HasPrefix(dsn, "postgres://"), strings.HasPrefix(dsn, "postgresql://"):
		if _, err := pgconn.ParseConfig(dsn); err != nil {
			return dialect{}, "", fmt.Errorf("bad PostgreSQL DSN: %w", err)
		}
		return postgresDialect, dsn, nil
	default:
		scheme, _, _ := strings.Cut(dsn, ":")
		return dialect{}, "", fmt.Errorf("unsupported database %q: want sqlite:PATH or postgres://USER@HOST:PORT/DB", scheme)
	}
}

// connectTimeout bounds opening one PostgreSQL connection (dial, TLS,
// authentication) when the DSN sets no connect_timeout. A database that is
// down or unreachable must answer 503 within a second, and a pool refills
// connections one call at a time, so this is short; raise it with
// connect_timeout=N (whole seconds) in the DSN for a database far away.
const connectTimeout = 500 * time.Millisecond

// Keep-alive probes on PostgreSQL connections, so one whose peer vanished
// without closing it (a partition, a host gone) is found dead within about
// 4 s and the pool refills with live ones. Noticing a server that stops
// answering is the health probe's job (below): it takes under a second.
var pgKeepAlive = net.KeepAliveConfig{Enable: true, Idle: 2 * time.Second, Interval: time.Second, Count: 2}

// open opens the connection pool for a DSN returned by parseDSN; on
// PostgreSQL it also returns the connection settings the health probe uses.
func (d dialect) open(driverDSN string, statementTimeout time.Duration) (*sqlx.DB, *pgx.ConnConfig, error) {
	if !d.postgres {
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
	return sqlx.NewDb(stdlib.OpenDB(*cfg), d.driver), cfg, nil
}

// The health probe's rhythm: a server that stops answering is marked
// unreachable within probeInterval + probeTimeout (0.7 s).
const (
	probeInterval = 200 * time.Millisecond
	probeTimeout  = 500 * time.Millisecond
)

// healthProbe watches a PostgreSQL server from a connection of its own, so
// a server that accepts connections but stops answering is noticed within
// a second, rather than by each call waiting out its statement timeout on
// a pooled connection. While it is marked unreachable every new call
// answers engine.ErrUnreachable at once; the probe goes on trying and
// clears the mark as soon as the server answers again. A probe that times
// out while calls are being answered (a busy server, a loaded host) marks
// nothing: the server is evidently alive.
type healthProbe struct {
	cfg         *pgx.ConnConfig
	unreachable atomic.Bool
	lastAnswer  atomic.Int64 // unix nanoseconds of the last call the server answered
	stop        context.CancelFunc
	done        chan struct{}
}

// startHealthProbe starts probing; stop it with close.
func startHealthProbe(cfg *pgx.ConnConfig) *healthProbe {
	ctx, cancel := context.WithCancel(context.Background())
	p := &healthProbe{cfg: cfg, stop: cancel, done: make(chan struct{})}
	go p.run(ctx)
	return p
}

func (p *healthProbe) run(ctx context.Context) {
	defer close(p.done)
	var conn *pgx.Conn
	defer func() {
		if conn != nil {
			closeQuickly(conn)
		}
	}()
	tick := time.NewTicker(probeInterval)
	defer tick.Stop()
	for {
		started := time.Now()
		err := p.probe(ctx, &conn)
		switch {
		case ctx.Err() != nil:
			return
		case err == nil:
			p.unreachable.Store(false)
		case p.lastAnswer.Load() < started.UnixNano():
			p.unreachable.Store(true)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// probe pings the server on the probe's connection. A connection that
// breaks (one the server closed while it was away) is replaced by a fresh
// one at once, so only a server that does not answer fails the probe. Connecting
// may take the DSN's connect_timeout, for a database far away.
func (p *healthProbe) probe(ctx context.Context, conn **pgx.Conn) error {
	if *conn != nil {
		pingCtx, cancel := context.WithTimeout(ctx, probeTimeout)
		err := (*conn).Ping(pingCtx)
		cancel()
		if err == nil {
			return nil
		}
		closeQuickly(*conn)
		*conn = nil
		if pingCtx.Err() != nil || pgconn.Timeout(err) {
			return err // no answer in time; the next round connects afresh
		}
	}
	connectCtx, cancel := context.WithTimeout(ctx, max(probeTimeout, p.cfg.ConnectTimeout))
	defer cancel()
	c, err := pgx.ConnectConfig(connectCtx, p.cfg) // the handshake is itself an answer
	var refused *pgconn.PgError
	if errors.As(err, &refused) {
		return nil // the server answered (too many connections, a bad password): it is there
	}
	if err != nil {
		return err
	}
	*conn = c
	return nil
}

func closeQuickly(conn *pgx.Conn) {
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	conn.Close(ctx)
}

// answered notes that the server answered a call.
func (p *healthProbe) answered() { p.lastAnswer.Store(time.Now().UnixNano()) }

// down reports whether the server is marked unreachable.
func (p *healthProbe) down() bool { return p.unreachable.Load() }

// close stops the probe and closes its connection.
func (p *healthProbe) close() {
	p.stop()
	<-p.done
}

// errMarkedUnreachable is why a call was not tried: the probe found the
// server not answering.
var errMarkedUnreachable = errors.New("the database did not answer the health probe")

// Column types. TEXT works in both; the rest differ.
func (d dialect) seqColumn() string {
	if d.postgres {
		return `"seq" BIGSERIAL PRIMARY KEY`
	}
	return `"seq" INTEGER PRIMARY KEY AUTOINCREMENT`
}

func (d dialect) boolType() string {
	if d.postgres {
		return "BOOLEAN"
	}
	return "INTEGER"
}

func (d dialect) numberType() string {
	if d.postgres {
		return "DOUBLE PRECISION"
	}
	return "REAL"
}

func (d dialect) bytesType() string {
	if d.postgres {
		return "BYTEA"
	}
	return "BLOB"
}

// ddl fills the type placeholders {seq}, {bool}, {number} and {bytes} of
// a CREATE TABLE statement.
func (d dialect) ddl(stmt string) string {
	return strings.NewReplacer(
		"{seq}", d.seqColumn(),
		"{bool}", d.boolType(),
		"{number}", d.numberType(),
		"{bytes}", d.bytesType(),
	).Replace(stmt)
}

// columnsQuery lists the columns of a table (one parameter: the table name).
func (d dialect) columnsQuery() string {
	if d.postgres {
		// pg_attribute rather than information_schema.columns, a slow view.
		return `SELECT attname FROM pg_attribute WHERE attrelid = to_regclass(quote_ident(CAST(? AS TEXT))) AND attnum > 0 AND NOT attisdropped`
	}
	return `SELECT name FROM pragma_table_info(?)`
}

// lockMigration keeps two processes from migrating the same database at
// once. SQLite needs nothing: the migration transaction holds the write lock.
func (d dialect) lockMigration(ctx context.Context, tx *txn) error {
	if !d.postgres {
		return nil
	}
	_, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(7244531)`)
	return err
}

var (
	registerSQLiteCase sync.Once
	sqliteCaseErr      error
)

// prepare readies the driver before the first connection opens. SQLite's
// own UPPER and LOWER fold ASCII only, so "ö" would not match "Ö" in a
// contains filter and UPPER("city") would give "UMEå"; they are replaced by
// Unicode versions, as PostgreSQL folds with a UTF-8 locale.
func (d dialect) prepare() error {
	if d.postgres {
		return nil
	}
	registerSQLiteCase.Do(func() {
		for name, fold := range map[string]func(string) string{"lower": strings.ToLower, "upper": strings.ToUpper} {
			if sqliteCaseErr = sqlite.RegisterDeterministicScalarFunction(name, 1, unicodeCase(fold)); sqliteCaseErr != nil {
				return
			}
		}
	})
	return sqliteCaseErr
}

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

// isUniqueViolation reports whether an insert hit a unique index.
func (d dialect) isUniqueViolation(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code == "23505"
	}
	var liteErr *sqlite.Error
	if errors.As(err, &liteErr) {
		return liteErr.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE || liteErr.Code() == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
	}
	return false
}

// fault says which engine fault a driver error is: engine.ErrBusy,
// engine.ErrUnreachable, engine.ErrTimeout, or nil for any other error.
// ErrUnreachable promises that the database did not run the statement
// (503, retry is safe); a fault that may have run it is ErrTimeout (504).
func (d dialect) fault(err error) error {
	var liteErr *sqlite.Error
	if errors.As(err, &liteErr) {
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
	var connectErr *pgconn.ConnectError
	if errors.As(err, &connectErr) {
		return engine.ErrUnreachable // wrong host, port, database or password
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
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

// forUpdate is the clause that holds the rows a SELECT reads until the
// transaction ends. SQLite needs none: a write transaction (immediate)
// holds the whole database.
func (d dialect) forUpdate() string {
	if d.postgres {
		return " FOR UPDATE"
	}
	return ""
}

// skipLocked is forUpdate for a queue: rows another transaction holds are
// passed over, so workers of several processes claim different rows.
// SQLite's single writer needs none.
// alias names the table whose rows are held (the others of a join are not).
func (d dialect) skipLocked(alias string) string {
	if d.postgres {
		return " FOR UPDATE OF " + alias + " SKIP LOCKED"
	}
	return ""
}
