// Package problem is the problems the service answers with (RFC 9457):
// one code per failure kind, declared once here, the one constructor that
// builds its problem, and the mapping of engine errors to them. Package
// runtime writes them; codegen documents them from Codes.
package problem

import (
	"encoding/json"
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

	// The failing operation of an atomic batch (POST /v1/batch): its
	// index and id, its own problem, and the ids of the others, none of
	// which took effect.
	Index       *int     `json:"index,omitempty"`
	ID          string   `json:"id,omitempty"`
	Operation   *Problem `json:"problem,omitempty"`
	NotExecuted []string `json:"notExecuted,omitempty"`

	retryAfter int // seconds; sent as Retry-After when > 0
}

func (p *Problem) Error() string { return p.Title + ": " + p.Detail }

// Body is the problem as answered to a call: its type under base (the
// configured problem base URL) and the call's request id.
func (p *Problem) Body(base, requestID string) []byte {
	out := *p // problems may be shared values; never write into them
	out.Type = base + "/" + p.Title
	out.RequestID = requestID
	body, _ := json.Marshal(out)
	return body
}

// Restamp is a problem's body as answered to another call (an idempotent
// replay): with that call's request id. A body that is not a problem of
// ours is answered as it is.
func Restamp(body []byte, requestID string) []byte {
	var p Problem
	if err := json.Unmarshal(body, &p); err != nil {
		return body // not a problem of ours: replayed as stored
	}
	p.RequestID = requestID
	out, err := json.Marshal(p)
	if err != nil {
		return body
	}
	return out
}

func problem(code ProblemCode, detail string) *Problem {
	return &Problem{Title: code.Code, Status: code.Status, Detail: detail}
}

// ProblemCode is one kind of failure: the HTTP status, the code (a
// problem's title and the last segment of its type) and what it tells a
// client. Each constructor below builds its problem from one of these.
type ProblemCode struct {
	Status     int
	Code       string
	Meaning    string
	RetryAfter bool // the answer carries Retry-After
}

