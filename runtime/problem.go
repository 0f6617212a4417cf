package runtime

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"fieldapi/engine"
)

// Problem is an RFC 9457 problem response. Each failure kind has one code and
// one constructor below; nothing else in the service builds a Problem.
type Problem struct {
	Type        string   `json:"type"`
	Title       string   `json:"title"`
	Status      int      `json:"status"`
	Detail      string   `json:"detail"`
	ValidValues []string `json:"validValues,omitempty"`
	RequestID   string   `json:"requestId"`

	retryAfter int // seconds; sent as Retry-After when > 0
}

func (p *Problem) Error() string { return p.Title + ": " + p.Detail }

func problem(status int, code, detail string) *Problem {
	return &Problem{Title: code, Status: status, Detail: detail}
}

// MalformedBody: the body is not a JSON object of the expected shape.
func MalformedBody(detail string) *Problem {
	return problem(http.StatusBadRequest, "malformed_body", detail)
}

// UnknownField: a request names a field that cannot be sent here.
func UnknownField(path string, writable []string) *Problem {
	p := problem(http.StatusBadRequest, "unknown_field", fmt.Sprintf("field %q cannot be sent here; the writable fields are listed in validValues", path))
	p.ValidValues = writable
	return p
}

// ReadOnlyField: a request sends a field that is read only.
func ReadOnlyField(path string, writable []string) *Problem {
	p := problem(http.StatusBadRequest, "read_only_field", fmt.Sprintf("field %q is read only; the writable fields are listed in validValues", path))
	p.ValidValues = writable
	return p
}

// InvalidField: a field has the wrong JSON type or format.
func InvalidField(path, detail string) *Problem {
	return problem(http.StatusBadRequest, "invalid_field", fmt.Sprintf("field %q: %s", path, detail))
}

// MissingField: a field required by the request shape was not sent.
func MissingField(path string) *Problem {
	return problem(http.StatusBadRequest, "missing_field", fmt.Sprintf("field %q is required", path))
}

// InvalidParameter: a query or path parameter cannot be parsed.
func InvalidParameter(name, detail string) *Problem {
	return problem(http.StatusBadRequest, "invalid_parameter", fmt.Sprintf("parameter %q: %s", name, detail))
}

// IdempotencyKeyRequired: a write came without an Idempotency-Key header.
func IdempotencyKeyRequired() *Problem {
	return problem(http.StatusBadRequest, "idempotency_key_required", "write calls (POST, PUT, PATCH) need an Idempotency-Key header")
}

// Unauthorized: the key or token is missing, wrong, revoked or expired.
func Unauthorized(detail string) *Problem {
	return problem(http.StatusUnauthorized, "unauthorized", detail)
}

// TokenRequired: the installation requires tokens and a key was sent as Bearer.
func TokenRequired() *Problem {
	return problem(http.StatusUnauthorized, "token_required", "this installation requires tokens: send the key as clientSecret to POST /v1/token and use the access_token as Bearer")
}

// InsufficientScope: the key lacks the scope the route needs.
func InsufficientScope(scope string) *Problem {
	return problem(http.StatusForbidden, "insufficient_scope", fmt.Sprintf("the key lacks the scope %s", scope))
}

// IPNotAllowed: the key may not be used from the caller's address.
func IPNotAllowed(ip string) *Problem {
	return problem(http.StatusForbidden, "ip_not_allowed", fmt.Sprintf("the key may not be used from %s", ip))
}

// PermissionDenied: the engine's own permissions for the key's signature refuse the call.
func PermissionDenied(detail string) *Problem {
	return problem(http.StatusForbidden, "permission_denied", detail)
}

// NotFound: the record or path addressed does not exist.
func NotFound(detail string) *Problem {
	return problem(http.StatusNotFound, "not_found", detail)
}

// MethodNotAllowed: the path exists but not with this method.
func MethodNotAllowed(method string, allowed []string) *Problem {
	return problem(http.StatusMethodNotAllowed, "method_not_allowed", fmt.Sprintf("%s is not offered here; allowed: %s", method, strings.Join(allowed, ", ")))
}

