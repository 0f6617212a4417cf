package client

import (
	"context"
	"net/http"
)

// Response is what a call's answer said besides its body: the record's
// version (ETag) and the headers an operator asks for. The typed methods
// return only the body; a caller that wants the rest passes a context made
// by WithResponse:
//
//	var resp client.Response
//	task, err := c.Tasks.Get(client.WithResponse(ctx, &resp), "10065")
//	// resp.ETag is the task's version, resp.RequestID the server's log id
type Response struct {
	StatusCode int    // 200, 201, 304, or a problem's status; 0 when no answer came
	ETag       string // the record's version, as sent (quotes included), on Get, Create, Update and actions (a line post's is the new line's, not its owner's); "" on other answers and on replays
	RequestID  string // X-Request-Id, for the server's access log
	Replayed   bool   // Idempotency-Replayed: the answer is a stored one, the write ran before (a replay carries no ETag: Get the record for its version)

	IdempotencyKey string      // the key a write was sent with; "" on reads
	Attempts       int         // how often the call was sent, retries included
	Header         http.Header // every header of the last answer
}

type responseContext struct{}

// WithResponse makes the call made with ctx fill resp with its last answer's
// metadata, success or problem. Use one Response per call: a context used
// for several calls keeps the last (for All, the last page), and for calls
// at the same time it would be a data race.
func WithResponse(ctx context.Context, resp *Response) context.Context {
	return context.WithValue(ctx, responseContext{}, resp)
}

// recordResponse fills the caller's Response, if ctx asks for one. hr is
// nil when no answer came.
func recordResponse(ctx context.Context, hr *http.Response, key string, attempts int) {
	resp, ok := ctx.Value(responseContext{}).(*Response)
	if !ok || resp == nil {
		return
	}
	*resp = Response{IdempotencyKey: key, Attempts: attempts}
	if hr == nil {
		return
	}
	resp.StatusCode = hr.StatusCode
	resp.Header = hr.Header
	resp.ETag = hr.Header.Get(headerETag)
	resp.RequestID = hr.Header.Get(headerRequestID)
	resp.Replayed = hr.Header.Get(headerIdempotencyReplayed) == "true"
}
