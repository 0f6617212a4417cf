// Package batch is the register-agnostic part of POST /v1/batch: the
// request's envelope, read strictly, the references between its
// operations (@{id.Field}) and the shape of its answer. The HTTP layer
// (runtime/batch.go) runs each operation through the same route a single
// call takes.
package batch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// MaxOperations is how many operations one batch may carry.
const MaxOperations = 1000

// Path is the batch's own route; an operation may not name it.
const Path = "/v1/batch"

// Methods are the methods an operation may use: the writes. A batch is for
// writes; reads are refused (their answers could not be part of one
// transaction's outcome and are cheaper as their own calls).
var Methods = []string{http.MethodPost, http.MethodPut, http.MethodPatch}

// Request is the body of POST /v1/batch.
type Request struct {
	Atomic     bool
	Operations []Operation
}

// Operation is one write of a batch.
type Operation struct {
	ID      string          // names it in results and references: ValidID
	Method  string          // one of Methods
	Path    string          // /v1/…, as a single call's path, with references
	Body    json.RawMessage // the single call's body (an object), nil when none
	IfMatch string          // sent as If-Match
}

// ValidID is the form of an operation's id.
var ValidID = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// FieldKind says what is wrong with a member of the envelope.
type FieldKind uint8

// The kinds of envelope errors.
const (
	Malformed FieldKind = iota // the body is not one JSON object
	Unknown                    // a member the envelope does not have (Valid lists those it has)
	Invalid                    // a member of the wrong type or form
	Missing                    // a required member was not sent
)

// FieldError is an envelope member that cannot be read.
type FieldError struct {
	Kind   FieldKind
	Field  string // operations[3].method
	Detail string
	Valid  []string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Detail }

var (
	envelopeMembers  = []string{"atomic", "operations"}
	operationMembers = []string{"body", "id", "ifMatch", "method", "path"}
)

// Decode reads a batch request strictly: every member of the envelope
// and of each operation is checked for its type and form, and an
// operation's body must be an object; what the body holds is the single
// call's business, checked when the operation runs.
func Decode(body []byte) (Request, error) {
	var req Request
	members, err := object(body, "")
	if err != nil {
		return req, err
	}
	if err := onlyMembers(members, "", envelopeMembers); err != nil {
		return req, err
	}
	if raw, ok := members["atomic"]; ok {
		if err := json.Unmarshal(raw, &req.Atomic); err != nil || isNull(raw) {
			return req, &FieldError{Kind: Invalid, Field: "atomic", Detail: "expected true or false"}
		}
	}
	raw, ok := members["operations"]
	if !ok {
		return req, &FieldError{Kind: Missing, Field: "operations", Detail: "is required"}
	}
	ops, err := elements(raw)
	if err != nil {
		return req, &FieldError{Kind: Invalid, Field: "operations", Detail: "expected an array of operations"}
	}
	if len(ops) == 0 || len(ops) > MaxOperations {
		return req, &FieldError{Kind: Invalid, Field: "operations",
			Detail: fmt.Sprintf("a batch holds 1 to %d operations; this one has %d", MaxOperations, len(ops))}
	}
	req.Operations = make([]Operation, len(ops))
	seen := make(map[string]int, len(ops))
	for i, raw := range ops {
		op, err := decodeOperation(raw, fmt.Sprintf("operations[%d]", i))
		if err != nil {
			return req, err
		}
		if first, dup := seen[op.ID]; dup {
			return req, &FieldError{Kind: Invalid, Field: fmt.Sprintf("operations[%d].id", i),
				Detail: fmt.Sprintf("%q is already the id of operations[%d]: ids name one operation each", op.ID, first)}
		}
		seen[op.ID] = i
		req.Operations[i] = op
	}
	return req, nil
}