// The problem codes, one per failure kind, in status order. This is the
// one place a code is defined: the constructors use them and Codes lists
// them for the reference page (codegen's TestDocsListEveryProblemCode reads
// these ProblemCode literals from the source).
var (
	codeMalformedBody          = ProblemCode{http.StatusBadRequest, "malformed_body", "The body is not a JSON object of the expected shape (malformed JSON, a name sent twice).", false}
	codeUnknownField           = ProblemCode{http.StatusBadRequest, "unknown_field", "A body names a field that cannot be sent here; validValues lists the names that can.", false}
	codeReadOnlyField          = ProblemCode{http.StatusBadRequest, "read_only_field", "A body sends a read-only field (or a create-only one to PATCH); validValues lists the names that can be sent.", false}
	codeInvalidField           = ProblemCode{http.StatusBadRequest, "invalid_field", "A field has the wrong JSON type or format, text that is not valid UTF-8 or holds NUL, or a number beyond float64.", false}
	codeMissingField           = ProblemCode{http.StatusBadRequest, "missing_field", "A field the call requires was not sent.", false}
	codeInvalidParameter       = ProblemCode{http.StatusBadRequest, "invalid_parameter", "A query or path parameter (or the Idempotency-Key) is unknown, cannot be parsed, or is not valid UTF-8 or holds NUL; for an unknown one validValues lists the valid ones.", false}
	codeInvalidReference       = ProblemCode{http.StatusBadRequest, "invalid_reference", "An operation of a batch uses a reference, @{id.Field}, to an operation that does not exist, is itself, comes later or failed, or whose answer has no such value.", false}
	codeIdempotencyKeyRequired = ProblemCode{http.StatusBadRequest, "idempotency_key_required", "A write (POST, PUT, PATCH) came without an Idempotency-Key header.", false}
	codeUnauthorized           = ProblemCode{http.StatusUnauthorized, "unauthorized", "The key or token is missing, wrong, revoked or expired.", false}
	codeTokenRequired          = ProblemCode{http.StatusUnauthorized, "token_required", "The installation requires tokens and a key was sent as Bearer: exchange it at POST /v1/token.", false}
	codeInsufficientScope      = ProblemCode{http.StatusForbidden, "insufficient_scope", "The key lacks the scope the route needs.", false}
	codeIPNotAllowed           = ProblemCode{http.StatusForbidden, "ip_not_allowed", "The key may not be used from the caller's address.", false}
	codePermissionDenied       = ProblemCode{http.StatusForbidden, "permission_denied", "The engine's own permissions for the key's signature refuse the call.", false}
	codeNotFound               = ProblemCode{http.StatusNotFound, "not_found", "The record or path addressed does not exist in the key's company.", false}
	codeMethodNotAllowed       = ProblemCode{http.StatusMethodNotAllowed, "method_not_allowed", "The path exists but not with this method (also writes to read-only registers); Allow lists the methods.", false}
	codeIdempotencyMismatch    = ProblemCode{http.StatusConflict, "idempotency_mismatch", "The Idempotency-Key was used before with other content.", false}
	codeAlreadyExists          = ProblemCode{http.StatusConflict, "already_exists", "Another record of the company has the lookup-key value the write gives; nothing was written. (A record key in use, such as a POST of a taken Nr, is the engine's refusal: 422 command_failed.)", false}
	codeIdempotencyClaimLost   = ProblemCode{http.StatusConflict, "idempotency_claim_lost", "Another call with the same Idempotency-Key answered first while this one ran, and its answer could not be read back; this one wrote nothing. Retry with the same key after Retry-After to get that call's answer.", true}
	codePreconditionFailed     = ProblemCode{http.StatusPreconditionFailed, "precondition_failed", "If-Match names a version (ETag) the record is no longer at, or only weak tags; nothing was written: GET the record again and send its new ETag.", false}
	codeCursorExpired          = ProblemCode{http.StatusGone, "cursor_expired", "The events after this feed cursor are older than the event retention and were deleted: start again without after, and reconcile from the registers.", false}
	codePayloadTooLarge        = ProblemCode{http.StatusRequestEntityTooLarge, "payload_too_large", "The request body is larger than 32 MB.", false}
	codeUnsupportedMediaType   = ProblemCode{http.StatusUnsupportedMediaType, "unsupported_media_type", "A body that is not application/json.", false}
	codeCommandFailed          = ProblemCode{http.StatusUnprocessableEntity, "command_failed", "A well-formed call the engine refused, with the engine's own text; validValues when the accepted values are known; contacts[1]: … names a failing line.", false}
	codeRateLimited            = ProblemCode{http.StatusTooManyRequests, "rate_limited", "Too many calls for this key (or address, for POST /v1/token); retry after Retry-After.", true}
	codeHeadersTooLarge        = ProblemCode{http.StatusRequestHeaderFieldsTooLarge, "headers_too_large", "The request line and headers are larger than 64 KB.", false}
	codeInternal               = ProblemCode{http.StatusInternalServerError, "internal_error", "A fault in the service itself; logged with the request id, the detail never shows internals.", false}
	codeNotImplemented         = ProblemCode{http.StatusNotImplemented, "not_implemented", "The attached engine lacks an optional capability (lines and actions, locations, documents, events and webhooks).", false}
	codeEngineUnreachable      = ProblemCode{http.StatusServiceUnavailable, "engine_unreachable", "The engine cannot be reached; it never received the call, so retrying after Retry-After is safe.", true}
	codeEngineBusy             = ProblemCode{http.StatusServiceUnavailable, "engine_busy", "The engine is full, or a write ended before its COMMIT was sent; nothing was written, so retrying after Retry-After is safe.", true}
	codeEngineTimeout          = ProblemCode{http.StatusGatewayTimeout, "engine_timeout", "The engine did not answer in time and may have written: retry with the same Idempotency-Key.", false}
)

// Codes is every problem code the service answers with, in status order.
func Codes() []ProblemCode {
	return []ProblemCode{
		codeMalformedBody, codeUnknownField, codeReadOnlyField, codeInvalidField, codeMissingField, codeInvalidParameter, codeInvalidReference, codeIdempotencyKeyRequired,
		codeUnauthorized, codeTokenRequired,
		codeInsufficientScope, codeIPNotAllowed, codePermissionDenied,
		codeNotFound,
		codeMethodNotAllowed,
		codeAlreadyExists, codeIdempotencyMismatch, codeIdempotencyClaimLost,
		codeCursorExpired,
		codePreconditionFailed,
		codePayloadTooLarge,
		codeUnsupportedMediaType,
		codeCommandFailed,
		codeRateLimited,
		codeHeadersTooLarge,
		codeInternal,
		codeNotImplemented,
		codeEngineUnreachable, codeEngineBusy,
		codeEngineTimeout,
	}
}

// MalformedBody: the body is not a JSON object of the expected shape.
func MalformedBody(detail string) *Problem {
	return problem(codeMalformedBody, detail)
}

// UnknownField: a request names a field that cannot be sent here.
func UnknownField(path string, writable []string) *Problem {
	p := problem(codeUnknownField, fmt.Sprintf("field %q cannot be sent here; the writable fields are listed in validValues", path))
	p.ValidValues = writable
	return p
}

// ReadOnlyField: a request sends a field that is read only.
func ReadOnlyField(path string, writable []string) *Problem {
	p := problem(codeReadOnlyField, fmt.Sprintf("field %q is read only; the writable fields are listed in validValues", path))
	p.ValidValues = writable
	return p
}

