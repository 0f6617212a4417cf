package sqldb

import (
	"context"
	"errors"
	"fmt"

	"fieldapi/engine"
	"fieldapi/engine/sqldb/health"
)

// classify turns a driver error into the engine's errors, so the HTTP layer
// can tell "retry later" (busy, unreachable) and "may have written"
// (timeout) from everything else. The driver error stays in the chain.
// The engine's verdicts (a refusal, a permission denied, no such record, a
// failed precondition) pass as they are.
//
// A call that cannot have written — a read, or a write transaction that
// failed before its COMMIT was sent — is never a "may have written" 504:
// a timeout there (a statement past the deadline, a connection that went
// silent) is unreachable while the health probe marks the server, busy
// otherwise: a 503, safe to retry.
func (db *DB) classify(ctx context.Context, err error) error {
	if err == nil || isVerdict(err) {
		return err
	}
	out := db.classifyFault(ctx, err)
	if _, unwritten := errors.AsType[wroteNothing](err); unwritten && errors.Is(out, engine.ErrTimeout) {
		if health.EndedCall(ctx) {
			return wrapFault(engine.ErrUnreachable, fmt.Errorf("%w: %w", context.Cause(ctx), err))
		}
		if db.health != nil && db.health.Down() {
			return wrapFault(engine.ErrUnreachable, err)
		}
		return wrapFault(engine.ErrBusy, err)
	}
	return out
}

// isFault reports whether err is one of the engine's faults.
func isFault(err error) bool {
	return errors.Is(err, engine.ErrUnreachable) || errors.Is(err, engine.ErrTimeout) || errors.Is(err, engine.ErrBusy) || errors.Is(err, context.Canceled)
}

// isVerdict reports whether err is the engine's answer to the call rather
// than a fault.
func isVerdict(err error) bool {
	var refusal *engine.CommandError
	var denied *engine.PermissionError
	return errors.As(err, &refusal) || errors.As(err, &denied) || errors.Is(err, engine.ErrNotFound) ||
		errors.Is(err, engine.ErrPreconditionFailed) || errors.Is(err, engine.ErrClaimLost)
}

// nothingWritten marks a fault of a call that cannot have written: a read,
// or a write transaction that ended before its COMMIT was sent (the
// database rolled it back). The engine's verdicts pass as they are.
func nothingWritten(err error) error {
	if err == nil || isVerdict(err) {
		return err
	}
	return wroteNothing{err}
}

// wroteNothing marks an error of a call that cannot have written.
type wroteNothing struct{ err error }

func (w wroteNothing) Error() string { return w.err.Error() }
func (w wroteNothing) Unwrap() error { return w.err }

// classifyFault maps a driver error to busy, unreachable or timeout.
func (db *DB) classifyFault(ctx context.Context, err error) error {
	fault := db.dialect.fault(err)
	switch {
	case health.EndedCall(ctx):
		// The health probe found the server silent and ended the call:
		// unless nothing reached the server, what the call had sent may
		// have run, as when its deadline passes.
		if fault == engine.ErrUnreachable {
			return wrapFault(fault, err)
		}
		return wrapFault(engine.ErrTimeout, fmt.Errorf("%w: %w", context.Cause(ctx), err))
	case errors.Is(ctx.Err(), context.Canceled):
		return wrapFault(context.Canceled, err) // the caller gave up; not an engine fault
	case fault == engine.ErrUnreachable:
		// Nothing reached the database (say a connect that timed out): 503,
		// retry is safe, even when the deadline has passed meanwhile.
		return wrapFault(fault, err)
	case errors.Is(ctx.Err(), context.DeadlineExceeded), errors.Is(err, context.DeadlineExceeded):
		return wrapFault(engine.ErrTimeout, err)
	case fault != nil:
		return wrapFault(fault, err)
	}
	return err
}

// wrapFault keeps both the engine's fault and the driver error in the chain.
func wrapFault(fault, err error) error {
	if errors.Is(err, fault) {
		return err
	}
	return fmt.Errorf("%w: %w", fault, err)
}
