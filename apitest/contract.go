package apitest

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"fieldapi/engine"
	"fieldapi/generated"
	"fieldapi/runtime"
)

// The contract: every call the harness sends (Env.Do) is validated against
// the OpenAPI document the server serves, and so is every response it
// gets, with kin-openapi's openapi3filter. A mismatch fails the test that
// made the call, naming the operation and the reason.
//
// A test that sends a request the document does not allow on purpose (a
// malformed body, a missing Idempotency-Key, a wrong media type) sets
// Request.SkipRequestValidation: its request is not checked, its response
// still is.

// contract is the served document, loaded once, with a router over it,
// and its strict twin for answers that fields= did not narrow.
type contract struct {
	doc    *openapi3.T
	router routers.Router
	// strict is the document with each record schema requiring what its
	// x-required-unless-narrowed names: the served one requires only the
	// key (fields= may leave the rest out), which would let an answer that
	// lost a field pass.
	strict routers.Router
}

// unlessNarrowed is the extension of a record schema naming the properties
// an answer without fields= carries.
const unlessNarrowed = "x-required-unless-narrowed"

// The media types a document download can carry (the server sniffs them):
// validating a download reads its bytes as a file.
func init() {
	for _, mt := range []string{"application/pdf", "application/octet-stream", "application/zip", "image/png", "image/jpeg", "image/gif", "text/html"} {
		openapi3filter.RegisterBodyDecoder(mt, openapi3filter.FileBodyDecoder)
	}
}

// SkipRequestValidation is the environment whose calls send requests the
// document does not allow, on purpose: they are not validated; their
// responses still are.
func (e *Env) SkipRequestValidation() *Env {
	skipping := *e
	skipping.skipRequestValidation = true
	return &skipping
}

var loadContract = sync.OnceValues(func() (*contract, error) {
	doc, router, err := loadDocument(false)
	if err != nil {
		return nil, err
	}
	_, strict, err := loadDocument(true)
	if err != nil {
		return nil, err
	}
	return &contract{doc: doc, router: router, strict: strict}, nil
})

// loadDocument loads the served document and routes over it; strict
// requires of each record schema what it carries unless narrowed.
func loadDocument(strict bool) (*openapi3.T, routers.Router, error) {
	doc, err := openapi3.NewLoader().LoadFromData(generated.API().OpenAPI)
	if err != nil {
		return nil, nil, fmt.Errorf("loading the served OpenAPI document: %w", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, nil, fmt.Errorf("the served OpenAPI document is not valid: %w", err)
	}
	if strict {
		for name, s := range doc.Components.Schemas {
			list, ok := s.Value.Extensions[unlessNarrowed].([]any)
			if !ok {
				continue
			}
			s.Value.Required = nil
			for _, p := range list {
				field, ok := p.(string)
				if !ok {
					return nil, nil, fmt.Errorf("schema %s: %s holds %v, not names", name, unlessNarrowed, p)
				}
				s.Value.Required = append(s.Value.Required, field)
			}
		}
	}
	// Match paths on any host: the test servers listen on random ports.
	doc.Servers = nil
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, nil, err
	}
	return doc, router, nil
}

// Contract is the served document's validator; it fails the test when the
// document cannot be loaded.
func Contract(t interface {
	Helper()
	Fatal(...any)
}) *contract {
	t.Helper()
	c, err := loadContract()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var validationOptions = &openapi3filter.Options{
	AuthenticationFunc:    openapi3filter.NoopAuthenticationFunc, // the server checks keys; the document only says one is sent
	IncludeResponseStatus: true,                                  // a status the operation does not declare is a mismatch
	MultiError:            true,
}

// check validates one exchange. It returns nil when both sides match the
// document; a request or response the document has no operation for
// matches only when the server answered 404 or 405 with a problem.
func (c *contract) check(req *http.Request, reqBody []byte, skipRequest bool, status int, header http.Header, body []byte) error {
	// Route on the escaped path, as the server does, so a key holding "/"
	// (sent as %2F) stays one segment.
	vr := req.Clone(context.Background())
	vr.URL.Path, vr.URL.RawPath = req.URL.EscapedPath(), ""
	vr.Body = io.NopCloser(bytes.NewReader(reqBody))
	if req.Method == http.MethodOptions && req.Header.Get(runtime.HeaderAccessControlRequestMethod) != "" && status == http.StatusNoContent {
		// A CORS preflight, answered by the CORS layer before any route
		// (--cors-origin): it is no operation of the document.
		return nil
	}
	router := c.router
	if !vr.URL.Query().Has(engine.FieldsParam) {
		router = c.strict // every field of the read shape is answered
	}
	route, params, err := router.FindRoute(vr)
	if err != nil {
		if (errors.Is(err, routers.ErrPathNotFound) && status == http.StatusNotFound) ||
			(errors.Is(err, routers.ErrMethodNotAllowed) && status == http.StatusMethodNotAllowed) {
			return c.checkProblem(status, header)
		}
		return fmt.Errorf("%s %s is not in the document (%v), yet the server answered %d", req.Method, req.URL.EscapedPath(), err, status)
	}
	op := route.Operation.OperationID
	in := &openapi3filter.RequestValidationInput{Request: vr, PathParams: params, Route: route, Options: validationOptions}
	if !skipRequest {
		if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
			return fmt.Errorf("operation %s: the request does not match the document: %v", op, err)
		}
	}
	if header.Get(runtime.HeaderContentEncoding) == "gzip" {
		// The document describes the content; gzip is only how it travelled.
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			return fmt.Errorf("operation %s: Content-Encoding gzip, but the body is not gzip: %v", op, err)
		}
		if body, err = io.ReadAll(zr); err != nil {
			return fmt.Errorf("operation %s: the gzip body does not decode: %v", op, err)
		}
	}
	out := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in,
		Status:                 status,
		Header:                 header,
		Body:                   io.NopCloser(bytes.NewReader(body)),
		Options:                validationOptions,
	}
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		return fmt.Errorf("operation %s: the %d response does not match the document: %v", op, status, err)
	}
	return nil
}

// checkProblem checks an answer to a path or method the document does not
// have: a problem, as the document's info says.
func (c *contract) checkProblem(status int, header http.Header) error {
	if ct := header.Get(runtime.HeaderContentType); !strings.HasPrefix(ct, "application/problem+json") {
		return fmt.Errorf("%d answer with Content-Type %q, want application/problem+json", status, ct)
	}
	if status == http.StatusMethodNotAllowed && header.Get(runtime.HeaderAllow) == "" {
		return errors.New("405 answer without an Allow header")
	}
	return nil
}