func decodeOperation(raw json.RawMessage, at string) (Operation, error) {
	var op Operation
	members, err := object(raw, at)
	if err != nil {
		return op, err
	}
	if err := onlyMembers(members, at, operationMembers); err != nil {
		return op, err
	}
	text := func(name string, required bool) (string, error) {
		raw, ok := members[name]
		if !ok {
			if required {
				return "", &FieldError{Kind: Missing, Field: at + "." + name, Detail: "is required"}
			}
			return "", nil
		}
		var s string
		if err := json.Unmarshal(raw, &s); err != nil || isNull(raw) {
			return "", &FieldError{Kind: Invalid, Field: at + "." + name, Detail: "expected a string"}
		}
		return s, nil
	}
	if op.ID, err = text("id", true); err != nil {
		return op, err
	}
	if !ValidID.MatchString(op.ID) {
		return op, &FieldError{Kind: Invalid, Field: at + ".id", Detail: "expected 1 to 64 of A-Z a-z 0-9 _ -"}
	}
	if op.Method, err = text("method", true); err != nil {
		return op, err
	}
	if !slices.Contains(Methods, op.Method) {
		return op, &FieldError{Kind: Invalid, Field: at + ".method", Valid: Methods,
			Detail: fmt.Sprintf("operation %q: %q cannot be batched; a batch holds writes (%s): send reads as their own calls", op.ID, op.Method, strings.Join(Methods, ", "))}
	}
	if op.Path, err = text("path", true); err != nil {
		return op, err
	}
	if !strings.HasPrefix(op.Path, "/v1/") || strings.ContainsAny(op.Path, "?#") {
		return op, &FieldError{Kind: Invalid, Field: at + ".path", Detail: fmt.Sprintf("operation %q: expected a path under /v1/ without query or fragment", op.ID)}
	}
	if op.Path == Path || strings.HasPrefix(op.Path, Path+"/") {
		return op, &FieldError{Kind: Invalid, Field: at + ".path", Detail: fmt.Sprintf("operation %q: a batch cannot hold a batch", op.ID)}
	}
	if op.IfMatch, err = text("ifMatch", false); err != nil {
		return op, err
	}
	if raw, ok := members["body"]; ok {
		if _, err := object(raw, at+".body"); err != nil {
			return op, err
		}
		op.Body = raw
	}
	return op, nil
}

// object reads the members of one JSON object; a name sent twice is an
// error, as in every body the service reads.
func object(data []byte, at string) (map[string]json.RawMessage, error) {
	notObject := func() error {
		if at == "" {
			return &FieldError{Kind: Malformed, Detail: "the body must be one JSON object: {\"atomic\": …, \"operations\": […]}"}
		}
		return &FieldError{Kind: Invalid, Field: at, Detail: "expected an object"}
	}
	dec := newDecoder(data)
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return nil, notObject()
	}
	members := map[string]json.RawMessage{}
	for dec.PeekKind() == '"' {
		tok, err := dec.ReadToken()
		if err != nil {
			return nil, notObject()
		}
		name := tok.String()
		raw, err := dec.ReadValue()
		if err != nil {
			return nil, notObject()
		}
		if _, dup := members[name]; dup {
			return nil, &FieldError{Kind: Malformed, Field: join(at, name), Detail: "sent twice"}
		}
		members[name] = json.RawMessage(raw)
	}
	if !closed(dec, '}') {
		return nil, notObject()
	}
	return members, nil
}

// elements returns the values of a JSON array as sent.
func elements(data []byte) ([]json.RawMessage, error) {
	dec := newDecoder(data)
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '[' {
		return nil, errors.New("not an array")
	}
	var values []json.RawMessage
	for dec.PeekKind() != ']' {
		raw, err := dec.ReadValue()
		if err != nil {
			return nil, err
		}
		values = append(values, json.RawMessage(raw))
	}
	if !closed(dec, ']') {
		return nil, errors.New("not an array")
	}
	return values, nil
}

// newDecoder reads a batch with jsontext, whose values are slices of data
// (no copy: a batch's operations are read once more each, by their own
// route): the members' checks, duplicates included, are Decode's, and
// text was checked before (textcheck).
func newDecoder(data []byte) *jsontext.Decoder {
	return jsontext.NewDecoder(bytes.NewBuffer(data), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
}

// closed reads the end of the value being read and reports whether it was
// end and nothing but space follows.
func closed(dec *jsontext.Decoder, end jsontext.Kind) bool {
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != end {
		return false
	}
	_, err := dec.ReadToken()
	return err == io.EOF
}

func onlyMembers(members map[string]json.RawMessage, at string, known []string) error {
	for _, name := range slices.Sorted(maps.Keys(members)) {
		if !slices.Contains(known, name) {
			return &FieldError{Kind: Unknown, Field: join(at, name), Valid: known, Detail: "cannot be sent here"}
		}
	}
	return nil
}

func join(at, name string) string {
	if at == "" {
		return name
	}
	return at + "." + name
}

func isNull(raw json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }
