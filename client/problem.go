package client

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// The kinds of failure errors.Is recognises in a *Problem:
//
//	if errors.Is(err, client.ErrNotFound) { ... }
var (
	ErrUnauthorized       = errors.New("fieldapi: unauthorized")        // 401: no, a wrong, revoked or expired key or token
	ErrTokenRequired      = errors.New("fieldapi: token required")      // 401 token_required: use WithClientCredentials
	ErrForbidden          = errors.New("fieldapi: forbidden")           // 403: scope, address or the signature's permissions
	ErrNotFound           = errors.New("fieldapi: not found")           // 404: no such record (in the caller's company)
	ErrConflict           = errors.New("fieldapi: conflict")            // 409: a lookup-key value another record has (already_exists), an Idempotency-Key reused with other content, or still running
	ErrPreconditionFailed = errors.New("fieldapi: precondition failed") // 412: the record changed since the ETag sent with WithIfMatch, or an Upsert's create-only or update-only condition failed; nothing was written
	ErrRejected           = errors.New("fieldapi: rejected")            // 422: the engine refused the command (its rules)
	ErrRateLimited        = errors.New("fieldapi: rate limited")        // 429: too many calls, after every retry
	ErrInvalid            = errors.New("fieldapi: invalid request")     // 400: the request's shape, a field or a parameter
	ErrUnavailable        = errors.New("fieldapi: engine unavailable")  // 503 and 504: the engine was not reached or did not answer in time
)

// Problem is an error answer of the server (RFC 9457,
// application/problem+json), after any retries.
type Problem struct {
	Status      int      // HTTP status
	Code        string   // the problem's title, such as not_found or command_failed
	Detail      string   // what went wrong, for people
	ValidValues []string // the values or names that would have been accepted, when the server lists them
	RequestID   string   // the request id, for the server's log
	Line        string   // the failing line the detail names, such as materials[1]; "" when none
	Type        string   // the problem type URL
	// OperationID and OperationIndex name the operation of an atomic
	// batch that failed (Client.Batch); OperationID is "" otherwise.
	OperationID    string
	OperationIndex int

	retryAfter time.Duration
}

// Error is the code and the detail.
func (p *Problem) Error() string {
	msg := "fieldapi: " + strconv.Itoa(p.Status) + " " + p.Code
	if p.Detail != "" {
		msg += ": " + p.Detail
	}
	if p.Code == "token_required" {
		msg += " (build the client with client.WithClientCredentials)"
	}
	return msg
}

// Is makes errors.Is(err, ErrNotFound) and the other kinds work.
func (p *Problem) Is(target error) bool {
	switch target {
	case ErrTokenRequired:
		return p.Code == "token_required"
	case ErrUnavailable:
		return p.Status == http.StatusServiceUnavailable || p.Status == http.StatusGatewayTimeout
	}
	return statusErrors[p.Status] == target
}

var statusErrors = map[int]error{
	http.StatusBadRequest:          ErrInvalid,
	http.StatusUnauthorized:        ErrUnauthorized,
	http.StatusForbidden:           ErrForbidden,
	http.StatusNotFound:            ErrNotFound,
	http.StatusConflict:            ErrConflict,
	http.StatusPreconditionFailed:  ErrPreconditionFailed,
	http.StatusUnprocessableEntity: ErrRejected,
	http.StatusTooManyRequests:     ErrRateLimited,
}

// retryable reports whether the same call may be sent again (see RetryPolicy).
func (p *Problem) retryable() bool {
	switch p.Status {
	case http.StatusTooManyRequests, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	case http.StatusConflict:
		// Another call with the key answered first: a retry with the key
		// gets that call's answer.
		return p.Code == "idempotency_claim_lost"
	}
	return false
}

// linePattern finds a line of a list in a detail: "materials[1]: ..." or
// field "contacts[0].email".
var linePattern = regexp.MustCompile(`[A-Za-z][A-Za-z0-9]*\[\d+\]`)

// readProblem turns an error answer into a Problem and closes its body.
// An answer that is not a problem (a proxy's error page) still gives one,
// with the status text as its code.
func readProblem(resp *http.Response) *Problem {
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	p := problemFrom(resp.StatusCode, data)
	if p.RequestID == "" {
		p.RequestID = resp.Header.Get(headerRequestID)
	}
	p.retryAfter = parseRetryAfter(resp.Header.Get(headerRetryAfter))
	return p
}

// problemFrom reads a problem body answered with status: a call's, or a
// batch operation's.
func problemFrom(status int, data []byte) *Problem {
	var body struct {
		Type        string   `json:"type"`
		Title       string   `json:"title"`
		Detail      string   `json:"detail"`
		ValidValues []string `json:"validValues"`
		RequestID   string   `json:"requestId"`
		Index       int      `json:"index"`
		ID          string   `json:"id"`
		Operation   *struct {
			Detail string `json:"detail"`
		} `json:"problem"`
	}
	p := &Problem{Status: status}
	if json.Unmarshal(data, &body) == nil && body.Title != "" {
		p.Code, p.Detail, p.ValidValues, p.RequestID, p.Type = body.Title, body.Detail, body.ValidValues, body.RequestID, body.Type
		p.OperationID, p.OperationIndex = body.ID, body.Index
	} else {
		p.Code = strings.ReplaceAll(strings.ToLower(http.StatusText(status)), " ", "_")
		p.Detail = strings.TrimSpace(string(data[:min(len(data), 200)]))
	}
	p.Line = linePattern.FindString(p.Detail)
	if body.Operation != nil {
		// The failed operation's own line, not the batch's operations[i].
		p.Line = linePattern.FindString(body.Operation.Detail)
	}
	return p
}

// parseRetryAfter reads delay-seconds or an HTTP date; 0 when absent.
func parseRetryAfter(v string) time.Duration {
	if v == "" {
		return 0
	}
	if secs, err := strconv.Atoi(v); err == nil && secs >= 0 {
		return time.Duration(secs) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0)
	}
	return 0
}
