// Package observe tells observers of every request: it gives each request
// its id and a record of what the service learned about it, counts the
// bytes in and out, and hands the record to the observers (the access log
// here, the Prometheus metrics in package metrics) once it is answered.
package observe

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"net/http"
	"regexp"
	"time"
)

// RequestRecord is what the service learned about one request, handed to
// every Observer when the answer is written. It never holds a key, a token,
// a body or the raw path (record keys are data): Route is the pattern.
type RequestRecord struct {
	Start     time.Time
	RequestID string
	Method    string
	Route     string // the route pattern, such as /v1/customers/{key}; RouteNone when no route matched
	Status    int
	Problem   string // the problem code of a failed call, "" otherwise
	Duration  time.Duration
	BytesIn   int64 // request body bytes read
	BytesOut  int64 // response body bytes written, as sent (compressed when gzip applies)
	ClientID  string
	Company   string
	Replayed  bool // an idempotent replay answered
	LostRace  bool // a write ran while another with its Idempotency-Key did, which answered first: its answer was replayed
}

// RouteNone is the Route of a request no route matched (404, 405, a CORS preflight).
const RouteNone = "(none)"

// Observer hears of every request: RequestStarted as it arrives and
// RequestDone with its record once answered. The access log and the
// Prometheus metrics are observers. RequestDone must not keep the record.
type Observer interface {
	RequestStarted()
	RequestDone(*RequestRecord)
}

type recordKey struct{}

// RecordOf is the record of the request being served.
func RecordOf(r *http.Request) *RequestRecord {
	rec, _ := r.Context().Value(recordKey{}).(*RequestRecord)
	return rec
}

// WithRecord is ctx carrying rec as its request's record (an internal
// request's, such as a batch operation's).
func WithRecord(ctx context.Context, rec *RequestRecord) context.Context {
	return context.WithValue(ctx, recordKey{}, rec)
}

var clientRequestID = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,64}$`)

func newRequestID() string {
	var b [12]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Requests gives each request its id (the client's, in the header named
// idHeader, when it is usable) and its record, counts the bytes in and
// out, and tells the observers. It is the outermost layer, so it sees the
// answer as sent.
func Requests(next http.Handler, idHeader string, observers []Observer, now func() time.Time) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &RequestRecord{Start: now(), Method: r.Method, Route: RouteNone}
		rec.RequestID = r.Header.Get(idHeader)
		if !clientRequestID.MatchString(rec.RequestID) {
			rec.RequestID = newRequestID()
		}
		w.Header().Set(idHeader, rec.RequestID)
		for _, o := range observers {
			o.RequestStarted()
		}
		cw := &countingWriter{ResponseWriter: w, status: http.StatusOK}
		if r.Body != nil && r.Body != http.NoBody {
			r.Body = &countingBody{ReadCloser: r.Body, n: &rec.BytesIn}
		}
		defer func() {
			rec.Status, rec.BytesOut = cw.status, cw.bytes
			rec.Duration = now().Sub(rec.Start)
			for _, o := range observers {
				o.RequestDone(rec)
			}
		}()
		next.ServeHTTP(cw, r.WithContext(WithRecord(r.Context(), rec)))
	})
}

// countingWriter notes the status and counts the body bytes written.
type countingWriter struct {
	http.ResponseWriter
	status      int
	bytes       int64
	wroteHeader bool
}

func (w *countingWriter) WriteHeader(status int) {
	if !w.wroteHeader {
		w.status, w.wroteHeader = status, true
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *countingWriter) Write(b []byte) (int, error) {
	w.wroteHeader = true
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *countingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// countingBody counts the request body bytes read.
type countingBody struct {
	io.ReadCloser
	n *int64
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	*b.n += int64(n)
	return n, err
}
