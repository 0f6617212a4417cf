package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"fieldapi/engine"
	"fieldapi/runtime/auth"
	"fieldapi/runtime/batch"
	"fieldapi/runtime/decode"
	"fieldapi/runtime/observe"
	"fieldapi/runtime/problem"
)

// POST /v1/batch runs many writes in one call. Each operation is served
// by the route a single call of its method and path takes, through the
// same handler, as an internal request whose answer is recorded: the
// same decoding, scopes, rules, problems and events as the single call.
// What the batch changes is only around the handler (prepareOperation):
// the caller was authenticated once, by the batch, and each operation is
// checked against that key's scopes; its body comes from the batch; and
// its Idempotency-Key is the batch's:
//
//   - atomic: the engine runs every operation's write in one transaction
//     (engine.Atomic), and the batch's answer is stored under the batch's
//     key in it; the operations claim no key of their own. Before the
//     first runs, a plan run (readAhead) decodes every operation that
//     names no earlier answer and tells the engine what they will write,
//     so the records they reference are read in one query per register.
//   - independent: each operation commits on its own under a key derived
//     from the batch's (batch.OperationKey), so a retry of a batch that died
//     half way replays the operations that committed and runs the rest;
//     the batch's answer is stored under its key when every operation
//     has answered.

// batchOperationKey marks the context of an operation's internal request.
type batchOperationKey struct{}

// batchOperation is what an operation's internal request carries from
// the batch past the route's handler.
type batchOperation struct {
	session engine.Session
	scopes  []string
	body    []byte
	key     string        // the operation's Idempotency-Key; "" in an atomic batch
	plan    *batchPlan    // set in the plan run of an atomic batch (readAhead)
	input   *engine.Input // the body as the plan run decoded it; nil: not planned
}

// batchPlan is what the plan run of an atomic batch learns: the writes
// its operations will make.
type batchPlan struct {
	writes []engine.PlannedWrite
}

// decodeWrite decodes the body of a create, update or upsert of register
// (create: one that may create). In an atomic batch's plan run it notes
// the write and reports planned, and the handler returns, writing
// nothing; when the operation then runs, it takes the input decoded in
// the plan run. register "" is a write whose body is not the register's
// (a line, an action): never noted, but reported planned all the same,
// so that it too writes only when it runs.
func decodeWrite[W any, P interface {
	*W
	Body
}](c *Call, register string, shape Shape, create bool) (in engine.Input, planned bool, err error) {
	op, _ := c.Context().Value(batchOperationKey{}).(*batchOperation)
	if op != nil && op.input != nil && op.plan == nil {
		return *op.input, false, nil
	}
	if in, err = decode.Input[W, P](c.Body, shape); err != nil {
		return in, false, err
	}
	if op == nil || op.plan == nil {
		return in, false, nil
	}
	if register == "" {
		return in, true, nil // not planned, and not run until the run proper
	}
	op.input = &in
	op.plan.writes = append(op.plan.writes, engine.PlannedWrite{Register: register, Input: in, Create: create})
	return in, true, nil
}

// planning reports whether the call is an operation of an atomic batch's
// plan run: a handler that writes without decodeWrite (a document, a
// position) must return before writing anything.
func (c *Call) planning() bool {
	op, _ := c.Context().Value(batchOperationKey{}).(*batchOperation)
	return op != nil && op.plan != nil
}

// serveBatch serves POST /v1/batch.
func serveBatch(c *Call) error {
	req, err := batch.Decode(c.Body)
	if err != nil {
		return envelopeProblem(err)
	}
	if req.Atomic {
		return c.server.runAtomic(c, req)
	}
	return c.server.runIndependent(c, req)
}

// envelopeProblem is the problem of a batch whose envelope cannot be read.
func envelopeProblem(err error) error {
	var fe *batch.FieldError
	if !errors.As(err, &fe) {
		return err
	}
	switch fe.Kind {
	case batch.Unknown:
		return problem.UnknownField(fe.Field, fe.Valid)
	case batch.Missing:
		return problem.MissingField(fe.Field)
	case batch.Invalid:
		return problem.InvalidField(fe.Field, fe.Detail).WithValid(fe.Valid)
	}
	if fe.Field != "" {
		return problem.MalformedBody(fmt.Sprintf("%s: %s", fe.Field, fe.Detail))
	}
	return problem.MalformedBody(fe.Detail)
}

