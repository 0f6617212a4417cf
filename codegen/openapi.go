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
		if r.Body != nil {
			schemas[r.WriteType] = bodySchema(r.Body, r.RequiredNames())
		}
		for _, a := range r.Actions {
			var required []string
			for _, f := range a.Body.Fields {
				if f.Required {
					required = append(required, f.WriteName)
				}
			}
			schemas[a.Body.Type] = bodySchema(a.Body, required)
		}
		for _, rp := range r.replies() {
			schemas[rp.Type] = replySchema(rp)
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
		"servers": []any{obj{
			"url":         "{baseUrl}",
			"description": "where the operator runs fieldapi serve",
			"variables":   obj{"baseUrl": obj{"default": "http://127.0.0.1:8080"}},
		}},
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
	if rt.Kind == KindGetDocument {
		params = append(params, obj{"name": "id", "in": "path", "required": true, "schema": obj{"type": "integer"}})
	}
	if rt.Method != "GET" {
		params = append(params, obj{"$ref": "#/components/parameters/IdempotencyKey"})
		responses["409"] = problemResponse("Idempotency-Key reused with other content, or still running")
		responses["413"] = problemResponse("Body larger than 32 MB")
		responses["422"] = problemResponse("The engine refused the call (command_failed)")
	}
	if rt.Request != "" {
		op["requestBody"] = obj{"required": true, "content": obj{"application/json": obj{"schema": ref(rt.Request)}}}
	}
	switch rt.Kind {
	case KindList:
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
	case KindExtraFields, KindListDocuments:
		responses["200"] = jsonResponse("The descriptions", obj{"type": "object", "properties": obj{"items": obj{"type": "array"}, "count": obj{"type": "integer"}}})
	case KindGet, KindUpdate, KindAction:
		responses["200"] = jsonResponse("The record", ref(rt.Reply))
	case KindCreate, KindAddLine:
		responses["201"] = jsonResponse("As written", ref(rt.Reply))
	case KindGetLocation:
		params = append(params,
			obj{"name": "locate", "in": "query", "schema": obj{"type": "boolean"}, "description": "recalculate the position first"},
			obj{"name": "force", "in": "query", "schema": obj{"type": "boolean"}, "description": "recalculate even when a position exists"})
		responses["200"] = jsonResponse("The stored position", locationSchema())
	case KindPinLocation:
		op["requestBody"] = obj{"required": true, "content": obj{"application/json": obj{"schema": obj{"type": "object", "additionalProperties": false, "required": []string{"latitude", "longitude"},
			"properties": obj{"latitude": obj{"type": "number"}, "longitude": obj{"type": "number"}, "address": obj{"type": "string"}}}}}}
		responses["200"] = jsonResponse("The pinned position", locationSchema())
	case KindAddDocument:
		op["requestBody"] = obj{"required": true, "content": obj{"application/json": obj{"schema": obj{"type": "object", "additionalProperties": false, "required": []string{"name", "contentBase64"},
			"properties": obj{"name": obj{"type": "string"}, "contentBase64": obj{"type": "string", "contentEncoding": "base64"}}}}}}
		responses["201"] = jsonResponse("The stored document", obj{"type": "object", "properties": obj{"id": obj{"type": "integer"}, "nr": obj{"type": "string"}, "name": obj{"type": "string"}}})
	case KindGetDocument:
		responses["200"] = obj{"description": "The file; Content-Type sniffed from the content, Content-Disposition attachment", "content": obj{"application/octet-stream": obj{"schema": obj{"type": "string", "format": "binary"}}}}
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
	for _, l := range r.ReadLines {
		props[l.ReadName] = obj{"type": "array", "items": ref(l.Of.RecordType)}
	}
	if r.ExtraFields {
		props["ExtraFields"] = fieldSchema(catalog.Object, false)
	}
	return obj{"type": "object", "description": r.Description + " (" + r.Source + ")", "properties": props}
}

func bodySchema(b *Body, required []string) obj {
	props := obj{}
	for _, f := range b.Fields {
		s := fieldSchema(f.Type, true)
		var notes []string
		if f.CreateOnly {
			notes = append(notes, "create only")
		}
		if f.References != "" {
			notes = append(notes, "key of a record in "+f.References)
		}
		if f.Description != "" {
			notes = append(notes, f.Description)
		}
		if len(notes) > 0 {
			s["description"] = strings.Join(notes, "; ")
		}
		props[f.WriteName] = s
	}
	if b.ExtraFields {
		props["extraFields"] = fieldSchema(catalog.Object, false)
	}
	for _, l := range b.Lines {
		props[l.Name] = obj{"type": "array", "items": ref(l.Of.WriteType), "description": "lines created with the record, all or nothing (create only)"}
	}
	s := obj{"type": "object", "additionalProperties": false, "properties": props}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

// replies are the reply types of a register.
func (r *Register) replies() []*Reply {
	var out []*Reply
	if r.CreateReply != nil {
		out = append(out, r.CreateReply)
	}
	for _, l := range r.Lines {
		if l.Reply != nil {
			out = append(out, l.Reply)
		}
	}
	return out
}

func replySchema(rp *Reply) obj {
	props := obj{}
	for _, f := range rp.Fields {
		props[f.WriteName] = fieldSchema(f.Type, true)
	}
	for _, rl := range rp.Lines {
		items := obj{}
		for _, f := range rl.Fields {
			items[f.WriteName] = fieldSchema(f.Type, true)
		}
		props[rl.Name] = obj{"type": "array", "items": obj{"type": "object", "properties": items}}
	}
	return obj{"type": "object", "properties": props}
}

func locationSchema() obj {
	return obj{"type": "object", "properties": obj{
		"Latitude": obj{"type": []string{"number", "null"}}, "Longitude": obj{"type": []string{"number", "null"}},
		"Address": obj{"type": "string"}, "Status": obj{"type": "string"}, "SourceType": obj{"type": "string"},
		"Provider": obj{"type": "string"}, "Fixed": obj{"type": "boolean"}, "Ambiguous": obj{"type": "boolean"},
	}}
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
