package observe

import (
	"context"
	"log/slog"
)

// AccessLog writes one structured line per request: what an operator needs
// to answer "what did client X call at 10:42, and why did it fail" from the
// request id the client reports. It never logs a key, a token, a body or
// the raw path.
type AccessLog struct {
	log *slog.Logger
}

// NewAccessLog logs through log (text or JSON, as its handler is).
func NewAccessLog(log *slog.Logger) *AccessLog { return &AccessLog{log: log} }

// RequestStarted does nothing: a request is logged once, when answered.
func (*AccessLog) RequestStarted() {}

// RequestDone writes the request's line: level Info, Warn for a 5xx.
func (a *AccessLog) RequestDone(r *RequestRecord) {
	level := slog.LevelInfo
	if r.Status >= 500 {
		level = slog.LevelWarn
	}
	if !a.log.Enabled(context.Background(), level) {
		return
	}
	a.log.LogAttrs(context.Background(), level, "request",
		slog.String("requestId", r.RequestID),
		slog.String("method", r.Method),
		slog.String("route", r.Route),
		slog.Int("status", r.Status),
		slog.String("problem", r.Problem),
		slog.Float64("durationMs", float64(r.Duration.Microseconds())/1000),
		slog.Int64("bytesIn", r.BytesIn),
		slog.Int64("bytesOut", r.BytesOut),
		slog.String("clientId", r.ClientID),
		slog.String("company", r.Company),
		slog.Bool("replayed", r.Replayed),
	)
}
