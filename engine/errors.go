package engine

import (
	"errors"
	"fmt"
)

// Errors the engine returns; the HTTP layer maps each to one problem type.
var (
	// ErrNotFound: the record addressed does not exist in the caller's company.
	ErrNotFound = errors.New("not found")
	// ErrBusy: the engine is overloaded and did not take the call; retry later.
	ErrBusy = errors.New("engine busy")
	// ErrUnreachable: the engine cannot be reached; it did not take the call.
	ErrUnreachable = errors.New("engine unreachable")
	// ErrTimeout: the engine did not answer in time; it may have written.
	ErrTimeout = errors.New("engine timeout")
	// ErrClaimLost: another execution of the same Idempotency-Key stored
	// its response first, so this one wrote nothing; the other's answer is
	// the key's (Claim finds it now).
	ErrClaimLost = errors.New("idempotency claim lost: another execution of this Idempotency-Key stored its response first; nothing was written")
)

// CommandError is a well-formed call the engine refuses (HTTP 422). Detail
// is the engine's own text; ValidValues lists the accepted values when known.
type CommandError struct {
	Detail      string
	ValidValues []string
}

func (e *CommandError) Error() string { return e.Detail }

// Refuse returns a CommandError with a formatted detail.
func Refuse(format string, args ...any) *CommandError {
	return &CommandError{Detail: fmt.Sprintf(format, args...)}
}

// WithValid attaches the accepted values to a refusal.
func (e *CommandError) WithValid(values ...string) *CommandError {
	e.ValidValues = values
	return e
}

// InLine prefixes the detail with the line that failed, e.g. "contacts[1]: ".
func (e *CommandError) InLine(list string, index int) *CommandError {
	return &CommandError{Detail: fmt.Sprintf("%s[%d]: %s", list, index, e.Detail), ValidValues: e.ValidValues}
}

// PermissionError: the key's signature may not do this in the engine (HTTP 403),
// whatever the key's scopes say.
type PermissionError struct {
	Sign, Action string
}

func (e *PermissionError) Error() string {
	return fmt.Sprintf("signature %s may not %s", e.Sign, e.Action)
}
