package dbtest

import (
	"context"
	"database/sql/driver"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/ngrok/sqlmw"
)

// StatementCounter counts the statements sent through a database driver
// it wraps (an engine's Options.WrapDriver): what tests that pin how many
// statements a write costs read. BEGIN, COMMIT and ROLLBACK are not
// counted: database/sql's Begin and Commit (SQLite) never reach it, and
// on PostgreSQL the engine sends them as statements of their own only
// behind a wrapping driver (they ride with the write's statements).
type StatementCounter struct {
	sqlmw.NullInterceptor
	n   atomic.Int64
	mu  sync.Mutex
	log []string // every statement's text, transaction control included
}

// Wrap is the driver d with its statements counted.
func (c *StatementCounter) Wrap(d driver.Driver) driver.Driver { return sqlmw.Driver(d, c) }

// Count is how many statements were sent so far.
func (c *StatementCounter) Count() int64 { return c.n.Load() }

// Sent is the text of every statement sent from the mark on (Mark), BEGIN, COMMIT and ROLLBACK included where they reach the
// driver (PostgreSQL), in the order sent.
func (c *StatementCounter) Sent(mark int) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.log[min(mark, len(c.log)):]...)
}

// Mark is where Sent starts to list the statements sent from now on.
func (c *StatementCounter) Mark() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.log)
}

// count counts query unless it is transaction control.
func (c *StatementCounter) count(query string) {
	c.mu.Lock()
	c.log = append(c.log, query)
	c.mu.Unlock()
	switch strings.ToUpper(strings.TrimSpace(query)) {
	case "BEGIN", "COMMIT", "ROLLBACK":
	default:
		c.n.Add(1)
	}
}

func (c *StatementCounter) ConnExecContext(ctx context.Context, conn driver.ExecerContext, query string, args []driver.NamedValue) (driver.Result, error) {
	c.count(query)
	return conn.ExecContext(ctx, query, args)
}

func (c *StatementCounter) ConnQueryContext(ctx context.Context, conn driver.QueryerContext, query string, args []driver.NamedValue) (context.Context, driver.Rows, error) {
	c.count(query)
	rows, err := conn.QueryContext(ctx, query, args)
	return ctx, rows, err
}

func (c *StatementCounter) StmtExecContext(ctx context.Context, stmt driver.StmtExecContext, query string, args []driver.NamedValue) (driver.Result, error) {
	c.count(query)
	return stmt.ExecContext(ctx, args)
}

func (c *StatementCounter) StmtQueryContext(ctx context.Context, stmt driver.StmtQueryContext, query string, args []driver.NamedValue) (context.Context, driver.Rows, error) {
	c.count(query)
	rows, err := stmt.QueryContext(ctx, args)
	return ctx, rows, err
}