// IdempotencyMismatch: the Idempotency-Key was used before with other content.
func IdempotencyMismatch() *Problem {
	return problem(http.StatusConflict, "idempotency_mismatch", "the Idempotency-Key was already used with different content")
}

// IdempotencyInFlight: a call with the same Idempotency-Key is still running.
func IdempotencyInFlight() *Problem {
	p := problem(http.StatusConflict, "idempotency_in_flight", "a call with the same Idempotency-Key is still running; retry after it finishes")
	p.retryAfter = 1
	return p
}

// PayloadTooLarge: the request body is over the limit.
func PayloadTooLarge(limit int64) *Problem {
	return problem(http.StatusRequestEntityTooLarge, "payload_too_large", fmt.Sprintf("the request body is larger than %d bytes", limit))
}

// HeadersTooLarge: the request line and headers are over the limit.
func HeadersTooLarge(limit int) *Problem {
	return problem(http.StatusRequestHeaderFieldsTooLarge, "headers_too_large", fmt.Sprintf("the request line and headers are larger than %d bytes", limit))
}

// UnsupportedMediaType: a body that is not JSON.
func UnsupportedMediaType(got string) *Problem {
	return problem(http.StatusUnsupportedMediaType, "unsupported_media_type", fmt.Sprintf("request bodies are application/json, not %q", got))
}

// CommandFailed: a well-formed call the engine refused, with the engine's text.
func CommandFailed(detail string, validValues []string) *Problem {
	p := problem(http.StatusUnprocessableEntity, "command_failed", detail)
	p.ValidValues = validValues
	return p
}

// RateLimited: too many calls for this key.
func RateLimited(retryAfter int) *Problem {
	p := problem(http.StatusTooManyRequests, "rate_limited", fmt.Sprintf("too many calls; retry after %d s", retryAfter))
	p.retryAfter = retryAfter
	return p
}

// Internal: a fault in the service itself. The detail never leaks internals.
func Internal() *Problem {
	return problem(http.StatusInternalServerError, "internal_error", "the service failed; the request id identifies the fault in the log")
}

// NotImplemented: the engine attached does not offer this capability.
func NotImplemented(detail string) *Problem {
	return problem(http.StatusNotImplemented, "not_implemented", detail)
}

// EngineUnreachable: the engine cannot be reached; it never received the call.
func EngineUnreachable() *Problem {
	p := problem(http.StatusServiceUnavailable, "engine_unreachable", "the engine cannot be reached; it did not receive the call, retrying is safe")
	p.retryAfter = 1
	return p
}

// EngineBusy: the engine is full; it never received the call.
func EngineBusy() *Problem {
	p := problem(http.StatusServiceUnavailable, "engine_busy", "the engine is busy; it did not receive the call, retrying is safe")
	p.retryAfter = 1
	return p
}

// EngineTimeout: the engine did not answer in time; it may have written.
func EngineTimeout() *Problem {
	return problem(http.StatusGatewayTimeout, "engine_timeout", "the engine did not answer in time; it may have written: retry with the same Idempotency-Key")
}

// AsProblem maps any error to its problem. Engine errors map to their kinds;
// anything unknown is an internal error.
func AsProblem(err error) *Problem {
	var p *Problem
	var cmd *engine.CommandError
	var perm *engine.PermissionError
	switch {
	case errors.As(err, &p):
		return p
	case errors.As(err, &cmd):
		return CommandFailed(cmd.Detail, cmd.ValidValues)
	case errors.As(err, &perm):
		return PermissionDenied(perm.Error())
	case errors.Is(err, engine.ErrNotFound):
		return NotFound(err.Error())
	case errors.Is(err, engine.ErrBusy):
		return EngineBusy()
	case errors.Is(err, engine.ErrUnreachable):
		return EngineUnreachable()
	case errors.Is(err, engine.ErrTimeout):
		return EngineTimeout()
	}
	return Internal()
}

// retryAfterHeader is the Retry-After value, or "".
func (p *Problem) retryAfterHeader() string {
	if p.retryAfter <= 0 {
		return ""
	}
	return strconv.Itoa(p.retryAfter)
}
