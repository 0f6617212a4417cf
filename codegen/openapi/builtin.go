package openapi

import (
	"maps"
	"slices"
	"strconv"

	"fieldapi/codegen/model"
	"fieldapi/runtime"
)

// The parts of the OpenAPI document that belong to no register: the
// built-in routes runtime serves (runtime/builtin.go, documents.go,
// location.go), their schemas, and the shared headers and parameters.

// retryAfterSometimes is the component of a Retry-After sent with some of
// a status's problem codes only.
const retryAfterSometimes = "RetryAfterSometimes"

// sharedHeaders are the response headers operations refer to, by
// component name (headerComponent of the runtime.Header… name).
func sharedHeaders() map[string]*Header {
	str := func() *Schema { return &Schema{Type: types("string")} }
	h := map[string]*Header{
		runtime.HeaderRequestID: {Required: true, Schema: str(),
			Description: "Identifies the call in the service's log: the caller's " + runtime.HeaderRequestID + " when it is 1 to 64 of A-Z a-z 0-9 . _ : -, else a new one."},
		runtime.HeaderIdempotencyKey: {Schema: str(), Description: "The " + runtime.HeaderIdempotencyKey + " the write was sent with."},
		runtime.HeaderIdempotencyReplayed: {Schema: &Schema{Type: types("string"), Enum: []any{"true", "false"}},
			Description: "true when this is the stored response of an earlier call with the same " + runtime.HeaderIdempotencyKey + "."},
		runtime.HeaderRetryAfter: {Required: true, Schema: atLeast(jsonNumber[int32](""), 0),
			Description: "Seconds to wait before retrying."},
		runtime.HeaderLocation: {Required: true, Schema: str(), Description: "The path of the resource created."},
		runtime.HeaderETag: {Schema: str(), Description: "The record's version, a strong entity tag: send it as " + runtime.HeaderIfMatch + " to change the record only while it is " +
			"unchanged, or as " + runtime.HeaderIfNoneMatch + " to read it only when it has changed. A replayed write carries none."},
		runtime.HeaderCacheControl: {Schema: &Schema{Type: types("string"), Enum: []any{"no-store"}},
			Description: "no-store on every answer to a keyed call and on POST /v1/token: no cache may keep it."},
		runtime.HeaderRateLimitPolicy: {Schema: str(),
			Description: `The key's rate limit (IETF draft-ietf-httpapi-ratelimit-headers): "per-key";q=<calls a key may make at once>;w=<seconds to refill>. Sent on answers to keyed calls while a limit is set.`},
		runtime.HeaderRateLimit: {Schema: str(),
			Description: `What is left of the key's rate limit: "per-key";r=<calls left now>;t=<seconds until full again>. Sent on answers to keyed calls while a limit is set.`},
		runtime.HeaderContentDisposition: {Required: true, Schema: str(), Description: "attachment, with the document's file name."},
	}
	out := map[string]*Header{}
	for name, header := range h {
		out[headerComponent(name)] = header
	}
	out[retryAfterSometimes] = &Header{Schema: atLeast(jsonNumber[int32](""), 0),
		Description: "Seconds to wait before retrying; sent with the codes that say so (idempotency_claim_lost)."}
	return out
}