// runIndependent runs each operation on its own, whatever the others
// answer, and answers 200 with every result; the answer is stored under
// the batch's Idempotency-Key.
func (s *Server) runIndependent(c *Call, req batch.Request) error {
	outcomes := batch.NewOutcomes(req.Operations)
	results := make([]batch.Result, len(req.Operations))
	for i, op := range req.Operations {
		results[i] = s.runOperation(c.Context(), c, op, outcomes, batch.OperationKey(c.R.Header.Get(HeaderIdempotencyKey), i), nil)
	}
	body, err := json.Marshal(batch.Response{Results: results})
	if err != nil {
		return err
	}
	if c.claim != nil {
		err := c.Engine.Idempotency().Complete(context.WithoutCancel(c.Context()), *c.claim, engine.Response{Status: http.StatusOK, Body: body})
		if errors.Is(err, engine.ErrClaimLost) {
			// A retry of this batch answered first: every operation was
			// the same one under the same key, so its answer is this one's.
			c.answerRace()
			return nil
		}
		if err != nil {
			c.server.cfg.Logger.Error("storing a batch's answer under its Idempotency-Key", "requestId", c.RequestID, "error", err)
		}
	}
	c.send(http.StatusOK, "application/json", body)
	return nil
}

// runAtomic runs the operations in one transaction of the engine: the
// first that fails rolls everything back, and the batch answers with its
// status and a problem naming it; when all succeed, the answer commits
// with their writes under the batch's Idempotency-Key.
func (s *Server) runAtomic(c *Call, req batch.Request) error {
	atomic, err := capabilityOf[engine.Atomic](c, "atomic batches")
	if err != nil {
		return err
	}
	var claim engine.Claim
	if c.claim != nil {
		claim = *c.claim
	}
	resp, err := atomic.Atomically(c.Context(), c.Session, claim, func(ctx context.Context) (engine.Response, error) {
		inputs, err := s.readAhead(ctx, c, atomic, req.Operations)
		if err != nil {
			return engine.Response{}, err
		}
		outcomes := batch.NewOutcomes(req.Operations)
		results := make([]batch.Result, len(req.Operations))
		like := batch.LikeOperations(req.Operations)
		for i, op := range req.Operations {
			results[i] = s.runOperation(engine.WithLikeWrites(ctx, like[i]), c, op, outcomes, "", inputs[i])
			if results[i].Status >= 300 {
				return engine.Response{}, problem.AtomicBatchFailed(req.IDs(), i, results[i].Problem)
			}
		}
		body, err := json.Marshal(batch.Response{Results: results})
		return engine.Response{Status: http.StatusOK, Body: body}, err
	})
	if err != nil {
		return err
	}
	c.send(resp.Status, "application/json", resp.Body)
	return nil
}

// readAhead is an atomic batch's plan run: each operation whose path and
// body name no earlier answer (@{…}) is routed as it will be run, but its
// handler only decodes the body and notes the write (decodeWrite), so
// the engine can read what every planned write references at once
// (engine.Atomic's ReadAhead). It returns the inputs decoded, by
// operation, for the run proper; nil where an operation was not planned
// (it decodes its body when it runs, and fails there if it must).
func (s *Server) readAhead(ctx context.Context, c *Call, atomic engine.Atomic, ops []batch.Operation) ([]*engine.Input, error) {
	plan := &batchPlan{}
	planned := make([]*batchOperation, len(ops))
	for i, op := range ops {
		if batch.HasReferences(op) {
			continue
		}
		planned[i] = &batchOperation{session: c.Session, scopes: c.Scopes, body: op.Body, plan: plan}
		s.routeOperation(ctx, c, op, op.Path, planned[i])
	}
	inputs := make([]*engine.Input, len(ops))
	for i, op := range planned {
		if op != nil {
			inputs[i] = op.input
		}
	}
	if len(plan.writes) == 0 {
		return inputs, nil
	}
	return inputs, atomic.ReadAhead(ctx, c.Session, plan.writes)
}

