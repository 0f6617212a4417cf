package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"runtime/debug"

	"github.com/julienschmidt/httprouter"

	"fieldapi/engine"
	"fieldapi/runtime/auth"
	"fieldapi/runtime/decode"
	"fieldapi/runtime/etag"
	"fieldapi/runtime/listquery"
	"fieldapi/runtime/observe"
	"fieldapi/runtime/problem"
	"fieldapi/runtime/textcheck"
)

// Call is one request on its way through a route: what the handler needs
// and what the pipeline learned about the caller.
type Call struct {
	W         http.ResponseWriter
	R         *http.Request
	Params    httprouter.Params
	Engine    engine.Engine
	Session   engine.Session // set once the caller is authenticated
	Scopes    []string       // the caller's scopes
	Body      []byte         // the request body of a write, read within the limit
	RequestID string

	server  *Server
	route   *Route
	claim   *engine.Claim // the Idempotency-Key hold of a write
	written bool
	record  *observe.RequestRecord // what the access log and metrics learn of this call
}

// Context is the request's context.
func (c *Call) Context() context.Context { return c.R.Context() }

// Key is the record key of the path, unescaped.
func (c *Call) Key() (string, error) { return c.Param("key") }

// Param is a path parameter, unescaped; one that is not valid UTF-8 or
// holds NUL is refused (no record has such a key).
func (c *Call) Param(name string) (string, error) {
	v, err := url.PathUnescape(c.Params.ByName(name))
	if err != nil {
		return "", problem.InvalidParameter(name, "not a valid escaped path segment")
	}
	if err := textcheck.Param(name, v); err != nil {
		return "", err
	}
	return v, nil
}

// Query is the request's query parameters, parsed strictly
// (listquery.Values): a malformed escape is a 400 naming the parameter.
func (c *Call) Query() (url.Values, error) { return listquery.Values(c.R.URL.RawQuery) }

// JSON writes a JSON response.
func (c *Call) JSON(status int, v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	c.send(status, "application/json", body)
	return nil
}

// Receipt is how a write's response is rendered inside the engine's
// transaction, so it can be stored with the write for replay.
func (c *Call) Receipt(status int, view func(engine.Record) any) engine.Receipt {
	return c.receipt(status, view, false)
}

// recordReceipt is Receipt for a write that answers with a record of a
// register, which carries the record's ETag.
func (c *Call) recordReceipt(status int, view func(engine.Record) any) engine.Receipt {
	return c.receipt(status, view, true)
}

func (c *Call) receipt(status int, view func(engine.Record) any, versioned bool) engine.Receipt {
	r := engine.Receipt{Render: func(rec engine.Record) (engine.Response, error) {
		body, err := json.Marshal(view(rec))
		resp := engine.Response{Status: status, Body: body}
		if versioned {
			resp.Version = rec.Version()
		}
		return resp, err
	}}
	if c.claim != nil {
		r.Claim = *c.claim
	}
	return r
}

// Send writes a response the engine rendered through a Receipt, with the
// ETag of the record it rendered (a replay has none: the record may have
// changed since).
func (c *Call) Send(resp engine.Response) error {
	if resp.Version != "" {
		c.W.Header().Set(HeaderETag, etag.Strong(resp.Version))
	}
	c.send(resp.Status, contentTypeFor(resp.Status), resp.Body)
	return nil
}

func contentTypeFor(status int) string {
	if status >= 400 {
		return "application/problem+json"
	}
	return "application/json"
}

// WriteHeader answers with status and the headers set, without a body
// (204, 304), or with one the caller writes to W itself (a download).
func (c *Call) WriteHeader(status int) {
	c.written = true
	c.W.WriteHeader(status)
}

func (c *Call) send(status int, contentType string, body []byte) {
	if c.written {
		return
	}
	c.written = true
	h := c.W.Header()
	h.Set(HeaderContentType, contentType)
	if c.claim != nil && h.Get(HeaderIdempotencyReplayed) == "" {
		h.Set(HeaderIdempotencyReplayed, "false")
	}
	if status == http.StatusCreated && c.route != nil && c.route.Created != nil {
		if loc := c.route.Created.location(c.R.URL.EscapedPath(), body); loc != "" {
			h.Set(HeaderLocation, loc)
		}
	}
	c.W.WriteHeader(status)
	c.W.Write(body)
}

// fail writes the problem of an error, and settles a write's claim: a
// response the engine produced is stored for replay; anything else is
// stored nowhere, so a retry runs, unless an execution of the key stored
// a response before (answeredBefore). A fault (5xx) is answered as it is:
// a lookup would wait on the database that just failed, and a retry
// replays what committed.
func (c *Call) fail(err error) {
	p := problem.Of(err)
	c.record.Problem = p.Title
	if p.Status == http.StatusInternalServerError {
		c.server.cfg.Logger.Error("request failed", "requestId", c.RequestID, "method", c.R.Method, "route", c.record.Route,
			"error", err, "stack", string(debug.Stack()))
	}
	body := p.Body(c.server.cfg.ProblemBase, c.RequestID)
	if ra := p.RetryAfter(); ra != "" {
		c.W.Header().Set(HeaderRetryAfter, ra)
	}
	if c.claim != nil && (errors.Is(err, engine.ErrClaimLost) || !c.complete(p.Status, body)) {
		c.answerRace()
		return
	}
	if c.claim != nil && p.Status < http.StatusInternalServerError && !engineAnswered(p.Status) && c.answeredBefore() {
		return
	}
	c.send(p.Status, "application/problem+json", body)
}