// builtins adds the built-in routes and the schemas shared by registers.
func (b *docBuilder) builtins() {
	d := b.doc
	header := func(name string, p *Parameter) {
		p.Name, p.In = name, "header"
		d.Components.Parameters[headerComponent(name)] = p
	}
	header(runtime.HeaderIdempotencyKey, &Parameter{Required: true,
		Schema:      &Schema{Type: types("string"), MinLength: ptr(1), MaxLength: ptr(255)},
		Description: "Chosen per operation. The same key with the same content replays the first response; with other content: 409."})
	header(runtime.HeaderIfMatch, &Parameter{Schema: &Schema{Type: types("string")},
		Description: `The ETag of the record (the owner, for a line or an action) as read: the write goes ahead only while the record is still at that version, else 412 precondition_failed and nothing is written. A list of tags passes when one matches; * passes for any record; weak tags (W/"…") never match.`})
	header(runtime.HeaderIfNoneMatch, &Parameter{Schema: &Schema{Type: types("string")},
		Description: "The ETag of the record the caller holds: 304 without a body while the record is still at that version."})
	d.Tags = append(d.Tags,
		Tag{Name: "service", Description: "The service itself: health, its OpenAPI document, the caller, tokens, field names."})
	for name, s := range BuiltinSchemas() {
		b.schema(name, s)
	}
	public := &[]SecurityRequirement{}
	op := func(id, summary string, write bool, body string, public *[]SecurityRequirement, ok *Response, statuses ...int) *Operation {
		o := &Operation{OperationID: id, Summary: summary, Tags: []string{"service"}, Security: public, Responses: map[string]*Response{"200": ok}}
		if body != "" {
			o.RequestBody = jsonBody(body)
		}
		for _, st := range statuses {
			o.Responses[strconv.Itoa(st)] = b.problemResponse(st, write)
		}
		return o
	}
	b.operation("/openapi.json", "GET", op("openAPI", "This OpenAPI document", false, "", public,
		&Response{Description: "The OpenAPI 3.1 document of every route", Headers: responseHeaders(false),
			Content: map[string]*MediaType{"application/json": {Schema: &Schema{Type: types("object")}}}}))
	b.operation("/docs", "GET", op("docs", "The API reference page for people", false, "", public,
		&Response{Description: "One self-contained HTML page: every register, route, field and problem code", Headers: responseHeaders(false),
			Content: map[string]*MediaType{"text/html": {Schema: &Schema{Type: types("string")}}}}))
	health := op("health", "Engine reachability and latency", false, "", public, successResponse(200, "The engine answers", false, ref("Health")))
	unavailable := successResponse(503, "The engine does not answer; route calls to another process", false, ref("Health"))
	unavailable.Headers[runtime.HeaderRetryAfter] = headerRef(runtime.HeaderRetryAfter)
	health.Responses["503"] = unavailable
	b.operation("/health", "GET", health)
	b.operation("/v1/whoami", "GET", op("whoami", "The key's integration, tenant and scopes", false, "", nil,
		successResponse(200, "Who the caller is", false, ref("Whoami")), 401, 403, 429, 500, 503, 504))
	token := op("token", "Exchange a key for an access token (client credentials)", true, "TokenRequest", public,
		successResponse(200, "An access token", false, ref("Token")), 400, 401, 403, 413, 415, 429, 500, 503, 504)
	token.Description = "No Idempotency-Key is needed. Limited per address, so keys cannot be guessed at speed."
	b.operation("/v1/token", "POST", token)
	b.batch()
	b.operation("/v1/field-names", "GET", op("fieldNames", "The company's labels for standard fields", false, "", nil,
		successResponse(200, "The labels", false, ref("FieldNameList")), 401, 403, 429, 500, 503, 504))
}

func BuiltinSchemas() map[string]*Schema {
	str := func(desc string) *Schema { return &Schema{Type: types("string"), Description: desc} }
	boolean := func(desc string) *Schema { return &Schema{Type: types("boolean"), Description: desc} }
	object := objectSchema
	list := func(desc, item string) *Schema {
		return object(desc, map[string]*Schema{"items": {Type: types("array"), Items: ref(item)}, "count": jsonNumber[int32]("How many items.")})
	}
	var codes []any
	for _, p := range runtime.ProblemCodes() {
		codes = append(codes, p.Code)
	}
	return map[string]*Schema{
		"Problem": object("An RFC 9457 problem.", map[string]*Schema{
			"type":        {Type: types("string"), Format: "uri", Description: "A URL ending in the problem code."},
			"title":       {Type: types("string"), Enum: codes, Description: "The problem code."},
			"status":      jsonNumber[int32]("The HTTP status."),
			"detail":      str("What went wrong, for a person."),
			"validValues": {Type: types("array"), Items: &Schema{Type: types("string")}, Description: "What would have been accepted, when known."},
			"requestId":   str("The X-Request-Id of the call."),
			"index":       jsonNumber[int32]("An atomic batch's failing operation: its index in operations."),
			"id":          str("An atomic batch's failing operation: its id."),
			"problem":     ref("Problem").withDescription("An atomic batch's failing operation: the problem it answered, as its single call would."),
			"notExecuted": {Type: types("array"), Items: &Schema{Type: types("string")}, Description: "An atomic batch's other operations, by id: none took effect."},
		}, "validValues", "index", "id", "problem", "notExecuted").withExample(map[string]any{
			"type": runtime.DefaultProblemBase + "/command_failed", "title": "command_failed", "status": 422,
			"detail":      `times[0]: TimeType "Resa" does not exist`,
			"validValues": []any{"Normaltid", "Resa, km/dag", "Semester"}, "requestId": "01JD7Q6V3M2K8Z",
		}),
		"Location": object("A record's position.", map[string]*Schema{
			"Latitude":  orNull(jsonNumber[float64]("null when the record has no position.")),
			"Longitude": orNull(jsonNumber[float64]("null when the record has no position.")),
			"Address":   str("The address located."),
			"Status": {Type: types("string"), Enum: []any{"Found", "Pending", "NoAddress", "AddressNotFound", "AddressInvalid", "Error"},
				Description: "Found when a position is known; Pending until located (ask with locate=true)."},
			"SourceType": str("What the position stands for, e.g. Address, CityCentre or Manual; \"\" when none."),
			"Provider":   str("The geocoder that placed it; \"\" when none."),
			"Fixed":      boolean("Pinned with PUT: geocoding never overwrites it."),
			"Ambiguous":  boolean("The geocoder found several places."),
		}).withExample(map[string]any{ // the answer to the LocationPin example
			"Latitude": 59.3326, "Longitude": 18.0649, "Address": "Drottninggatan 1, Stockholm", "Status": "Found",
			"SourceType": "Manual", "Provider": "", "Fixed": true, "Ambiguous": false,
		}),
		"LocationPin": {Type: types("object"), Description: "A fixed position.", AdditionalProperties: Never(), Required: []string{"latitude", "longitude"},
			Properties: map[string]*Schema{
				"latitude":  inRange(jsonNumber[float64](""), -90, 90),
				"longitude": inRange(jsonNumber[float64](""), -180, 180),
				"address":   str("The address the position stands for."),
			},
			Examples: []any{map[string]any{"latitude": 59.3326, "longitude": 18.0649, "address": "Drottninggatan 1, Stockholm"}}},
		"DocumentUpload": {Type: types("object"), Description: "A file to store on the record.", AdditionalProperties: Never(), Required: []string{"name", "contentBase64"},
			Properties: map[string]*Schema{
				"name":          str("A file name without directories."),
				"contentBase64": {Type: types("string"), ContentEncoding: "base64", Description: "The content, standard base64."},
			},
			Examples: []any{map[string]any{"name": "notes.txt", "contentBase64": "RmlsdGVyIGJ5dHQ="}}},
		"DocumentCreated": object("The document stored.", map[string]*Schema{
			"id":   jsonNumber[int64]("The document's Id."),
			"nr":   str("The key of the record it is stored on."),
			"name": str("Its file name."),
		}).withExample(map[string]any{"id": 7, "nr": "10053", "name": "notes.txt"}), // the answer to the DocumentUpload example
		"DocumentInfo": object("A document on a record, without its content.", map[string]*Schema{
			"Id":         jsonNumber[int64](""),
			"Name":       str("File name."),
			"DocType":    str("The file type the engine records."),
			"Kind":       {Type: types("string"), Enum: []any{"embedded", "link", "html", "other"}, Description: "embedded: uploaded; link: a path or URL fetched on download; html and other: templates rendered as PDF."},
			"IsInternal": boolean("Internal to the company."),
			"HasContent": boolean("Can be downloaded."),
			"Modified":   {Type: types("string"), Pattern: DatePattern},
		}),
		"DocumentList": list("A record's documents.", "DocumentInfo"),
		model.ChangeSchema: object("An entry of a record's change log: the engine's own log of every write (a line's write is logged on its owner too).", map[string]*Schema{
			"At": {Type: types("string"), Pattern: DatePattern, Description: "When the write was made, UTC."},
			"Action": str("What the write was, in the engine's words: create, update, status, note, add document, pin location …; " +
				"a line's write on its owner adds \" line\" (create line, update line)."),
			"Detail":   str("What changed, as the engine wrote it: the fields a create or update sent (ExtraFields.<key> for extra fields), a status move (Planned → Sent), a note's text, a line's list and key."),
			"Sign":     str("The engine signature the write was made with: the key's."),
			"ClientId": str("The client id of the key that made the write."),
			"ViaApi":   boolean("Made through the API; a change made in the engine itself is false."),
		}).withExample(changeExample()),
		model.ChangeListSchema: list("A record's change-log entries, newest first.", model.ChangeSchema).
			withExample(map[string]any{"items": []any{changeExample()}, "count": 1}),
		"ExtraFieldDef": object("An extra field the company defines.", map[string]*Schema{
			"Key":      str("The key in ExtraFields."),
			"Name":     str("The label."),
			"Category": str("Its group."),
			"Type":     str("The engine's type of the value."),
			"Writable": boolean("May be sent in extraFields."),
			"ReadOnly": boolean("Never written through the API."),
			"Computed": boolean("Computed by the engine."),
			"Options":  {Type: types("array"), Items: &Schema{Type: types("string")}, Description: "The values allowed, when the field is a choice."},
		}, "Options"),
		"ExtraFieldList": list("The extra fields of a register.", "ExtraFieldDef"),
		"FieldName": object("The company's label for a standard field.", map[string]*Schema{
			"DbFieldName":   str("The engine's field name."),
			"UserFieldName": str("The company's label."),
			"ListOnly":      boolean("Shown in lists only."),
			"Hidden":        boolean("Hidden from users."),
		}),
		"FieldNameList": object("The company's labels.", map[string]*Schema{"items": {Type: types("array"), Items: ref("FieldName")}}),
		"Health": object("Whether the engine answers.", map[string]*Schema{
			"status":    {Type: types("string"), Enum: []any{"ok", "unavailable"}},
			"engine":    {Type: types("string"), Enum: []any{"reachable", "unreachable"}},
			"latencyMs": jsonNumber[float64]("How long the engine took to answer, in milliseconds."),
		}).withExample(map[string]any{"status": "ok", "engine": "reachable", "latencyMs": 0.4}),
		"Whoami": object("The caller.", map[string]*Schema{
			"integration": str("The key's client id."),
			"tenant":      str("The company."),
			"scopes":      {Type: types("array"), Items: &Schema{Type: types("string")}, Description: "Every scope the key holds; * spelled out."},
		}).withExample(map[string]any{"integration": model.ExampleClientID, "tenant": "demo", "scopes": []any{"customers:read", "tasks:read", "tasks:write"}}),
		"TokenRequest": {Type: types("object"), Description: "Client credentials.", AdditionalProperties: Never(), Required: []string{"clientId", "clientSecret"},
			Properties: map[string]*Schema{
				"clientId":     str("The key's client id."),
				"clientSecret": str("The key (mk_…)."),
				"grantType":    {Type: types("string"), Enum: []any{"client_credentials"}},
			},
			Examples: []any{map[string]any{"clientId": model.ExampleClientID, "clientSecret": "mk_" + model.ExampleClientID + "_…", "grantType": "client_credentials"}}},
		"Token": object("An access token.", map[string]*Schema{
			"access_token": str("Send as Authorization: Bearer."),
			"token_type":   {Type: types("string"), Enum: []any{"Bearer"}},
			"expires_in":   jsonNumber[int32]("Seconds until it expires."),
			"scope":        str("The scopes, space-separated."),
		}).withExample(map[string]any{"access_token": "mt_…", "token_type": "Bearer", "expires_in": 3600, "scope": "customers:read tasks:read tasks:write"}),
	}
}

// changeExample is the entry the README's note on a task leaves.
func changeExample() map[string]any {
	return map[string]any{"At": "2026-11-22T20:24:16.498310Z", "Action": "note", "Detail": "Porten är låst, nyckel i receptionen",
		"Sign": model.ExampleSign, "ClientId": model.ExampleClientID, "ViaApi": true}
}

func removeString(xs []string, x string) []string {
	var out []string
	for _, y := range xs {
		if y != x {
			out = append(out, y)
		}
	}
	return out
}

// objectSchema is an object whose properties are all required but the
// optional ones.
func objectSchema(desc string, props map[string]*Schema, optional ...string) *Schema {
	s := &Schema{Type: types("object"), Description: desc, Properties: props, Required: slices.Sorted(maps.Keys(props))}
	for _, o := range optional {
		s.Required = removeString(s.Required, o)
	}
	return s
}

// withDescription sets the schema's description and returns it.
func (s *Schema) withDescription(desc string) *Schema {
	s.Description = desc
	return s
}

// withExample sets the schema's example and returns it.
func (s *Schema) withExample(example any) *Schema {
	s.Examples = []any{example}
	return s
}
