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
func (e *Engine) classify(ctx context.Context, err error) error {
	var refusal *engine.CommandError
	var denied *engine.PermissionError
	if err == nil || errors.As(err, &refusal) || errors.As(err, &denied) || errors.Is(err, engine.ErrNotFound) || errors.Is(err, engine.ErrPreconditionFailed) {
		return err
	}
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
