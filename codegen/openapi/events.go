package openapi

import (
	"net/http"
	"strconv"
	"strings"

	"fieldapi/catalog"
	"fieldapi/codegen/model"
	"fieldapi/runtime"
)

// The change feed, the webhook subscriptions (runtime/events.go,
// runtime/webhooks.go) and, in the document's webhooks section, the
// messages the service sends: one per event type the catalog names
// (catalog.EventTypes), so a register added in YAML documents its own.

// DocPath writes a route table path in OpenAPI syntax, as runtime names
// the route in its records: /v1/webhooks/:key → /v1/webhooks/{key}.
func DocPath(path string) string { return runtime.PathPattern(path) }

// events adds the feed's and the subscriptions' routes and schemas, and
// the webhooks section.
func (b *docBuilder) events(m *model.Model) {
	b.doc.Tags = append(b.doc.Tags, Tag{Name: "events", Description: "The change feed and webhook subscriptions: an event is recorded with every committed write, in its transaction."})
	var eventTypes []any
	for _, et := range m.EventTypes() {
		eventTypes = append(eventTypes, et.Name)
	}
	ex := exampleEventTypes(eventTypes)
	for name, s := range eventSchemas(eventTypes, ex) {
		b.schema(name, s)
	}
	idParam := &Parameter{Name: "key", In: "path", Required: true, Schema: &Schema{Type: types("string")}, Description: "The subscription's id (wh_…)."}
	op := func(id, summary, scope string, write bool, body string, statuses ...int) *Operation {
		o := &Operation{OperationID: id, Summary: summary, Description: "Scope: " + scope + ".", Tags: []string{"events"}, Responses: map[string]*Response{}}
		if body != "" {
			o.RequestBody = jsonBody(body)
		}
		if write {
			o.Parameters = append(o.Parameters, headerParamRef(runtime.HeaderIdempotencyKey))
			statuses = append(statuses, 409, 413, 415)
		}
		statuses = append(statuses, 400, 401, 403, 429, 500, 501, 503, 504)
		for _, st := range statuses {
			o.Responses[strconv.Itoa(st)] = b.problemResponse(st, write)
		}
		return o
	}
	ok := func(o *Operation, status int, desc string, write bool, schema *Schema) *Operation {
		o.Responses[strconv.Itoa(status)] = successResponse(status, desc, write, schema)
		return o
	}
	withID := func(o *Operation) *Operation {
		o.Parameters = append([]*Parameter{idParam}, o.Parameters...)
		o.Responses["404"] = b.problemResponse(404, o.Parameters[len(o.Parameters)-1].Ref != "")
		return o
	}

	feed := ok(op("listEvents", "The change feed: events after a cursor, oldest first", "events:read", false, "", 410), 200,
		"One page of events; poll again with nextCursor", false, ref("EventPage"))
	feed.Parameters = []*Parameter{
		{Name: "after", In: "query", Schema: &Schema{Type: types("string"), Pattern: `^\d+$`}, Description: "The nextCursor of an earlier page; omitted: from the oldest event kept."},
		{Name: "types", In: "query", Schema: &Schema{Type: types("string")}, Description: "Comma-separated event types or patterns (" + ex.pattern + ", *)."},
		{Name: "register", In: "query", Schema: &Schema{Type: types("string")}, Description: "Only events of this register."},
		{Name: "limit", In: "query", Schema: atLeast(jsonNumber[int32](""), 1), Description: "Page size: default 50, at most 500."},
	}
	feed.Description += " nextCursor is always set and never passes an event that has not committed: keep it and ask again. A cursor older than the retention (--event-retention) answers 410 cursor_expired."
	b.operation("/v1/events", http.MethodGet, feed)

	b.operation("/v1/webhooks", http.MethodGet, ok(op("listWebhooks", "The company's webhook subscriptions", "webhooks:read", false, ""), 200, "The subscriptions (without secrets)", false, ref("WebhookList")))
	create := ok(op("createWebhook", "Subscribe a URL to event types", "webhooks:write", true, "WebhookCreate", 422), 201, "The subscription, with its signing secret: shown this once", true, ref("Webhook"))
	create.Description += " A URL on a loopback, private or link-local address is refused (422) unless the operator allows them."
	b.operation("/v1/webhooks", http.MethodPost, create)
	b.operation("/v1/webhooks/{key}", http.MethodGet, withID(ok(op("getWebhook", "One subscription", "webhooks:read", false, ""), 200, "The subscription", false, ref("Webhook"))))
	b.operation("/v1/webhooks/{key}", http.MethodPatch, withID(ok(op("updateWebhook", "Change a subscription (enabling it clears disabledReason)", "webhooks:write", true, "WebhookUpdate", 422), 200, "The subscription", true, ref("Webhook"))))
	del := withID(op("deleteWebhook", "Delete a subscription and its deliveries", "webhooks:write", false, ""))
	del.Responses["204"] = &Response{Description: "Deleted", Headers: responseHeaders(false)}
	b.operation("/v1/webhooks/{key}", http.MethodDelete, del)
	b.operation("/v1/webhooks/{key}/rotate-secret", http.MethodPost, withID(ok(op("rotateWebhookSecret", "A new signing secret; the previous one keeps signing for 24 h", "webhooks:write", true, ""), 200,
		"The subscription with its new secret, shown this once", true, ref("Webhook"))))
	b.operation("/v1/webhooks/{key}/test", http.MethodPost, withID(ok(op("pingWebhook", "Queue a webhook.ping message", "webhooks:write", true, ""), 202, "The delivery queued", true, ref("Delivery"))))
	deliveries := withID(ok(op("listWebhookDeliveries", "The subscription's deliveries, newest first, with their attempts", "webhooks:read", false, ""), 200, "The deliveries", false, ref("DeliveryList")))
	deliveries.Parameters = append(deliveries.Parameters, &Parameter{Name: "limit", In: "query", Schema: atLeast(jsonNumber[int32](""), 1), Description: "At most this many: default 50, at most 500."})
	b.operation("/v1/webhooks/{key}/deliveries", http.MethodGet, deliveries)
	retry := withID(ok(op("retryWebhookDelivery", "Send a delivery again now", "webhooks:write", true, ""), 202, "The delivery, queued again", true, ref("Delivery")))
	retry.Parameters = append(retry.Parameters, &Parameter{Name: "delivery", In: "path", Required: true, Schema: &Schema{Type: types("string")}, Description: "The delivery's id."})
	b.operation("/v1/webhooks/{key}/deliveries/{delivery}/retry", http.MethodPost, retry)

	b.webhooks(m)
}