// InvalidField: a field has the wrong JSON type or format.
func InvalidField(path, detail string) *Problem {
	return problem(codeInvalidField, fmt.Sprintf("field %q: %s", path, detail))
}

// MissingField: a field required by the request shape was not sent.
func MissingField(path string) *Problem {
	return problem(codeMissingField, fmt.Sprintf("field %q is required", path))
}

// InvalidParameter: a query or path parameter cannot be parsed.
func InvalidParameter(name, detail string) *Problem {
	return problem(codeInvalidParameter, fmt.Sprintf("parameter %q: %s", name, detail))
}

// InvalidReference: a batch operation's reference (@{id.Field}) in field
// (path, or a field of its body) names no value it can use.
func InvalidReference(field, detail string) *Problem {
	return problem(codeInvalidReference, fmt.Sprintf("%s: %s", field, detail))
}

// IdempotencyKeyRequired: a write came without an Idempotency-Key header.
func IdempotencyKeyRequired() *Problem {
	return problem(codeIdempotencyKeyRequired, "write calls (POST, PUT, PATCH) need an Idempotency-Key header")
}

// Unauthorized: the key or token is missing, wrong, revoked or expired.
func Unauthorized(detail string) *Problem {
	return problem(codeUnauthorized, detail)
}

// TokenRequired: the installation requires tokens and a key was sent as Bearer.
func TokenRequired() *Problem {
	return problem(codeTokenRequired, "this installation requires tokens: send the key as clientSecret to POST /v1/token and use the access_token as Bearer")
}

// InsufficientScope: the key lacks the scope the route needs.
func InsufficientScope(scope string) *Problem {
	return problem(codeInsufficientScope, fmt.Sprintf("the key lacks the scope %s", scope))
}

// IPNotAllowed: the key may not be used from the caller's address.
func IPNotAllowed(ip string) *Problem {
	return problem(codeIPNotAllowed, fmt.Sprintf("the key may not be used from %s", ip))
}

// PermissionDenied: the engine's own permissions for the key's signature refuse the call.
func PermissionDenied(detail string) *Problem {
	return problem(codePermissionDenied, detail)
}

// NotFound: the record or path addressed does not exist.
func NotFound(detail string) *Problem {
	return problem(codeNotFound, detail)
}

// MethodNotAllowed: the path exists but not with this method.
func MethodNotAllowed(method string, allowed []string) *Problem {
	return problem(codeMethodNotAllowed, fmt.Sprintf("%s is not offered here; allowed: %s", method, strings.Join(allowed, ", ")))
}

// AlreadyExists: another record has the key or lookup key a write gives.
func AlreadyExists(detail string) *Problem {
	return problem(codeAlreadyExists, detail)
}

// IdempotencyMismatch: the Idempotency-Key was used before with other content.
func IdempotencyMismatch() *Problem {
	return problem(codeIdempotencyMismatch, "the Idempotency-Key was already used with different content")
}

// IdempotencyClaimLost: another call with the same Idempotency-Key
// answered first while this one ran, and its answer could not be read
// back (a call answers with it when it can); this one wrote nothing.
func IdempotencyClaimLost() *Problem {
	p := problem(codeIdempotencyClaimLost, "another call with the same Idempotency-Key answered first while this one ran; nothing was written: retry with the same key for that call's answer")
	p.retryAfter = 1
	return p
}

// PreconditionFailed: If-Match named a version the record is no longer at
// (or only weak tags); nothing was written.
func PreconditionFailed() *Problem {
	return problem(codePreconditionFailed, "the record has changed since the ETag sent in If-Match: GET it again, reapply the change and send its new ETag")
}

// CursorExpired: the feed no longer holds the events after the cursor.
func CursorExpired() *Problem {
	return problem(codeCursorExpired, "the events after this cursor are older than the event retention and were deleted; start again without after")
}

// WithValid lists the accepted values on a problem being built.
func (p *Problem) WithValid(values []string) *Problem {
	p.ValidValues = values
	return p
}

// PayloadTooLarge: the request body is over the limit.
func PayloadTooLarge(limit int64) *Problem {
	return problem(codePayloadTooLarge, fmt.Sprintf("the request body is larger than %d bytes", limit))
}

// HeadersTooLarge: the request line and headers are over the limit.
func HeadersTooLarge(limit int) *Problem {
	return problem(codeHeadersTooLarge, fmt.Sprintf("the request line and headers are larger than %d bytes", limit))
}

// UnsupportedMediaType: a body that is not JSON.
func UnsupportedMediaType(got string) *Problem {
	return problem(codeUnsupportedMediaType, fmt.Sprintf("request bodies are application/json, not %q", got))
}

