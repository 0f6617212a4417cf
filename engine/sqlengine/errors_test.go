package sqlengine

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"fieldapi/engine"
)

// wireError is a pgconn I/O error: SafeToRetry says whether nothing of the
// statement was sent before the connection failed.
type wireError struct {
	safe bool
	err  error
}

func (e wireError) Error() string     { return fmt.Sprintf("wire (safe to retry: %v): %v", e.safe, e.err) }
func (e wireError) Unwrap() error     { return e.err }
func (e wireError) SafeToRetry() bool { return e.safe }

func pgCode(code string) *pgconn.PgError { return &pgconn.PgError{Code: code} }

func wrapped(err error) error { return fmt.Errorf("create customers: %w", err) }

func expired() context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 0)
	cancel()
	return ctx
}

func cancelled() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

// faultOf is the engine fault err carries, or nil.
func faultOf(err error) error {
	for _, fault := range []error{engine.ErrUnreachable, engine.ErrBusy, engine.ErrTimeout, context.Canceled} {
		if errors.Is(err, fault) {
			return fault
		}
	}
	return nil
}

// TestClassifyPostgresFaults: 503 (unreachable, busy) only when the
// database cannot have run the statement; 504 (timeout) when it may have.
func TestClassifyPostgresFaults(t *testing.T) {
	t.Parallel()
	e := &Engine{dialect: postgresDialect}
	live := context.Background()
	for _, c := range []struct {
		name string
		ctx  context.Context
		err  error
		want error // the engine fault; nil: none
	}{
		{"connect refused", live, wrapped(&pgconn.ConnectError{}), engine.ErrUnreachable},
		{"connect timed out past the deadline", expired(), &pgconn.ConnectError{}, engine.ErrUnreachable},
		{"write failed before sending", live, wireError{true, syscall.ECONNRESET}, engine.ErrUnreachable},
		{"connection lost after sending", live, wireError{false, io.ErrUnexpectedEOF}, engine.ErrTimeout},
		{"raw EOF", live, io.EOF, engine.ErrTimeout},
		{"pool gave up on bad connections", live, driver.ErrBadConn, engine.ErrUnreachable},
		{"server shutting down", live, pgCode("57P01"), engine.ErrUnreachable},
		{"no such database", live, pgCode("3D000"), engine.ErrUnreachable},
		{"statement_timeout", live, pgCode("57014"), engine.ErrTimeout},
		{"serialization failure", live, pgCode("40001"), engine.ErrBusy},
		{"too many connections", live, pgCode("53300"), engine.ErrBusy},
		{"deadline passed mid-statement", expired(), wrapped(context.DeadlineExceeded), engine.ErrTimeout},
		{"caller gave up", cancelled(), context.Canceled, context.Canceled},
		{"unique violation is no fault", live, pgCode("23505"), nil},
		{"refusal passes", live, engine.Refuse("no"), nil},
		// A write transaction that failed before its COMMIT was sent wrote nothing: 503.
		{"deadline passed before COMMIT", expired(), notCommitted(wrapped(context.DeadlineExceeded)), engine.ErrBusy},
		{"connection lost before COMMIT", live, notCommitted(wireError{false, io.ErrUnexpectedEOF}), engine.ErrBusy},
		{"unreachable before COMMIT", live, notCommitted(&pgconn.ConnectError{}), engine.ErrUnreachable},
		{"refusal before COMMIT passes", live, notCommitted(engine.Refuse("no")), nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := e.classify(c.ctx, c.err)
			if !errors.Is(got, c.err) {
				t.Fatalf("classify lost the driver error: %v", got)
			}
			if faultOf(got) != c.want {
				t.Fatalf("classify(%v) = %v, want %v", c.err, got, c.want)
			}
		})
	}
}
