package sqlengine

import (
	"context"
	"errors"
	"fmt"

	"fieldapi/engine"
)

// classify turns a driver error into the engine's errors, so the HTTP layer
// can tell "retry later" (busy, unreachable) and "may have written"
// (timeout) from everything else. The driver error stays in the chain.
// Business errors (CommandError, PermissionError, ErrNotFound,
// ErrPreconditionFailed) pass as they are.
//
// A write transaction that failed before its COMMIT was sent wrote nothing:
// a timeout there (a statement past the deadline, a connection that went
// silent) is a 503, safe to retry, not a "may have written" 504.
func (e *Engine) classify(ctx context.Context, err error) error {
	if err == nil || isVerdict(err) {
		return err
	}
	out := e.classifyFault(ctx, err)
	var unsent beforeCommit
	if errors.As(err, &unsent) && errors.Is(out, engine.ErrTimeout) {
		if e.health != nil && e.health.down() {
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

// isVerdict reports whether err is the engine's answer to the call (a
// refusal, a permission denied, no such record, a failed precondition)
// rather than a fault.
func isVerdict(err error) bool {
	var refusal *engine.CommandError
	var denied *engine.PermissionError
	return errors.As(err, &refusal) || errors.As(err, &denied) || errors.Is(err, engine.ErrNotFound) || errors.Is(err, engine.ErrPreconditionFailed)
}

// notCommitted marks a fault of a write that ended before its COMMIT was
// sent; the engine's verdicts pass as they are.
func notCommitted(err error) error {
	if err == nil || isVerdict(err) {
		return err
	}
	return beforeCommit{err}
}

// beforeCommit marks an error of a write transaction that ended before
// its COMMIT was sent: the database rolled it back.
type beforeCommit struct{ err error }

func (b beforeCommit) Error() string { return b.err.Error() }
func (b beforeCommit) Unwrap() error { return b.err }

// classifyFault maps a driver error to busy, unreachable or timeout.
func (e *Engine) classifyFault(ctx context.Context, err error) error {
	fault := e.dialect.fault(err)
	switch {
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
