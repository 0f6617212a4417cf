package codegen

import (
	"encoding/json"
	"strings"

	"fieldapi/catalog"
)

// obj is a JSON object of the OpenAPI document; encoding/json sorts its
// keys, so the document is deterministic.
type obj = map[string]any

// openAPIDocument renders the OpenAPI 3.1 description of every route.
func openAPIDocument(m *Model) ([]byte, error) {
	paths := obj{}
	schemas := obj{"Problem": problemSchema()}
	for _, r := range m.Registers {
		schemas[r.RecordType] = recordSchema(r)
		if r.HasBody {
			schemas[r.WriteType] = writeSchema(r)
		}
		for _, rt := range r.Routes {
			item, _ := paths[rt.DocPath].(obj)
			if item == nil {
				item = obj{}
				paths[rt.DocPath] = item
			}
			item[strings.ToLower(rt.Method)] = operation(r, rt)
		}
	}
	for path, op := range builtinPaths() {
		paths[path] = op
	}
	doc := obj{
		"openapi": "3.1.0",
		"info": obj{
			"title":       "fieldapi: field-service integration API",
			"version":     "v1",
			"description": "REST/JSON access to the registers of a field-service engine. Records read use PascalCase names; request bodies use camelCase. Every write needs an Idempotency-Key header.",
		},
		"security": []any{obj{"bearer": []any{}}},
		"paths":    paths,
		"components": obj{
			"schemas": schemas,
			"securitySchemes": obj{
				"bearer": obj{"type": "http", "scheme": "bearer", "description": "An API key (mk_…) or an access token (mt_…) from POST /v1/token."},
			},
			"parameters": obj{
				"IdempotencyKey": obj{"name": "Idempotency-Key", "in": "header", "required": true, "schema": obj{"type": "string", "maxLength": 255}, "description": "Chosen per operation. The same key with the same content replays the first response; with other content: 409."},
			},
		},
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	return append(b, '\n'), err
}

func ref(name string) obj { return obj{"$ref": "#/components/schemas/" + name} }

func problemResponse(desc string) obj {
	return obj{"description": desc, "content": obj{"application/problem+json": obj{"schema": ref("Problem")}}}
}

func jsonResponse(desc string, schema obj) obj {
	return obj{"description": desc, "content": obj{"application/json": obj{"schema": schema}}}
}

// operation describes one route.
func operation(r *Register, rt RouteSpec) obj {
	op := obj{
		"operationId": rt.Handler,
		"summary":     rt.Summary,
		"tags":        []string{r.Name},
		"description": "Scope: " + rt.Scope + ". Declared in " + r.Source + ".",
	}
	responses := obj{
		"400": problemResponse("Malformed call"),
		"401": problemResponse("Key or token missing, wrong, revoked or expired; token_required"),
		"403": problemResponse("The key lacks the scope, or the engine's permissions refuse the signature"),
		"429": problemResponse("Too many calls; see Retry-After"),
		"503": problemResponse("Engine unreachable or busy; retry is safe"),
		"504": problemResponse("Engine timeout; retry with the same Idempotency-Key"),
	}
	var params []any
	if strings.Contains(rt.Path, ":key") {
		params = append(params, obj{"name": r.Key, "in": "path", "required": true, "schema": obj{"type": "string"}, "description": "The record's " + r.Key + ", path-escaped whole."})
		responses["404"] = problemResponse("No such record in the key's company")
	}
	switch {
	case rt.Method == "GET" && rt.Handler == r.ListFunc:
		params = append(params, listParameters(r)...)
		responses["200"] = jsonResponse("One page, newest first", obj{
			"type":     "object",
			"required": []string{"items", "nextCursor", "page", "total"},
			"properties": obj{
				"items":      obj{"type": "array", "items": ref(r.RecordType)},
				"nextCursor": obj{"type": []string{"string", "null"}},
				"page":       obj{"type": "integer"},
				"total":      obj{"type": []string{"integer", "null"}},
			},
		})
	case rt.Handler == r.ExtraFieldsFunc:
		responses["200"] = jsonResponse("Extra-field descriptions", obj{"type": "object", "properties": obj{"items": obj{"type": "array"}, "count": obj{"type": "integer"}}})
	case rt.Method == "GET":
		responses["200"] = jsonResponse("The record", ref(r.RecordType))
	default:
		params = append(params, obj{"$ref": "#/components/parameters/IdempotencyKey"})
		op["requestBody"] = obj{"required": true, "content": obj{"application/json": obj{"schema": ref(r.WriteType)}}}
		status := "200"
		if rt.Method == "POST" {
			status = "201"
		}
		responses[status] = jsonResponse("The record as written", ref(r.RecordType))
		responses["409"] = problemResponse("Idempotency-Key reused with other content, or still running")
		responses["413"] = problemResponse("Body larger than 32 MB")
		responses["422"] = problemResponse("The engine refused the call (command_failed)")
	}
	if len(params) > 0 {
		op["parameters"] = params
	}
	op["responses"] = responses
	return op
}

func listParameters(r *Register) []any {
	q := func(name, typ, desc string) obj {
		return obj{"name": name, "in": "query", "schema": obj{"type": typ}, "description": desc}
	}
	params := []any{
		q("limit", "integer", "Page size: default 50, at most 500."),
		q("page", "integer", "Page number from 1; pages can repeat rows while records are created."),
		q("cursor", "string", "nextCursor of the previous page: stable while records are created."),
		q("modifiedSince", "string", "ISO 8601 timestamp: records modified at or after it."),
		q("modifiedBefore", "string", "ISO 8601 timestamp: records modified before it."),
	}
	for _, fl := range r.Filters {
		f := r.Field(fl.Field)
		typ := jsonType(f.Type)
		desc := string(fl.Match) + " on " + fl.Field
		switch fl.Match {
		case catalog.OneOf:
			typ, desc = "string", "comma-separated values of "+fl.Field
		case catalog.Hides:
			typ, desc = "boolean", "true includes records whose "+fl.Field+" is "+strings.Join(fl.Values, " or ")
		}
		params = append(params, q(fl.Param, typ, desc))
	}
	return params
}

func jsonType(t catalog.FieldType) string {
	switch t {
	case catalog.Number:
		return "number"
	case catalog.Bool:
		return "boolean"
	case catalog.List:
		return "array"
	case catalog.Object:
		return "object"
	}
	return "string"
}

func fieldSchema(t catalog.FieldType, nullable bool) obj {
	s := obj{"type": jsonType(t)}
	switch t {
	case catalog.Date:
		// No format: "date-time" would call 2026-05-01 invalid, "date" the reverse.
		s["description"] = "ISO 8601 date or date-time, kept as sent"
	case catalog.List:
		s["items"] = obj{"type": "string"}
	case catalog.Object:
		s["additionalProperties"] = obj{"type": "string"}
	}
	if nullable && t != catalog.List && t != catalog.Object {
		s["type"] = []string{jsonType(t), "null"}
	}
	return s
}

func recordSchema(r *Register) obj {
	props := obj{"Modified": obj{"type": []string{"string", "null"}, "readOnly": true}}
	for _, f := range r.Fields {
		s := fieldSchema(f.Type, true)
		if !f.Writable {
			s["readOnly"] = true
		}
		props[f.Name] = s
	}
	if r.ExtraFields {
		props["ExtraFields"] = fieldSchema(catalog.Object, false)
	}
	return obj{"type": "object", "description": r.Description + " (" + r.Source + ")", "properties": props}
}

func writeSchema(r *Register) obj {
	props := obj{}
	for _, f := range r.BodyFields() {
		s := fieldSchema(f.Type, true)
		var notes []string
		if d, _ := s["description"].(string); d != "" {
			notes = append(notes, d)
		}
		if f.References != "" {
			notes = append(notes, "key of a record in "+f.References)
		}
		if f.CreateOnly {
			notes = append(notes, "create only")
		}
		if len(notes) > 0 {
			s["description"] = strings.Join(notes, "; ")
		}
		props[f.WriteName] = s
	}
	if r.ExtraFields {
		props["extraFields"] = fieldSchema(catalog.Object, false)
	}
	for _, l := range r.Lines {
		props[l.Name] = obj{"type": "array", "items": ref(l.Of.WriteType), "description": "lines created with the record, all or nothing (create only)"}
	}
	s := obj{"type": "object", "additionalProperties": false, "properties": props}
	if req := r.RequiredNames(); len(req) > 0 {
		s["required"] = req
	}
	return s
}

func problemSchema() obj {
	return obj{
		"type":     "object",
		"required": []string{"type", "title", "status", "detail", "requestId"},
		"properties": obj{
			"type":        obj{"type": "string"},
			"title":       obj{"type": "string", "description": "the problem code, e.g. not_found, command_failed"},
			"status":      obj{"type": "integer"},
			"detail":      obj{"type": "string"},
			"validValues": obj{"type": "array", "items": obj{"type": "string"}},
			"requestId":   obj{"type": "string"},
		},
	}
}

// builtinPaths are the routes that belong to no register.
func builtinPaths() obj {
	return obj{
		"/health": obj{"get": obj{"operationId": "health", "summary": "Engine reachability and latency", "security": []any{},
			"responses": obj{"200": obj{"description": "Engine reachable"}, "503": obj{"description": "Engine unreachable"}}}},
		"/v1/whoami": obj{"get": obj{"operationId": "whoami", "summary": "The key's integration, tenant and scopes",
			"responses": obj{"200": jsonResponse("Who the caller is", obj{"type": "object", "properties": obj{"integration": obj{"type": "string"}, "tenant": obj{"type": "string"}, "scopes": obj{"type": "array", "items": obj{"type": "string"}}}}), "401": problemResponse("Bad key")}}},
		"/v1/token": obj{"post": obj{"operationId": "token", "summary": "Exchange a key for an access token (client credentials)", "security": []any{},
			"requestBody": obj{"required": true, "content": obj{"application/json": obj{"schema": obj{"type": "object", "required": []string{"clientId", "clientSecret"}, "properties": obj{"clientId": obj{"type": "string"}, "clientSecret": obj{"type": "string"}, "grantType": obj{"type": "string", "enum": []string{"client_credentials"}}}}}}},
			"responses":   obj{"200": jsonResponse("Token", obj{"type": "object", "properties": obj{"access_token": obj{"type": "string"}, "token_type": obj{"type": "string"}, "expires_in": obj{"type": "integer"}, "scope": obj{"type": "string"}}}), "401": problemResponse("Wrong credentials")}}},
		"/v1/field-names": obj{"get": obj{"operationId": "fieldNames", "summary": "The company's labels for standard fields",
			"responses": obj{"200": jsonResponse("Labels", obj{"type": "object", "properties": obj{"items": obj{"type": "array"}}})}}},
	}
}
