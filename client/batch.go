package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
)

// Batch collects writes for one call of POST /v1/batch: each operation is
// its single call (the same path, body, rules and problems), run in order.
// Build it with NewBatch or NewAtomicBatch and Add, send it with
// Client.Batch, and read each operation's typed answer with its Op:
//
//	b := client.NewAtomicBatch()
//	c1 := client.Add[client.Customer](b, "c1", http.MethodPost, "/v1/customers", client.CustomerCreate{Name: client.Value("Ola Nordmann AS")})
//	t1 := client.Add[client.TaskCreated](b, "t1", http.MethodPost, "/v1/tasks", client.TaskCreate{CustomerNr: client.Value(c1.Ref("Nr"))})
//	m1 := client.Add[client.Material](b, "m1", http.MethodPost, client.BatchPath("/v1/tasks", t1.Ref("nr"), "materials"), client.TaskMaterialLine{...})
//	results, err := c.Batch(ctx, b)  // atomic: a *Problem naming the failed operation, nothing written
//	task, err := t1.Result(results)
//
// The whole batch is one call with one Idempotency-Key (the context's, or
// a random one), sent again on every retry: a retry replays the batch's
// stored answer, and never writes twice.
type Batch struct {
	atomic bool
	ops    []batchOperation
}

type batchOperation struct {
	ID      string `json:"id"`
	Method  string `json:"method"`
	Path    string `json:"path"`
	Body    any    `json:"body,omitempty"`
	IfMatch string `json:"ifMatch,omitempty"`
}

// NewBatch starts an independent batch: each operation commits on its own,
// and the answer holds every operation's result, failures included.
func NewBatch() *Batch { return &Batch{} }

// NewAtomicBatch starts an atomic batch: every operation commits in one
// transaction or none does.
func NewAtomicBatch() *Batch { return &Batch{atomic: true} }

// Len is how many operations the batch holds.
func (b *Batch) Len() int { return len(b.ops) }

// Op is an operation of a batch whose answer reads as T (the type its
// single call's method returns: Customer for Customers.Create, TaskCreated
// for Tasks.Create, Material for Tasks.AddMaterial, …).
type Op[T any] struct {
	id    string
	index int
}

// ID is the operation's id.
func (o Op[T]) ID() string { return o.id }

// Ref is a reference to the member of this operation's answer, for a
// later operation's path (through BatchPath) or any string of its body:
// @{id.member}. A dotted member walks into objects and lists.
func (o Op[T]) Ref(member string) string { return "@{" + o.id + "." + member + "}" }

// Add adds a write: method (POST, PUT or PATCH), the single call's path
// and body (a generated body type, such as CustomerCreate; nil for none).
// id names it (1 to 64 of A-Z a-z 0-9 _ -, unique in the batch).
func Add[T any](b *Batch, id, method, path string, body any) Op[T] {
	return AddIfMatch[T](b, id, method, path, "", body)
}

// AddIfMatch is Add for a write that goes ahead only while the record is
// at the version etag (sent as If-Match).
func AddIfMatch[T any](b *Batch, id, method, path, etag string, body any) Op[T] {
	b.ops = append(b.ops, batchOperation{ID: id, Method: method, Path: path, Body: body, IfMatch: etag})
	return Op[T]{id: id, index: len(b.ops) - 1}
}

var batchReference = regexp.MustCompile(`^@\{[A-Za-z0-9_-]+\.[A-Za-z0-9_.]+\}$`)

// BatchPath is a path of a batch's operation: the collection and each
// segment after it, escaped as one path segment, except references
// (Op.Ref), which the server resolves and escapes.
func BatchPath(collection string, segments ...string) string {
	var sb strings.Builder
	sb.WriteString(strings.TrimRight(collection, "/"))
	for _, s := range segments {
		sb.WriteByte('/')
		if batchReference.MatchString(s) {
			sb.WriteString(s)
		} else {
			sb.WriteString(url.PathEscape(s))
		}
	}
	return sb.String()
}

// BatchResults is the answer of a batch that ran.
type BatchResults struct {
	Results []BatchResult `json:"results"`
}

// BatchResult is what one operation answered.
type BatchResult struct {
	ID      string          `json:"id"`
	Status  int             `json:"status"`
	ETag    string          `json:"etag"` // the version of the record it wrote
	Body    json.RawMessage `json:"body"` // its answer, on success
	Problem *Problem        `json:"-"`    // its problem, on failure
}

// UnmarshalJSON reads a result with its problem as a *Problem.
func (r *BatchResult) UnmarshalJSON(data []byte) error {
	type plain BatchResult
	var v struct {
		plain
		Problem json.RawMessage `json:"problem"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*r = BatchResult(v.plain)
	if len(v.Problem) > 0 && string(v.Problem) != "null" {
		r.Problem = problemFrom(r.Status, v.Problem)
	}
	return nil
}

// Batch sends the batch. An atomic batch whose operation failed returns
// that operation's *Problem, with OperationID and OperationIndex naming it:
// nothing was written. An independent batch returns every result; read
// each with its Op's Result.
func (c *Client) Batch(ctx context.Context, b *Batch) (*BatchResults, error) {
	body := struct {
		Atomic     bool             `json:"atomic"`
		Operations []batchOperation `json:"operations"`
	}{b.atomic, b.ops}
	res, err := write[BatchResults](ctx, c, http.MethodPost, "/v1/batch", body)
	if err != nil {
		return nil, err
	}
	return &res, nil
}

// Result is the operation's answer as T, or its *Problem.
func (o Op[T]) Result(r *BatchResults) (T, error) {
	var out T
	if r == nil || o.index >= len(r.Results) || r.Results[o.index].ID != o.id {
		return out, fmt.Errorf("fieldapi: the batch's results hold no operation %q", o.id)
	}
	res := r.Results[o.index]
	if res.Problem != nil {
		return out, res.Problem
	}
	if err := json.Unmarshal(res.Body, &out); err != nil {
		return out, fmt.Errorf("fieldapi: decoding the answer of batch operation %q: %w", o.id, err)
	}
	return out, nil
}
