// Package runtime is the register-agnostic HTTP layer the generated code
// runs on: the server, each call's way through it (auth, rate limit, body,
// idempotency) and the handlers the generated code calls. It knows no
// register by name; the generated route table tells it what exists. Its
// subpackages each do one job for it (problems, request bodies, list
// parameters, query shaping, auth, limits, observation, routing, the
// event feed); surface.go forwards the names of theirs the generated
// code uses.
package runtime

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/julienschmidt/httprouter"
	"golang.org/x/time/rate"

	"fieldapi/engine"
	"fieldapi/runtime/auth"
	"fieldapi/runtime/observe"
	"fieldapi/runtime/problem"
	"fieldapi/runtime/ratelimit"
	"fieldapi/runtime/router"
)

// Config is how an operator tunes the service. Zero values take the defaults.
type Config struct {
	ProblemBase    string        // problem type URLs are ProblemBase/<code>
	RequireTokens  bool          // a key sent as Bearer is refused with token_required
	MaxBody        int64         // request body limit in bytes (32 MB)
	MaxHeaderBytes int           // request line and headers limit in bytes (64 KB); keep net/http's own limit above it
	RateLimit      rate.Limit    // calls per second per key; 0 = default, negative = off
	RateBurst      int           // calls a key may make at once
	TokenLifetime  time.Duration // lifetime of access tokens, at most an hour
	IdempotencyTTL time.Duration // completed Idempotency-Keys are kept at least this long
	AuthCacheTTL   time.Duration // how long a verified key or token is trusted without a lookup
	CORSOrigins    []string      // origins a browser may call from; none turns CORS off
	GzipMinSize    int           // answers at least this large are gzipped for clients that accept it
	Observers      []Observer    // hear of every request: the access log, metrics
	// WebhookURLCheck refuses a subscription URL by the operator's policy
	// (package webhook: private addresses); nil allows every http(s) URL.
	// Deliveries check the address they dial again.
	WebhookURLCheck func(u *url.URL) error
	Logger          *slog.Logger
	Now             func() time.Time
}

// Defaults of Config.
const (
	DefaultProblemBase = "https://fieldapi.dev/problems"
	DefaultMaxBody     = 32 << 20
	// DefaultMaxHeaderBytes is well below net/http's own limit (1 MB by
	// default), so oversized headers are answered here, as a problem,
	// rather than by net/http in plain text.
	DefaultMaxHeaderBytes = 64 << 10
	DefaultRateLimit      = 50
	DefaultRateBurst      = 100
)

func (c Config) withDefaults() Config {
	if c.ProblemBase == "" {
		c.ProblemBase = DefaultProblemBase
	}
	c.ProblemBase = strings.TrimRight(c.ProblemBase, "/")
	if c.MaxBody <= 0 {
		c.MaxBody = DefaultMaxBody
	}
	if c.MaxHeaderBytes <= 0 {
		c.MaxHeaderBytes = DefaultMaxHeaderBytes
	}
	if c.RateLimit == 0 {
		c.RateLimit = DefaultRateLimit
	}
	if c.RateBurst <= 0 {
		c.RateBurst = DefaultRateBurst
	}
	if c.TokenLifetime <= 0 || c.TokenLifetime > time.Hour {
		c.TokenLifetime = time.Hour
	}
	if c.IdempotencyTTL <= 0 {
		c.IdempotencyTTL = 24 * time.Hour
	}
	if c.AuthCacheTTL == 0 {
		c.AuthCacheTTL = 2 * time.Second
	}
	if c.GzipMinSize <= 0 {
		c.GzipMinSize = DefaultGzipMinSize
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return c
}

// Handler serves one route. A returned error is written as its problem.
type Handler func(c *Call) error

// Route is one method and path with the scope it needs. Paths use
// httprouter syntax; the record key is always the parameter :key.
type Route struct {
	Method  string
	Path    string
	Scope   string // needed scope; "" with Public false means any valid key
	Public  bool   // needs no key
	Handler Handler
	Created *Created // a route answering 201: where the resource it creates lives

	pattern   string // Path as logged and counted: /v1/customers/{key}
	batchable bool   // a route of the API's registers, which a batch's operation may take
}

// Created finds the address of a created resource in a 201 answer, for
// its Location header: Base (the request's path when empty), "/", and the
// answer's member Member, path-escaped.
type Created struct {
	Base   string // /v1/materials; "" for the request's own path
	Member string // Nr, nr, id: the member holding the new key
}

// location is the Location of the resource a 201 answer body describes,
// or "" when the body does not name it.
func (cr *Created) location(requestPath string, body []byte) string {
	key, ok := topMember(body, cr.Member)
	if !ok {
		return ""
	}
	base := cr.Base
	if base == "" {
		base = requestPath
	}
	return strings.TrimRight(base, "/") + "/" + url.PathEscape(key)
}

// topMember finds a text or number member of a JSON object, reading past
// the others without decoding them: every 201 passes through here, and a
// task's answer holds its lines.
func topMember(body []byte, member string) (string, bool) {
	dec := jsontext.NewDecoder(bytes.NewBuffer(body), jsontext.AllowDuplicateNames(true))
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return "", false
	}
	var buf [64]byte
	for dec.PeekKind() == '"' {
		name, err := dec.ReadValue()
		if err != nil {
			return "", false
		}
		if unquoted, err := jsontext.AppendUnquote(buf[:0], name); err != nil || string(unquoted) != member {
			if dec.SkipValue() != nil {
				return "", false
			}
			continue
		}
		switch tok, err := dec.ReadToken(); {
		case err != nil:
			return "", false
		case tok.Kind() == '"':
			return tok.String(), true
		case tok.Kind() == '0':
			f, err := tok.Float()
			return strconv.FormatFloat(f, 'f', -1, 64), err == nil
		default:
			return "", false
		}
	}
	return "", false
}