// webhooks is the document's webhooks section: for each event type, the
// POST a subscriber receives.
func (b *docBuilder) webhooks(m *model.Model) {
	b.doc.Webhooks = map[string]*PathItem{}
	for _, r := range m.Registers {
		for _, et := range r.EventTypes() {
			b.doc.Webhooks[et.Name] = &PathItem{Post: webhookOperation(et.Name, et.Description, eventDataSchema(m, r, et.Name))}
		}
	}
	b.doc.Webhooks["webhook.ping"] = &PathItem{Post: webhookOperation("webhook.ping", "Sent by POST /v1/webhooks/{id}/test.",
		&Schema{Type: types("object"), Properties: map[string]*Schema{"id": {Type: types("string")}, "type": {Type: types("string"), Enum: []any{"webhook.ping"}},
			"occurredAt": {Type: types("string")}, "company": {Type: types("string")}, "webhookId": {Type: types("string")}}})}
}

// webhookOperation is one message a subscriber receives: the event as the
// feed lists it, signed per Standard Webhooks.
func webhookOperation(eventType, description string, body *Schema) *Operation {
	header := func(name, desc string) *Parameter {
		return &Parameter{Name: name, In: "header", Required: true, Schema: &Schema{Type: types("string")}, Description: desc}
	}
	return &Operation{
		OperationID: "webhook_" + strings.NewReplacer(".", "_").Replace(eventType),
		Summary:     eventType,
		Description: description + " Delivered at least once (duplicates carry the same " + runtime.HeaderWebhookID + ") to subscriptions matching " + eventType + "; answer 2xx within 10 s. Failures are retried with backoff for about 3 days.",
		Tags:        []string{"events"},
		Parameters: []*Parameter{
			header(runtime.HeaderWebhookID, "The event id: the same on every attempt, to drop duplicates."),
			header(runtime.HeaderWebhookTimestamp, "Unix seconds when this attempt was signed; refuse old ones (5 minutes)."),
			header(runtime.HeaderWebhookSignature, "v1,<base64 HMAC-SHA256 of id.timestamp.body, keyed with the secret after whsec_>; several, space separated, while a rotated secret is still valid."),
		},
		RequestBody: &RequestBody{Required: true, Content: map[string]*MediaType{"application/json": {Schema: body}}},
		Responses:   map[string]*Response{"2XX": {Description: "Received; anything else (or no answer in time) is retried"}},
	}
}