// runOperation runs one operation as the internal request of its method
// and path, with references resolved, and returns what it answered;
// input, when set, is its body as the plan run decoded it.
func (s *Server) runOperation(ctx context.Context, c *Call, op batch.Operation, outcomes *batch.Outcomes, key string, input *engine.Input) batch.Result {
	res := batch.Result{ID: op.ID}
	fail := func(p *Problem) batch.Result {
		res.Status, res.Problem = p.Status, p.Body(s.cfg.ProblemBase, c.RequestID)
		outcomes.Add(op.ID, batch.Outcome{Status: res.Status})
		return res
	}
	path, body, err := outcomes.Resolve(op)
	if err != nil {
		var ref *batch.RefError
		if !errors.As(err, &ref) {
			return fail(problem.MalformedBody("the body is not valid JSON"))
		}
		return fail(problem.InvalidReference(ref.Field, ref.Detail))
	}
	w, p := s.routeOperation(ctx, c, op, path, &batchOperation{session: c.Session, scopes: c.Scopes, body: body, key: key, input: input})
	if p != nil {
		return fail(p)
	}
	if w.status == 0 {
		return fail(problem.Internal()) // a handler that answered nothing: never a success
	}
	res.Status = w.status
	if res.Status >= 400 {
		res.Problem = w.body.Bytes()
	} else {
		res.Body = w.body.Bytes()
		if !json.Valid(res.Body) {
			res.Body = nil
		}
		res.ETag = w.header.Get(HeaderETag)
	}
	outcomes.Add(op.ID, batch.Outcome{Status: res.Status, Body: res.Body})
	return res
}

// routeOperation serves an operation as the internal request of its
// method and path (references resolved), carrying bo past the route's
// handler, and returns what it answered.
func (s *Server) routeOperation(ctx context.Context, c *Call, op batch.Operation, path string, bo *batchOperation) (*operationRecorder, *Problem) {
	u, err := url.Parse(path)
	if err != nil {
		return nil, problem.InvalidParameter("path", "not a valid escaped path")
	}
	record := &observe.RequestRecord{Start: s.cfg.Now(), RequestID: c.RequestID, Method: op.Method, Route: observe.RouteNone}
	ctx = observe.WithRecord(ctx, record)
	ctx = context.WithValue(ctx, batchOperationKey{}, bo)
	r, err := http.NewRequestWithContext(ctx, op.Method, u.String(), nil)
	if err != nil {
		return nil, problem.InvalidParameter("path", "not a valid path")
	}
	r.RemoteAddr, r.Host = c.R.RemoteAddr, c.R.Host
	if op.IfMatch != "" {
		r.Header.Set(HeaderIfMatch, op.IfMatch)
	}
	w := &operationRecorder{header: http.Header{}}
	s.route(w, r)
	return w, nil
}

// prepareOperation is prepare for a batch's operation: the batch
// authenticated the caller and read the body; the route's scope is
// checked against the batch key's, and an independent operation claims
// its derived Idempotency-Key.
func (s *Server) prepareOperation(c *Call, op *batchOperation) error {
	if !c.route.batchable || !isWrite(c.R.Method) {
		return problem.InvalidParameter("path", c.R.Method+" "+c.R.URL.Path+" cannot be part of a batch")
	}
	c.Session, c.Scopes = op.session, op.scopes
	c.record.ClientID, c.record.Company = op.session.ClientID, op.session.Company
	if err := auth.RequireScope(c.Scopes, c.route.Scope); err != nil {
		return err
	}
	c.Body = op.body
	if op.key == "" {
		return nil
	}
	return s.claimKey(c, op.key)
}

// operationRecorder keeps what an operation's handler answers.
type operationRecorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (w *operationRecorder) Header() http.Header { return w.header }

func (w *operationRecorder) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
}

func (w *operationRecorder) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.body.Write(b)
}
