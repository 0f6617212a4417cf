package openapi

import (
	"net/http"
	"strconv"
	"strings"

	"fieldapi/runtime"
	"fieldapi/runtime/batch"
)

// BatchFailureSchema is the schema, with its example, of an atomic batch's
// failure.
const BatchFailureSchema = "BatchFailure"

// batch adds POST /v1/batch (runtime/batch.go) and its schemas.
func (b *docBuilder) batch() {
	str := func(desc string) *Schema { return &Schema{Type: types("string"), Description: desc} }
	var methods []any
	for _, m := range batch.Methods {
		methods = append(methods, m)
	}
	b.doc.Tags = append(b.doc.Tags, Tag{Name: "batch", Description: "Many writes in one call: all or nothing, or each on its own, with references between them."})
	b.schema("BatchOperation", &Schema{Type: types("object"), AdditionalProperties: Never(), Required: []string{"id", "method", "path"},
		Description: "One write, exactly as its single call: the same route, body, scopes, rules, problems and events.",
		Properties: map[string]*Schema{
			"id": {Type: types("string"), Pattern: batch.ValidID.String(), Description: "Names the operation in the results and in references (@{id.Field}); unique in the batch."},
			"method": {Type: types("string"), Enum: methods,
				Description: "A write method the path accepts; reads are refused."},
			"path": {Type: types("string"), Pattern: `^/v1/[^?#]*$`,
				Description: "The single call's path, such as /v1/tasks/@{t1.nr}/materials; not /v1/batch."},
			"body": {Type: types("object"),
				Description: "The single call's body; any string in it may hold references, @{id.Field}, to earlier operations' answers."},
			"ifMatch": str("Sent as If-Match: the ETag the record must still be at."),
		}})
	b.schema("BatchRequest", (&Schema{Type: types("object"), AdditionalProperties: Never(), Required: []string{"operations"},
		Description: "Writes to run in order in one call.",
		Properties: map[string]*Schema{
			"atomic": {Type: types("boolean"), Description: "true: all operations commit in one transaction or none does; false (the default): each commits on its own."},
			"operations": {Type: types("array"), Items: ref("BatchOperation"), MinItems: ptr(1), MaxItems: ptr(batch.MaxOperations),
				Description: "At most " + strconv.Itoa(batch.MaxOperations) + " operations, run in order."},
		}}).withExample(map[string]any{"atomic": true, "operations": []any{
		map[string]any{"id": "c1", "method": "POST", "path": "/v1/customers", "body": map[string]any{"name": "Ola Nordmann AS", "city": "Bergen"}},
		map[string]any{"id": "t1", "method": "POST", "path": "/v1/tasks", "body": map[string]any{"customerNr": "@{c1.Nr}", "taskText": "Årsservice"}},
		map[string]any{"id": "m1", "method": "POST", "path": "/v1/tasks/@{t1.nr}/materials", "body": map[string]any{"productNr": "4025", "quantity": 2}},
	}}))
	b.schema("BatchResult", objectSchema("What one operation answered.", map[string]*Schema{
		"id":      str("The operation's id."),
		"status":  jsonNumber[int32]("The HTTP status its single call would have answered."),
		"body":    {Description: "Its answer's body, on success."},
		"problem": ref("Problem").withDescription("Its problem, on failure."),
		"etag":    str("The ETag its answer carried: the version of the record written."),
	}, "body", "problem", "etag"))
	b.schema("BatchResponse", objectSchema("One result per operation, in order.", map[string]*Schema{
		"results": {Type: types("array"), Items: ref("BatchResult")},
	}).withExample(map[string]any{"results": []any{ // the answer to the BatchRequest example, its bodies shortened
		map[string]any{"id": "c1", "status": 201, "etag": `"d915b06a45e08da5669062b680f0d943"`,
			"body": map[string]any{"Nr": "1061", "Status": "Active", "Name": "Ola Nordmann AS", "City": "Bergen", "Modified": "2026-11-25T15:42:56.371586Z"}},
		map[string]any{"id": "t1", "status": 201, "etag": `"fd751c3ca3c418cbcebe1d1f61062d22"`,
			"body": map[string]any{"nr": "10065", "id": "76", "status": "Planned", "materials": []any{}, "times": []any{}}},
		map[string]any{"id": "m1", "status": 201, "etag": `"6ae7d9e7a8c9f192e10de78b7f1f1a4b"`,
			"body": map[string]any{"Id": "143", "OwnerNr": "10065", "OwnerType": "task", "ProductNr": "4025", "ProductName": "Årsservice värmepump", "Unit": "st", "Quantity": 2, "Price": 2490}},
	}}))
	b.schema(BatchFailureSchema, (&Schema{AllOf: []*Schema{ref("Problem")},
		Description: "The answer of an atomic batch whose operation failed: that operation's status and code; nothing was written."}).
		withExample(map[string]any{
			"type": runtime.DefaultProblemBase + "/command_failed", "title": "command_failed", "status": 422,
			"detail": `operations[2] ("m1") failed, so none of the batch's 3 operations was written: product 4O25 does not exist`,
			"index":  2, "id": "m1", "notExecuted": []any{"c1", "t1"}, "requestId": "01JD7Q6V3M2K8Z",
			"problem": map[string]any{"type": runtime.DefaultProblemBase + "/command_failed", "title": "command_failed", "status": 422, "detail": "product 4O25 does not exist", "requestId": "01JD7Q6V3M2K8Z"},
		}))
	op := &Operation{OperationID: "runBatch", Summary: "Run many writes in one call", Tags: []string{"batch"},
		Description: strings.Join([]string{
			"Any valid key; each operation is authorized against the key's scopes and company as its single call is.",
			"atomic true: the first operation that fails rolls every one back, and the answer is that operation's status and problem,",
			"whose detail names it and whose members index, id, problem (its own) and notExecuted (the others) say what happened; nothing was written.",
			"atomic false: 200 with every operation's result, failures included.",
			"The Idempotency-Key makes the whole batch exactly-once: a retry replays the stored answer.",
		}, " "),
		Parameters:  []*Parameter{headerParamRef(runtime.HeaderIdempotencyKey)},
		RequestBody: jsonBody("BatchRequest"),
		Responses:   map[string]*Response{"200": successResponse(200, "Every operation's result, in order", true, ref("BatchResponse"))},
	}
	for _, st := range []int{400, 401, 403, 404, 409, 412, 413, 415, 422, 429, 500, 501, 503, 504} {
		op.Responses[strconv.Itoa(st)] = b.problemResponse(st, true)
	}
	b.operation(batch.Path, http.MethodPost, op)
}