// eventDataSchema is the event of a type with its data described: the
// record as read after the change (a line for line_added, the position
// for location_changed, the document for document_added).
func eventDataSchema(m *model.Model, r *model.Register, eventType string) *Schema {
	data := ref(r.RecordType)
	what := strings.TrimPrefix(eventType, r.EventPrefix()+".")
	switch what {
	case catalog.EventLocationChanged:
		data = ref("Location")
	case catalog.EventDocumentAdded:
		data = &Schema{Type: types("object"), Description: "The document stored: Id, Nr (the record's key) and Name."}
	}
	for _, l := range r.Lines {
		if l.LineEvent() == what {
			for _, lr := range m.Registers {
				if lr.Name == l.Register {
					data = ref(lr.RecordType)
				}
			}
		}
	}
	return &Schema{AllOf: []*Schema{ref("Event"), {Type: types("object"), Properties: map[string]*Schema{
		"type": {Type: types("string"), Enum: []any{eventType}},
		"data": data,
	}}}}
}

// eventExamples are event types and a pattern taken from the catalog, for
// descriptions and examples, so that these never name a record the
// catalog does not have.
type eventExamples struct {
	first   string // the first event type, such as customer.created
	pattern string // its record's prefix pattern, such as customer.*
	other   string // the last event type, usually of another record
}

// exampleEventTypes picks the examples from the catalog's event types, in
// catalog order; a catalog without events gets placeholders.
func exampleEventTypes(eventTypes []any) eventExamples {
	if len(eventTypes) == 0 {
		return eventExamples{first: "<record>.created", pattern: "<record>.*", other: "<record>.updated"}
	}
	first, _ := eventTypes[0].(string)
	other, _ := eventTypes[len(eventTypes)-1].(string)
	record, _, _ := strings.Cut(first, ".")
	return eventExamples{first: first, pattern: record + ".*", other: other}
}