// CommandFailed: a well-formed call the engine refused, with the engine's text.
func CommandFailed(detail string, validValues []string) *Problem {
	p := problem(codeCommandFailed, detail)
	p.ValidValues = validValues
	return p
}

// RateLimited: too many calls for this key.
func RateLimited(retryAfter int) *Problem {
	p := problem(codeRateLimited, fmt.Sprintf("too many calls; retry after %d s", retryAfter))
	p.retryAfter = retryAfter
	return p
}

// Internal: a fault in the service itself. The detail never leaks internals.
func Internal() *Problem {
	return problem(codeInternal, "the service failed; the request id identifies the fault in the log")
}

// NotImplemented: the engine attached does not offer what, a capability.
func NotImplemented(what string) *Problem {
	return problem(codeNotImplemented, "this engine does not offer "+what)
}

// EngineUnreachable: the engine cannot be reached; it never received the call.
func EngineUnreachable() *Problem {
	p := problem(codeEngineUnreachable, "the engine cannot be reached; it did not receive the call, retrying is safe")
	p.retryAfter = 1
	return p
}

// EngineBusy: the engine is full; it never received the call.
func EngineBusy() *Problem {
	p := problem(codeEngineBusy, "the engine is busy; it did not receive the call, retrying is safe")
	p.retryAfter = 1
	return p
}

// EngineTimeout: the engine did not answer in time; it may have written.
func EngineTimeout() *Problem {
	return problem(codeEngineTimeout, "the engine did not answer in time; it may have written: retry with the same Idempotency-Key")
}

// AtomicBatchFailed is the answer of an atomic batch (POST /v1/batch)
// whose operation i failed, ids being the ids of its operations: that
// operation's problem (its body, failed), its status and code, with the
// detail saying which operation failed and that nothing was written, and
// as members the operation's index and id, its own problem, and the ids
// of the operations not executed (all others: the transaction rolled
// back those before it, and those after it never ran).
func AtomicBatchFailed(ids []string, i int, failed json.RawMessage) *Problem {
	var own Problem
	if err := json.Unmarshal(failed, &own); err != nil || own.Status == 0 {
		own = *Internal()
	}
	p := own
	p.Type, p.RequestID = "", ""
	p.Detail = fmt.Sprintf("operations[%d] (%q) failed, so none of the batch's %d operations was written: %s", i, ids[i], len(ids), own.Detail)
	p.Index, p.ID, p.Operation = &i, ids[i], &own
	p.NotExecuted = make([]string, 0, len(ids)-1)
	for j, id := range ids {
		if j != i {
			p.NotExecuted = append(p.NotExecuted, id)
		}
	}
	if own.Title == codeEngineBusy.Code || own.Title == codeEngineUnreachable.Code || own.Title == codeIdempotencyClaimLost.Code || own.Title == codeRateLimited.Code {
		p.retryAfter = 1
	}
	return &p
}

// Of maps any error to its problem. Engine errors map to their kinds;
// anything unknown is an internal error.
func Of(err error) *Problem {
	var p *Problem
	var cmd *engine.CommandError
	var perm *engine.PermissionError
	var taken *engine.KeyTakenError
	var tooMany *engine.TooManyLinesError
	switch {
	case errors.As(err, &p):
		return p
	case errors.As(err, &tooMany): // the read's expand= asked more than it carries
		return InvalidParameter(engine.ExpandParam, tooMany.Error())
	case errors.As(err, &cmd):
		return CommandFailed(cmd.Detail, cmd.ValidValues)
	case errors.As(err, &taken) && taken.Lookup:
		return AlreadyExists(taken.Error())
	case errors.As(err, &taken): // a record key: the engine's refusal (spec 7)
		return CommandFailed(taken.Error(), nil)
	case errors.As(err, &perm):
		return PermissionDenied(perm.Error())
	case errors.Is(err, engine.ErrNotFound):
		return NotFound(err.Error())
	case errors.Is(err, engine.ErrPreconditionFailed):
		return PreconditionFailed()
	case errors.Is(err, engine.ErrClaimLost):
		return IdempotencyClaimLost()
	case errors.Is(err, engine.ErrCursorExpired):
		return CursorExpired()
	case errors.Is(err, engine.ErrBusy):
		return EngineBusy()
	case errors.Is(err, engine.ErrUnreachable):
		return EngineUnreachable()
	case errors.Is(err, engine.ErrTimeout):
		return EngineTimeout()
	}
	return Internal()
}

// RetryAfter is the problem's Retry-After header value, or "".
func (p *Problem) RetryAfter() string {
	if p.retryAfter <= 0 {
		return ""
	}
	return strconv.Itoa(p.retryAfter)
}