// complete stores the answer of a write that failed when it is the
// engine's verdict, so a retry replays it; any other failure stores
// nothing, and a retry runs. It reports false when another execution of
// the key stored its answer first, which is then the call's answer.
func (c *Call) complete(status int, body []byte) bool {
	if !engineAnswered(status) {
		return true
	}
	err := c.Engine.Idempotency().Complete(context.WithoutCancel(c.Context()), *c.claim, engine.Response{Status: status, Body: body})
	if errors.Is(err, engine.ErrClaimLost) {
		return false
	}
	if err != nil {
		c.server.cfg.Logger.Error("storing the answer under its Idempotency-Key", "requestId", c.RequestID, "error", err)
	}
	return true
}

// engineAnswered reports whether a failure status is the engine's verdict,
// which a retry must see again, rather than a refusal before the engine ran.
func engineAnswered(status int) bool {
	return status == http.StatusNotFound || status == http.StatusConflict || status == http.StatusUnprocessableEntity
}

// newCall starts a call; the observing layer has given the request its id
// and record.
func (s *Server) newCall(w http.ResponseWriter, r *http.Request, route *Route, ps httprouter.Params) *Call {
	rec := observe.RecordOf(r)
	if route != nil {
		rec.Route = route.pattern
	}
	return &Call{W: w, R: r, Params: ps, Engine: s.engine, RequestID: rec.RequestID, server: s, route: route, record: rec}
}

// serveRoute runs the pipeline of one matched route: request id, panic
// recovery, auth, rate limit, body, idempotency, handler.
func (s *Server) serveRoute(w http.ResponseWriter, r *http.Request, route *Route, ps httprouter.Params) {
	c := s.newCall(w, r, route, ps)
	if !route.Public || isWrite(r.Method) { // the public write is POST /v1/token: its answer is a credential
		setNoStore(w.Header())
	}
	defer func() {
		if v := recover(); v != nil {
			s.cfg.Logger.Error("panic", "requestId", c.RequestID, "panic", v, "stack", string(debug.Stack()))
			c.fail(problem.Internal())
		}
	}()
	if err := s.prepare(c); err != nil {
		c.fail(err)
		return
	}
	if c.written { // an idempotent replay
		return
	}
	if err := route.Handler(c); err != nil {
		c.fail(err)
	}
}

// prepare runs everything before the handler; a write leaves holding its
// claim. A body whose text is not valid UTF-8 or holds NUL is refused here,
// for every route, before any handler or the engine sees it.
func (s *Server) prepare(c *Call) error {
	if op, ok := c.Context().Value(batchOperationKey{}).(*batchOperation); ok {
		return s.prepareOperation(c, op)
	}
	write := isWrite(c.R.Method)
	if write {
		if key := c.R.Header.Get(HeaderIdempotencyKey); key != "" {
			c.W.Header().Set(HeaderIdempotencyKey, key)
		}
	}
	if !c.route.Public {
		key, err := s.auth.Authenticate(c.Context(), c.R.Header.Get(HeaderAuthorization), auth.RemoteIP(c.R))
		if err != nil {
			return err
		}
		c.Session = engine.Session{Company: key.Company, Sign: key.Sign, ClientID: key.ClientID}
		c.Scopes = key.Scopes
		if err := auth.RequireScope(c.Scopes, c.route.Scope); err != nil {
			return err
		}
		c.record.ClientID, c.record.Company = c.Session.ClientID, c.Session.Company
		policy, state, err := s.limits.AllowKey(c.Session.ClientID)
		if policy != "" {
			c.W.Header().Set(HeaderRateLimitPolicy, policy)
			c.W.Header().Set(HeaderRateLimit, state)
		}
		if err != nil {
			return err
		}
	} else if write {
		// POST /v1/token checks secrets: limit it per address, so it
		// cannot be used to guess keys at speed.
		if err := s.limits.Allow("ip:" + auth.RemoteIP(c.R).String()); err != nil {
			return err
		}
	}
	if !write {
		return nil
	}
	body, err := decode.Read(c.W, c.R, c.R.Header.Get(HeaderContentType), s.cfg.MaxBody)
	if err != nil {
		return err
	}
	if err := textcheck.JSON(body); err != nil {
		return err
	}
	c.Body = body
	if c.route.Public {
		return nil
	}
	return s.claim(c)
}

func isWrite(method string) bool {
	return method == http.MethodPost || method == http.MethodPut || method == http.MethodPatch
}
