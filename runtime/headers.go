package runtime

import standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

// The HTTP header names the service reads and writes, declared once: the
// runtime sets and reads them by these names, codegen documents them in the
// OpenAPI document from them, the tests send and check them by them, and
// the generator copies the ones the typed client needs into its generated
// file (the client imports nothing but the standard library). Names are
// spelled as their specifications spell them; HTTP compares them without
// case, and net/http canonicalises them when it sends them.
const (
	// Sent by callers.
	HeaderAuthorization  = "Authorization"   // Bearer mk_… or mt_…
	HeaderIdempotencyKey = "Idempotency-Key" // every write; echoed on its answer
	HeaderIfMatch        = "If-Match"        // a write only while the record is at that ETag
	HeaderIfNoneMatch    = "If-None-Match"   // a read answered 304 while the record is at that ETag
	HeaderAccept         = "Accept"          // what the caller reads (the typed client: application/json)
	HeaderUserAgent      = "User-Agent"      // who calls (the typed client's own, or WithUserAgent's)
	HeaderAcceptEncoding = "Accept-Encoding" // gzip: larger answers come compressed

	// Both ways.
	HeaderContentType = "Content-Type" // of a request body, and of every answer
	HeaderRequestID   = "X-Request-Id" // the caller's when valid, else a new one; on every answer

	// Sent by the service.
	HeaderIdempotencyReplayed   = "Idempotency-Replayed"    // true on the stored answer of an earlier write
	HeaderETag                  = "ETag"                    // the version of the record an answer carries
	HeaderLocation              = "Location"                // the path of what a 201 created
	HeaderRetryAfter            = "Retry-After"             // seconds to wait before retrying
	HeaderRateLimit             = "RateLimit"               // what is left of the key's rate limit
	HeaderRateLimitPolicy       = "RateLimit-Policy"        // the key's rate limit
	HeaderCacheControl          = "Cache-Control"           // no-store on every keyed answer
	HeaderAllow                 = "Allow"                   // the methods of a path, on 405
	HeaderContentDisposition    = "Content-Disposition"     // attachment, on a document download
	HeaderContentLength         = "Content-Length"          // a document download's size, when known
	HeaderContentEncoding       = "Content-Encoding"        // gzip, for callers that accept it
	HeaderContentSecurityPolicy = "Content-Security-Policy" // of the /docs page: it loads nothing

	// CORS, for the configured origins (github.com/rs/cors speaks it).
	HeaderOrigin                      = "Origin"
	HeaderAccessControlRequestMethod  = "Access-Control-Request-Method"
	HeaderAccessControlRequestHeaders = "Access-Control-Request-Headers"
	HeaderAccessControlAllowOrigin    = "Access-Control-Allow-Origin"
	HeaderAccessControlAllowMethods   = "Access-Control-Allow-Methods"
	HeaderAccessControlAllowHeaders   = "Access-Control-Allow-Headers"
	HeaderAccessControlExposeHeaders  = "Access-Control-Expose-Headers"

	// Sent with each webhook delivery (package webhook), named by the
	// Standard Webhooks library that signs and verifies them.
	HeaderWebhookID        = standardwebhooks.HeaderWebhookID
	HeaderWebhookTimestamp = standardwebhooks.HeaderWebhookTimestamp
	HeaderWebhookSignature = standardwebhooks.HeaderWebhookSignature
)
