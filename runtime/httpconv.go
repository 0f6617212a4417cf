package runtime

import (
	"net/http"

	"github.com/klauspost/compress/gzhttp"
	"github.com/klauspost/compress/gzip"
	"github.com/rs/cors"
)

// HTTP conventions every answer follows, as layers around the routes:
// gzip for clients that accept it, CORS for the configured origins.
// HEAD, Cache-Control and the RateLimit headers are set per route.

// DefaultGzipMinSize: smaller answers are sent as they are; compressing
// them costs more than it saves.
const DefaultGzipMinSize = 1024

// corsAllowedHeaders are the request headers a browser client may send.
var corsAllowedHeaders = []string{HeaderAuthorization, HeaderContentType, HeaderIdempotencyKey, HeaderIfMatch, HeaderIfNoneMatch, HeaderRequestID}

// corsExposedHeaders are the answer headers a browser client may read.
var corsExposedHeaders = []string{HeaderETag, HeaderLocation, HeaderIdempotencyKey, HeaderIdempotencyReplayed, HeaderRequestID,
	HeaderRetryAfter, HeaderRateLimit, HeaderRateLimitPolicy, HeaderAllow}

// withConventions wraps the routes in gzip and, when origins are
// configured, CORS (answering preflights before routing).
func (s *Server) withConventions(routes http.Handler) http.Handler {
	// The fastest level: JSON compresses well at any level, and at the
	// default one compressing a task was a tenth of GET one's CPU (pprof).
	compress, err := gzhttp.NewWrapper(gzhttp.MinSize(s.cfg.GzipMinSize), gzhttp.CompressionLevel(gzip.BestSpeed))
	if err != nil {
		panic(err) // only a negative size fails, and withDefaults prevents it
	}
	h := http.Handler(compress(routes))
	if len(s.cfg.CORSOrigins) > 0 {
		h = cors.New(cors.Options{
			AllowedOrigins: s.cfg.CORSOrigins,
			AllowedMethods: []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch},
			AllowedHeaders: corsAllowedHeaders,
			ExposedHeaders: corsExposedHeaders,
			MaxAge:         600,
		}).Handler(h)
	}
	return h
}

// setNoStore marks an answer as one no cache may keep: it answers a
// credential (every keyed call, and POST /v1/token, RFC 6749 5.1).
func setNoStore(h http.Header) { h.Set(HeaderCacheControl, "no-store") }