// eventSchemas are the schemas of the feed and the subscriptions.
func eventSchemas(eventTypes []any, ex eventExamples) map[string]*Schema {
	str := func(desc string) *Schema { return &Schema{Type: types("string"), Description: desc} }
	object := objectSchema
	patterns := &Schema{Type: types("array"), Items: &Schema{Type: types("string")}, MinItems: ptr(1),
		Description: "Event types (" + ex.first + "), prefix patterns (" + ex.pattern + ") or * for all."}
	return map[string]*Schema{
		"Event": object("One recorded change, as the feed lists it and a webhook delivers it.", map[string]*Schema{
			"id":            str("evt_…: unique; the webhook-id of its deliveries."),
			"position":      jsonNumber[int64]("The company's feed position: gap-free, in commit order."),
			"type":          {Type: types("string"), Enum: eventTypes, Description: "<record>.<what happened>, named from the catalog."},
			"occurredAt":    {Type: types("string"), Pattern: DatePattern, Description: "When the write ran (UTC)."},
			"company":       str("The company written."),
			"register":      str("The register of the record."),
			"key":           str("The record's key (for line_added: the owner's)."),
			"actor":         object("Who wrote.", map[string]*Schema{"clientId": str("The key's client id."), "sign": str("The engine signature.")}),
			"changedFields": {Type: types("array"), Items: &Schema{Type: types("string")}, Description: "The fields the write sent (ExtraFields.<key> for extra fields; line lists by name)."},
			"data":          {Type: types("object"), Description: "The record as read after the change (for line_added the line, for location_changed the position)."},
		}),
		"EventPage": object("One page of the feed.", map[string]*Schema{
			"items":      {Type: types("array"), Items: ref("Event")},
			"nextCursor": str("Pass as after to continue; never null."),
		}),
		"Webhook": object("A webhook subscription.", map[string]*Schema{
			"id":                    str("wh_…"),
			"url":                   str("Where messages are POSTed."),
			"eventTypes":            patterns,
			"description":           str("For people."),
			"enabled":               {Type: types("boolean"), Description: "false: nothing is sent."},
			"disabledReason":        str("Why the service disabled it (deliveries failed for days); \"\" otherwise."),
			"created":               {Type: types("string"), Pattern: DatePattern},
			"modified":              {Type: types("string"), Pattern: DatePattern},
			"secret":                str("whsec_…: only in the answer that creates or rotates it."),
			"previousSecretExpires": {Type: types("string"), Pattern: DatePattern, Description: "After a rotation: until then the previous secret signs too."},
		}, "secret", "previousSecretExpires"),
		"WebhookList": object("The company's subscriptions.", map[string]*Schema{"items": {Type: types("array"), Items: ref("Webhook")}}),
		"WebhookCreate": {Type: types("object"), Description: "A new subscription.", AdditionalProperties: Never(), Required: []string{"url", "eventTypes"},
			Properties: map[string]*Schema{
				"url":         {Type: types("string"), Format: "uri", Description: "An absolute http(s) URL."},
				"eventTypes":  patterns,
				"description": {Type: types("string"), MaxLength: ptr(500)},
				"enabled":     {Type: types("boolean"), Description: "Default true."},
			},
			Examples: []any{map[string]any{"url": "https://example.com/fieldapi/hooks", "eventTypes": []string{ex.pattern, ex.other}, "description": "dispatch board"}}},
		"WebhookUpdate": {Type: types("object"), Description: "A change of a subscription: absent or null fields are left.", AdditionalProperties: Never(),
			Properties: map[string]*Schema{
				"url":         {Type: types("string", "null"), Format: "uri"},
				"eventTypes":  {Type: types("array", "null"), Items: &Schema{Type: types("string")}, MinItems: ptr(1)},
				"description": {Type: types("string", "null"), MaxLength: ptr(500)},
				"enabled":     {Type: types("boolean", "null")},
			}},
		"Attempt": object("One try of a delivery.", map[string]*Schema{
			"at":         {Type: types("string"), Pattern: DatePattern},
			"statusCode": jsonNumber[int32]("The receiver's status; 0 when none came."),
			"latencyMs":  jsonNumber[float64]("How long the receiver took to answer, in milliseconds."),
			"error":      str("\"\" on success."),
		}),
		"Delivery": object("One message to one subscription.", map[string]*Schema{
			"id":            jsonNumber[int64](""),
			"webhookId":     str("The subscription."),
			"messageId":     str("The webhook-id header: the event's id."),
			"eventType":     str("The event's type, or webhook.ping."),
			"state":         {Type: types("string"), Enum: []any{"pending", "succeeded", "failed"}},
			"attempts":      {Type: types("array"), Items: ref("Attempt")},
			"nextAttemptAt": {Type: types("string", "null"), Description: "When pending: the next attempt."},
			"created":       {Type: types("string"), Pattern: DatePattern},
		}),
		"DeliveryList": object("A subscription's deliveries.", map[string]*Schema{"items": {Type: types("array"), Items: ref("Delivery")}}),
	}
}