// API is what the generated code describes: its routes, every scope a key
// may hold, the OpenAPI document and the HTML reference page.
type API struct {
	Routes  []Route
	Scopes  []string
	OpenAPI []byte
	Docs    []byte // served at GET /docs
}

// Server serves a route table.
type Server struct {
	engine  engine.Engine
	cfg     Config
	router  *router.Router
	scopes  []string
	auth    *auth.Authenticator
	limits  *ratelimit.Limits
	routes  []Route      // every route served, built-in ones first
	handler http.Handler // the routes inside the observing and HTTP-convention layers
	pages   pageBuffers  // the buffers list pages are written into
}

// NewServer builds the service over an engine and the generated API; the
// built-in routes (health, whoami, token, field-names, openapi.json, docs) are
// added here.
func NewServer(eng engine.Engine, cfg Config, api API) *Server {
	cfg = cfg.withDefaults()
	s := &Server{
		engine: eng,
		cfg:    cfg,
		router: router.New(),
		limits: ratelimit.New(cfg.RateLimit, cfg.RateBurst, cfg.Now),
		scopes: slices.Sorted(slices.Values(append(slices.Clone(api.Scopes), BuiltinScopes()...))),
	}
	s.auth = auth.New(eng.Keys(), auth.Options{RequireTokens: cfg.RequireTokens, CacheTTL: cfg.AuthCacheTTL, TokenLifetime: cfg.TokenLifetime, Now: cfg.Now})
	builtins := builtinRoutes(api)
	for i, r := range append(builtins, api.Routes...) {
		// The built-in routes keep state of the service's own (webhooks,
		// tokens) outside the engine's write transaction: a batch holds
		// the registers' writes only.
		r.batchable = i >= len(builtins)
		s.add(r)
		if r.Method == http.MethodGet {
			r.Method = http.MethodHead // every GET answers HEAD: its headers, no body
			s.add(r)
		}
	}
	s.handler = observe.Requests(s.withConventions(http.HandlerFunc(s.route)), HeaderRequestID, cfg.Observers, cfg.Now)
	return s
}

// Scopes lists every scope a key may hold, sorted.
func (s *Server) Scopes() []string { return s.scopes }

// Routes is every route the server serves, built-in ones first.
func (s *Server) Routes() []Route { return slices.Clone(s.routes) }

func (s *Server) add(r Route) {
	s.routes = append(s.routes, r)
	route := &r
	route.pattern = PathPattern(r.Path)
	s.router.Handle(r.Method, r.Path, func(w http.ResponseWriter, req *http.Request, ps httprouter.Params) {
		s.serveRoute(w, req, route, ps)
	})
}

// routeParam is a parameter of an httprouter path (:key).
var routeParam = regexp.MustCompile(`:([A-Za-z0-9_]+)`)

// PathPattern writes a route's httprouter path with its parameters as
// {name}: /v1/webhooks/:key → /v1/webhooks/{key}. It is the Route of a
// RequestRecord and, in codegen, the OpenAPI path, so the two agree.
func PathPattern(path string) string { return routeParam.ReplaceAllString(path, "{$1}") }

// ServeHTTP serves a request through the observers (request id, access
// log, metrics), CORS and gzip, then the routes.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// route routes on the escaped path, so a key holding "/" (sent as %2F)
// stays one path segment.
func (s *Server) route(w http.ResponseWriter, r *http.Request) {
	if headerBytes(r) > s.cfg.MaxHeaderBytes {
		s.newCall(w, r, nil, nil).fail(problem.HeadersTooLarge(s.cfg.MaxHeaderBytes))
		return
	}
	path := r.URL.EscapedPath()
	h, ps, allowed := s.router.Lookup(r.Method, path)
	switch {
	case h != nil:
		h(w, r, ps)
	case len(allowed) > 0:
		s.serveMethodNotAllowed(w, r, allowed)
	case s.router.EmptyParam(r.Method, path):
		// A route takes a key here, and the path's last segment is empty.
		s.newCall(w, r, nil, nil).fail(problem.InvalidParameter("key", "empty: the path must end with the record's key"))
	default:
		s.newCall(w, r, nil, nil).fail(problem.NotFound("no such path: " + r.URL.Path))
	}
}

// headerBytes is about what the request line and headers took on the wire.
func headerBytes(r *http.Request) int {
	n := len(r.Method) + len(r.RequestURI) + len(r.Proto) + 4
	for name, values := range r.Header {
		for _, v := range values {
			n += len(name) + len(v) + 4 // ": " and CRLF
		}
	}
	return n
}

// serveMethodNotAllowed answers 405 with Allow; it sorts allowed itself, so
// the header reads the same whatever order the caller collected it in.
func (s *Server) serveMethodNotAllowed(w http.ResponseWriter, r *http.Request, allowed []string) {
	slices.Sort(allowed)
	w.Header().Set(HeaderAllow, strings.Join(allowed, ", "))
	c := s.newCall(w, r, nil, nil)
	c.fail(problem.MethodNotAllowed(r.Method, allowed))
}
