// Package openapi builds the OpenAPI 3.1 document of the service from the
// model (NewDocument) and renders it as openapi.json (Marshal): every
// register's schemas by intent and its routes with every status they can
// answer, the built-in routes runtime serves, the change feed, the webhook
// subscriptions and the webhooks section. The reference page reads the
// same document.
package openapi

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"fieldapi/catalog"
	"fieldapi/codegen/model"
	"fieldapi/runtime"
)

// DatePattern is what a date field accepts and returns (spec 2.1): an ISO
// 8601 date or date-time, with or without a zone, kept as sent. It is the
// pattern runtime.ValidDate checks; TestDatePatternMatchesRuntime keeps the
// two equal. (format: date or date-time would each refuse the other form,
// and date-time requires a zone the server does not.)
const DatePattern = `^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})?)?$`

// ClearableDatePattern is DatePattern or "": a request clears a date with "".
const ClearableDatePattern = `^$|` + DatePattern

// openAPIDocument renders the OpenAPI 3.1 description of every route.
func openAPIDocument(m *model.Model) ([]byte, error) {
	doc, err := NewDocument(m)
	if err != nil {
		return nil, err
	}
	return Marshal(doc)
}

// marshalDocument renders a document as indented JSON.
func Marshal(doc *Document) ([]byte, error) {
	b, err := json.MarshalIndent(doc, "", "  ")
	return append(b, '\n'), err
}

// NewDocument builds the OpenAPI document of the model: one schema per
// intent of every register (read, create, update, nested line, page,
// action body, reply), every route with every status it can answer, and
// the built-in routes. It fails when two schemas would share a name.
func NewDocument(m *model.Model) (*Document, error) {
	b := &docBuilder{doc: &Document{
		OpenAPI: "3.1.0",
		Info: Info{
			Title:   "fieldapi: field-service integration API",
			Version: "v1",
			Description: "REST/JSON access to the registers of a field-service engine. Records are read with PascalCase names; " +
				"request bodies use camelCase. Every write needs an Idempotency-Key header: the same key with the same content " +
				"replays the first response. A path served without the method called answers 405 method_not_allowed with an Allow header. " +
				"Failures are RFC 9457 problems whose title is one of the codes listed in the Problem schema.",
			// No invented addresses: whoever runs the service answers for it,
			// and OpenAPI 3.1 lets an SPDX identifier stand for a licence URL.
			Contact: &Contact{Name: "The operator of this fieldapi installation"},
			License: &License{Name: "Proprietary", Identifier: "LicenseRef-Proprietary"},
		},
		Servers: []Server{{
			URL:         "{baseUrl}",
			Description: "where the operator runs fieldapi serve",
			Variables:   map[string]ServerVariable{"baseUrl": {Default: "http://127.0.0.1:8080", Description: "scheme, host and port of the service"}},
		}},
		Security: []SecurityRequirement{{"bearer": {}}},
		Paths:    map[string]*PathItem{},
		Components: Components{
			Schemas:    map[string]*Schema{},
			Responses:  map[string]*Response{},
			Parameters: map[string]*Parameter{},
			Headers:    sharedHeaders(),
			SecuritySchemes: map[string]*SecurityScheme{
				"bearer": {Type: "http", Scheme: "bearer", Description: "An API key (mk_…) or an access token (mt_…) from POST /v1/token."},
			},
		},
	}}
	b.builtins()
	for _, r := range m.Registers {
		b.register(r)
	}
	b.events(m)
	b.errs = append(b.errs, checkTypes(b.doc)...)
	if len(b.errs) > 0 {
		return nil, fmt.Errorf("openapi: %s", strings.Join(b.errs, "; "))
	}
	return b.doc, nil
}

// docBuilder collects the document; errs are schema name collisions.
type docBuilder struct {
	doc  *Document
	errs []string
}

func (b *docBuilder) schema(name string, s *Schema) {
	if _, taken := b.doc.Components.Schemas[name]; taken {
		b.errs = append(b.errs, "schema "+name+" is declared twice")
	}
	b.doc.Components.Schemas[name] = s
}

// operation adds op under path and method; a GET also gets its HEAD.
func (b *docBuilder) operation(path, method string, op *Operation) {
	item := b.doc.Paths[path]
	if item == nil {
		item = &PathItem{}
		b.doc.Paths[path] = item
	}
	item.Set(method, op)
	if method == http.MethodGet {
		item.Set(http.MethodHead, b.headOf(op))
	}
}

// headOf is the HEAD of a GET operation: the server answers every GET
// route to HEAD with the GET's status and headers and no body.
func (b *docBuilder) headOf(get *Operation) *Operation {
	head := *get
	head.OperationID = "head" + strings.ToUpper(get.OperationID[:1]) + get.OperationID[1:]
	head.Summary = get.Summary + " (headers only)"
	head.Description = strings.TrimSpace("HEAD: the status and headers the GET answers, without a body. " + get.Description)
	head.Responses = map[string]*Response{}
	for status, r := range get.Responses {
		if name, shared := strings.CutPrefix(r.Ref, "#/components/responses/"); shared {
			r = b.doc.Components.Responses[name]
		}
		head.Responses[status] = &Response{Description: r.Description, Headers: r.Headers}
	}
	return &head
}

// schemasRef starts a $ref to a schema component; RefName strips it again.
const schemasRef = "#/components/schemas/"

// RefName is the component a $ref points to.
func RefName(ref string) string { return strings.TrimPrefix(ref, schemasRef) }

// ref is a reference to the schema component name.
func ref(name string) *Schema { return &Schema{Ref: schemasRef + name} }

// paramRef is a reference to the parameter component name.
func paramRef(name string) *Parameter { return &Parameter{Ref: "#/components/parameters/" + name} }

func types(t ...string) Types { return Types(t) }

func ptr[T any](v T) *T { return &v }

// atLeast sets a number schema's minimum and returns it; inRange sets
// its minimum and maximum.
func atLeast(s *Schema, min float64) *Schema {
	s.Minimum = ptr(min)
	return s
}

func inRange(s *Schema, min, max float64) *Schema {
	s.Minimum, s.Maximum = ptr(min), ptr(max)
	return s
}

// register adds a register's tag, schemas and routes.
func (b *docBuilder) register(r *model.Register) {
	b.doc.Tags = append(b.doc.Tags, Tag{Name: r.Name, Description: r.Description + " (" + r.Source + ")"})
	b.schema(r.RecordType, readSchema(r))
	b.schema(r.PageSchema, pageSchema(r))
	if r.Has(catalog.Create) {
		b.schema(r.CreateSchema, createSchema(r))
	}
	if r.Has(catalog.Update) {
		b.schema(r.UpdateSchema, updateSchema(r))
	}
	if r.Upserts() {
		b.schema(r.UpsertSchema, upsertSchema(r))
	}
	for _, l := range r.Lines {
		b.schema(l.Schema, itemSchema(l))
	}
	for _, a := range r.Actions {
		b.schema(a.Body.Type, actionSchema(r, a))
	}
	for _, rp := range r.Replies() {
		b.schema(rp.Type, replySchema(rp))
		for _, rl := range rp.Lines {
			b.schema(rl.ItemType, replyLineSchema(rl))
		}
	}
	for _, rt := range r.Routes {
		b.operation(rt.DocPath, rt.Method, b.routeOperation(r, rt))
	}
}

// fieldSchema is the schema of one field's value; nullable admits null
// too (orNull).
func fieldSchema(f *catalog.Field, nullable bool) *Schema {
	s := valueSchema(f)
	if nullable {
		s = orNull(s)
	}
	return s
}

// valueSchema is the schema of a field's values other than null: an enum
// field lists the catalog's values.
func valueSchema(f *catalog.Field) *Schema {
	s := &Schema{}
	switch f.Type {
	case catalog.Number:
		s = jsonNumber[float64]("")
	case catalog.Bool:
		s.Type = types("boolean")
	case catalog.Date:
		s.Type, s.Pattern = types("string"), DatePattern
	case catalog.List:
		s.Type, s.Items = types("array"), &Schema{Type: types("string")}
	case catalog.Object:
		s.Type, s.AdditionalProperties = types("object"), &Schema{Type: types("string")}
	default:
		s.Type = types("string")
	}
	for _, v := range f.Enum {
		s.Enum = append(s.Enum, v)
	}
	return s
}

// readNullable reports whether the server can read a field as null: never
// a field that is never null (Field.NeverNull), a list or an object.
func readNullable(f *model.Field) bool {
	return !f.NeverNull && f.Type != catalog.List && f.Type != catalog.Object
}

func fieldNotes(f *catalog.Field) string {
	var notes []string
	if f.Description != "" {
		notes = append(notes, f.Description)
	}
	if f.LookupKey {
		notes = append(notes, "A lookup key: unique in the company (409 already_exists); /by-"+f.WriteName+"/{"+f.WriteName+"} addresses the record by it.")
	}
	if f.References != "" && f.ReferencesBy != "" {
		notes = append(notes, f.ReferencesBy+" of a record in "+f.References+" (a lookup key).")
	} else if f.References != "" {
		notes = append(notes, "Key of a record in "+f.References+".")
	}
	if f.Lookup != "" {
		notes = append(notes, "Copied from "+f.Lookup+".")
	}
	return strings.Join(notes, " ")
}

// readSchema is the record as read: every property is present unless
// fields= leaves it out (only the key is required), and the expansions
// asked are added (shapeReadSchema). It is only ever a response, so no property is marked readOnly (client
// generators would make such a property optional); the Create and Update
// schemas say what may be written.
func readSchema(r *model.Register) *Schema {
	s := &Schema{
		Type:        types("object"),
		Description: r.Description + " The record as read (" + r.Source + ").",
		Properties:  map[string]*Schema{},
	}
	for _, f := range r.Fields {
		p := fieldSchema(f.Field, readNullable(f))
		p.Description = fieldNotes(f.Field)
		s.Properties[f.Name] = p
		s.Required = append(s.Required, f.Name)
	}
	s.Properties["Modified"] = &Schema{Type: types("string"), Pattern: DatePattern, Description: "When the record last changed."}
	s.Required = append(s.Required, "Modified")
	if r.ExtraFields {
		s.Properties["ExtraFields"] = &Schema{Type: types("object"), AdditionalProperties: &Schema{Type: types("string")},
			Description: "The company's own fields: every defined key, values as strings (GET " + r.CollectionPath + "/extra-fields describes them)."}
		s.Required = append(s.Required, "ExtraFields")
	}
	for _, l := range r.ReadLines {
		s.Properties[l.ReadName] = &Schema{Type: types("array"), Items: ref(l.Of.RecordType), Description: "The record's " + l.Name + " lines."}
		s.Required = append(s.Required, l.ReadName)
	}
	shapeReadSchema(r, s)
	if ex := r.ReadExample(); ex != nil {
		s.Examples = []any{ex}
	}
	return s
}

func pageSchema(r *model.Register) *Schema {
	total := orNull(jsonNumber[int64]("Records matching the filters; null when the register is not counted or on a later cursor page."))
	return &Schema{
		Type:        types("object"),
		Description: "One page of " + r.Name + ", newest first.",
		Required:    []string{"items", "nextCursor", "page", "total"},
		Properties: map[string]*Schema{
			"items":      {Type: types("array"), Items: ref(r.RecordType)},
			"nextCursor": {Type: types("string", "null"), Description: "Pass as cursor for the next page; null on the last page."},
			"page":       jsonNumber[int32]("The page number; 0 when paging by cursor."),
			"total":      total,
			"totalEstimated": {Type: types("boolean"),
				Description: "Present and true when total is the database's estimate (count=estimated); absent otherwise."},
		},
	}
}

// writeProperty is one field of a request body: null and "" are part of
// every field's contract (leave, clear), so both are admitted where the
// field's schema stays a single type: "" on a text, date or enum field.
// A number or bool field also takes "" (documented in prose): a schema of
// two non-null types would turn into an untyped value in most client
// generators, and lose what the field is. A field that is never null
// admits no "" (Field.Clearable), so what a body may clear is what a read
// may answer null.
func writeProperty(f *model.Field, required bool) *Schema {
	p := valueSchema(f.Field)
	desc := fieldNotes(f.Field)
	switch {
	case !f.Clearable():
		desc = strings.TrimSpace(desc + ` Always has a value: "" is refused.`)
	case f.Type == catalog.Date:
		p.Pattern = ClearableDatePattern
	case p.Enum != nil:
		p.Enum = append(p.Enum, "")
	}
	if !required {
		p = orNull(p)
	}
	p.Description = desc
	return p
}

// bodyObject is a closed object of the given fields; a required field
// must carry a value, so it admits no null.
func bodyObject(desc string, fields []*model.Field, required []string) *Schema {
	s := &Schema{Type: types("object"), Description: desc, AdditionalProperties: Never(), Properties: map[string]*Schema{}, Required: required}
	for _, f := range fields {
		s.Properties[f.WriteName] = writeProperty(f, slices.Contains(required, f.WriteName))
	}
	return s
}

const leaveClear = ` A field sent as null, or omitted, is left as it is; "" clears it: a text to "", a list to [], any other field (an enum, date, number, bool) to null, and a field that always has a value refuses it.`

func createSchema(r *model.Register) *Schema {
	s := bodyObject("The body of POST "+r.CollectionPath+"."+leaveClear, r.BodyFields(), r.RequiredNames())
	if r.ExtraFields {
		s.Properties["extraFields"] = extraFieldsProperty()
	}
	for _, l := range r.Lines {
		s.Properties[l.Name] = &Schema{Type: types("array"), Items: ref(l.Schema),
			Description: "Lines created with the record, all or nothing."}
	}
	if ex := r.CreateExample(); ex != nil {
		s.Examples = []any{ex}
	}
	return s
}

func updateSchema(r *model.Register) *Schema {
	var fields []*model.Field
	for _, f := range r.BodyFields() {
		if !f.CreateOnly {
			fields = append(fields, f)
		}
	}
	s := bodyObject("The body of PATCH "+r.ItemDocPath+": only the fields sent are written."+leaveClear+
		" Create-only and read-only fields are refused (400 read_only_field).", fields, nil)
	if r.ExtraFields {
		s.Properties["extraFields"] = extraFieldsProperty()
	}
	if ex := r.UpdateExample(); ex != nil && len(ex) > 0 {
		s.Examples = []any{ex}
	}
	return s
}

// upsertSchema is the body of PUT: what a create takes, nothing required
// (a PUT that finds the record updates it).
func upsertSchema(r *model.Register) *Schema {
	s := createSchema(r)
	s.Required = nil
	for _, name := range r.RequiredNames() {
		s.Properties[name] = orNull(s.Properties[name])
	}
	var keys []string
	if r.UpsertFunc != "" {
		keys = append(keys, "PUT "+r.ItemDocPath)
	}
	for _, lk := range r.Lookups {
		if lk.UpsertFunc != "" {
			keys = append(keys, "PUT "+lk.DocPath)
		}
	}
	s.Description = "The body of " + strings.Join(keys, " and ") + ". When no record has the path's key, the record is created with it as POST " + r.CollectionPath +
		" creates one (its required fields, lines and defaults); when one has it, the fields sent change as with PATCH (create-only fields and lines are refused, " +
		"a value equal to the stored one is no change). The key may be sent, equal to the path's." + leaveClear
	return s
}

func extraFieldsProperty() *Schema {
	return &Schema{Type: types("object"), AdditionalProperties: &Schema{Type: types("string")},
		Description: "Extra-field values by key, as strings; \"\" clears one."}
}

// itemSchema is one line of a line list: nested in the owner's create, or
// posted alone to the owner's line path. The owner sets the parent key and
// the fixed fields, so they are not part of it.
func itemSchema(l *model.Line) *Schema {
	names := l.LineNames()
	var fields []*model.Field
	for _, f := range l.Of.BodyFields() {
		if slices.Contains(names, f.WriteName) {
			fields = append(fields, f)
		}
	}
	desc := "One line of " + l.Name + " (a record of " + l.Of.Name + "), nested in the owner's create"
	if l.Post {
		desc += " or posted to " + l.DocPath
	}
	set := []string{catalog.WriteName(l.Parent)}
	for _, name := range slices.Sorted(maps.Keys(l.Set)) {
		set = append(set, catalog.WriteName(name)+" ("+l.Set[name]+")")
	}
	s := bodyObject(desc+"; the owner sets "+strings.Join(set, ", ")+"."+leaveClear, fields, l.LineRequired())
	if l.Of.ExtraFields {
		s.Properties["extraFields"] = extraFieldsProperty()
	}
	if ex := l.ItemExample(); ex != nil {
		s.Examples = []any{ex}
	}
	return s
}

func actionSchema(r *model.Register, a *model.Action) *Schema {
	s := &Schema{Type: types("object"), Description: "The body of POST " + a.DocPath + ". " + a.Description,
		AdditionalProperties: Never(), Properties: map[string]*Schema{}}
	for _, f := range a.Body.Fields {
		p := fieldSchema(f.Field, false)
		p.Description = fieldNotes(f.Field)
		s.Properties[f.WriteName] = p
		if f.Required {
			s.Required = append(s.Required, f.WriteName)
		}
	}
	if ex := r.ActionExample(a); ex != nil {
		s.Examples = []any{ex}
	}
	return s
}

// replyProperties are camelCase copies of record fields, always present.
func replyProperties(fields []*model.Field) (map[string]*Schema, []string) {
	props := map[string]*Schema{}
	var required []string
	for _, f := range fields {
		props[f.WriteName] = fieldSchema(f.Field, readNullable(f))
		required = append(required, f.WriteName)
	}
	return props, required
}

func replySchema(rp *model.Reply) *Schema {
	props, required := replyProperties(rp.Fields)
	for _, rl := range rp.Lines {
		props[rl.Name] = &Schema{Type: types("array"), Items: ref(rl.ItemType)}
		required = append(required, rl.Name)
	}
	s := &Schema{Type: types("object"), Description: strings.TrimSpace(rp.Type + " " + rp.Doc), Properties: props, Required: required}
	if ex := rp.Example(); ex != nil {
		s.Examples = []any{ex}
	}
	return s
}

func replyLineSchema(rl *model.ReplyLine) *Schema {
	props, required := replyProperties(rl.Fields)
	return &Schema{Type: types("object"), Description: "One of the " + rl.Name + " lines created.", Properties: props, Required: required}
}

// routeOperation describes one route of a register.
func (b *docBuilder) routeOperation(r *model.Register, rt model.RouteSpec) *Operation {
	op := &Operation{
		OperationID: rt.Handler,
		Summary:     rt.Summary,
		Tags:        []string{r.Name},
		Description: "Scope: " + rt.Scope + ". Declared in " + r.Source + ".",
		Responses:   map[string]*Response{},
	}
	write := rt.Method != http.MethodGet
	// 422: the engine refuses writes, and also reads it cannot serve (a
	// filter value it does not know, a link document it cannot fetch).
	statuses := []int{400, 401, 403, 422, 429, 500, 503, 504}
	if strings.Contains(rt.Path, ":key") {
		name := model.KeyDocName(rt.DocPath)
		param := &Parameter{Name: name, In: "path", Required: true, Schema: &Schema{Type: types("string")},
			Description: "The record's " + name + ", path-escaped whole."}
		if rt.Kind == model.KindUpsert || rt.Kind == model.KindGetBy {
			param.Schema.MinLength = ptr(1)
			param.Schema.MaxLength = ptr(runtime.MaxKeyLength)
			param.Description += " Not empty, at most " + strconv.Itoa(runtime.MaxKeyLength) + " characters, no control characters, no space at either end (else 400 invalid_parameter naming it)."
		}
		op.Parameters = append(op.Parameters, param)
		if rt.Kind != model.KindUpsert { // a PUT that finds no record creates it
			statuses = append(statuses, 404)
		}
	}
	if write {
		op.Parameters = append(op.Parameters, headerParamRef(runtime.HeaderIdempotencyKey))
		statuses = append(statuses, 409, 413, 415)
	}
	switch rt.Kind {
	case model.KindAddLine, model.KindAction, model.KindGetLocation, model.KindPinLocation, model.KindAddDocument, model.KindListDocuments, model.KindGetDocument, model.KindChanges, model.KindActionLog, model.KindUpsert, model.KindGetBy:
		statuses = append(statuses, 501) // optional engine capabilities
	}
	// Optimistic concurrency: a write on a record may name the version it
	// read (If-Match, else 412); a read of one may name the version it holds
	// (If-None-Match, then 304).
	switch rt.Kind {
	case model.KindUpdate, model.KindAction, model.KindAddLine:
		op.Parameters = append(op.Parameters, headerParamRef(runtime.HeaderIfMatch))
		statuses = append(statuses, 412)
	case model.KindUpsert:
		op.Parameters = append(op.Parameters, headerParamRef(runtime.HeaderIfMatch), headerParamRef(runtime.HeaderIfNoneMatch))
		statuses = append(statuses, 412)
		op.Description = "Creates the record when the company has none with this key (201, Location, the answer of POST " + r.CollectionPath + "), " +
			"or changes the fields sent of the one that has it (200, the whole record; a PUT that changes nothing writes nothing and emits no event). " +
			"Exactly once: parallel PUTs of one new key create one record, the others update it. " +
			"If-None-Match: * creates only and If-Match (* or the ETag) updates only: 412 precondition_failed when the record is, or is not, there. " +
			"409 already_exists when a lookup key sent is another record's. " + op.Description
	case model.KindGet, model.KindGetBy:
		op.Parameters = append(op.Parameters, headerParamRef(runtime.HeaderIfNoneMatch))
		op.Parameters = append(op.Parameters, shapeParameters(r)...)
		notModified := &Response{Description: "Not modified: the record is still at the version If-None-Match names", Headers: responseHeaders(false)}
		notModified.Headers[runtime.HeaderETag] = headerRef(runtime.HeaderETag)
		op.Responses["304"] = notModified
	}
	if rt.Request != "" {
		op.RequestBody = jsonBody(rt.Request)
	}
	ok := func(status int, desc string, schema *Schema) {
		resp := successResponse(status, desc, write, schema)
		switch rt.Kind {
		case model.KindGet, model.KindGetBy, model.KindUpdate, model.KindUpsert, model.KindAction, model.KindCreate, model.KindAddLine: // a record of a register
			resp.Headers[runtime.HeaderETag] = headerRef(runtime.HeaderETag)
		}
		op.Responses[strconv.Itoa(status)] = resp
	}
	switch rt.Kind {
	case model.KindList:
		op.Parameters = append(op.Parameters, listParameters(r)...)
		op.Parameters = append(op.Parameters, shapeParameters(r)...)
		ok(200, "One page, newest first", ref(r.PageSchema))
	case model.KindExtraFields:
		ok(200, "The extra fields the company defines for "+r.Name, ref("ExtraFieldList"))
	case model.KindListDocuments:
		ok(200, "The record's documents, without content", ref("DocumentList"))
	case model.KindGet, model.KindGetBy, model.KindUpdate, model.KindAction:
		ok(200, "The record", ref(rt.Reply))
	case model.KindUpsert:
		ok(200, "Found and updated: the whole record", ref(rt.Reply))
		created := r.RecordType
		if r.CreateReply != nil {
			created = r.CreateReply.Type
		}
		ok(201, "Created with the path's key; Location is its address", ref(created))
	case model.KindCreate, model.KindAddLine:
		ok(201, "Created; Location is its address", ref(rt.Reply))
	case model.KindGetLocation:
		op.Parameters = append(op.Parameters,
			&Parameter{Name: "locate", In: "query", Schema: &Schema{Type: types("boolean")}, Description: "Recalculate the position first."},
			&Parameter{Name: "force", In: "query", Schema: &Schema{Type: types("boolean")}, Description: "Recalculate even when a position exists."})
		ok(200, "The stored position", ref("Location"))
	case model.KindPinLocation:
		op.RequestBody = jsonBody("LocationPin")
		ok(200, "The pinned position", ref("Location"))
	case model.KindAddDocument:
		op.RequestBody = jsonBody("DocumentUpload")
		ok(201, "Stored; Location is its download address", ref("DocumentCreated"))
	case model.KindGetDocument:
		op.Parameters = append(op.Parameters, &Parameter{Name: "id", In: "path", Required: true, Schema: jsonNumber[int64](""), Description: "The document's Id."})
		op.Responses["200"] = downloadResponse()
	case model.KindChanges:
		op.Description = "The engine's change log of the record: an entry per write, signed and marked as made via the API; a line's writes are logged on its owner too " +
			"(action create line, update line). The newest limit entries, newest first; there are no further pages. " + op.Description
		op.Parameters = append(op.Parameters, changeParameters(true)...)
		ok(200, "The record's change-log entries, newest first", ref(model.ChangeListSchema))
		if ex := r.ChangesExample(); ex != nil {
			op.Responses["200"].Content["application/json"].Example = ex
		}
	case model.KindActionLog:
		for _, a := range r.Actions {
			if a.DocPath == rt.DocPath {
				op.Description = "The entries of action " + a.Log + " in the record's change log, the ones POST " + a.DocPath + " writes: the newest limit entries, newest first; " +
					"there are no further pages. GET " + r.ItemDocPath + "/changes lists every write's. " + op.Description
			}
		}
		op.Parameters = append(op.Parameters, changeParameters(false)...)
		ok(200, "The entries, newest first", ref(model.ChangeListSchema))
	}
	for _, status := range statuses {
		op.Responses[strconv.Itoa(status)] = b.problemResponse(status, write)
	}
	return op
}

func jsonBody(schema string) *RequestBody {
	return &RequestBody{Required: true, Content: map[string]*MediaType{"application/json": {Schema: ref(schema)}}}
}

// headerComponent is the component name of an HTTP header: its name
// without dashes (X-Request-Id → XRequestId), in components.headers and,
// for the request headers, components.parameters.
func headerComponent(name string) string { return strings.ReplaceAll(name, "-", "") }

// headerRef is a reference to the shared response header component of
// the HTTP header name (a runtime.Header… constant).
func headerRef(name string) *Header { return headerComponentRef(headerComponent(name)) }

// headerComponentRef is a reference to a header component by its name.
func headerComponentRef(component string) *Header {
	return &Header{Ref: "#/components/headers/" + component}
}

// headerParamRef is a reference to the shared parameter of the request
// header name.
func headerParamRef(name string) *Parameter { return paramRef(headerComponent(name)) }

// responseHeaders are the headers every response of an operation carries
// (Cache-Control and the RateLimit headers on answers to keyed calls).
func responseHeaders(write bool) map[string]*Header {
	h := map[string]*Header{}
	names := []string{runtime.HeaderRequestID, runtime.HeaderCacheControl, runtime.HeaderRateLimit, runtime.HeaderRateLimitPolicy}
	if write {
		names = append(names, runtime.HeaderIdempotencyKey, runtime.HeaderIdempotencyReplayed)
	}
	for _, name := range names {
		h[name] = headerRef(name)
	}
	return h
}

func successResponse(status int, desc string, write bool, schema *Schema) *Response {
	h := responseHeaders(write)
	if status == http.StatusCreated {
		h[runtime.HeaderLocation] = headerRef(runtime.HeaderLocation)
	}
	return &Response{Description: desc, Headers: h, Content: map[string]*MediaType{"application/json": {Schema: schema}}}
}

// problemResponse refers to the shared problem answer of a status (of a
// write: with its idempotency headers), adding it to the components.
func (b *docBuilder) problemResponse(status int, write bool) *Response {
	name := "Problem" + strconv.Itoa(status)
	if write {
		name += "Write"
	}
	if b.doc.Components.Responses[name] == nil {
		b.doc.Components.Responses[name] = problemResponse(status, write)
	}
	return &Response{Ref: "#/components/responses/" + name}
}

// problemResponse is a problem answer; its description lists the codes.
func problemResponse(status int, write bool) *Response {
	h := responseHeaders(write)
	var codes []string
	some, all := false, true // codes of the status that send Retry-After
	for _, p := range model.ProblemCodesOf(status) {
		codes = append(codes, p.Code+": "+p.Meaning)
		some, all = some || p.RetryAfter, all && p.RetryAfter
	}
	switch {
	case all:
		h[runtime.HeaderRetryAfter] = headerRef(runtime.HeaderRetryAfter)
	case some:
		h[runtime.HeaderRetryAfter] = headerComponentRef(retryAfterSometimes)
	}
	return &Response{
		Description: http.StatusText(status) + ". " + strings.Join(codes, " "),
		Headers:     h,
		Content:     map[string]*MediaType{"application/problem+json": {Schema: ref("Problem")}},
	}
}

// downloadResponse is a document's content: the server sniffs its media
// type from the bytes, so any type may come back.
func downloadResponse() *Response {
	h := responseHeaders(false)
	h[runtime.HeaderContentDisposition] = headerRef(runtime.HeaderContentDisposition)
	content := map[string]*MediaType{}
	for _, mt := range []string{"application/pdf", "text/plain", "text/html", "image/*", "application/octet-stream", "*/*"} {
		content[mt] = &MediaType{Schema: &Schema{Type: types("string"), ContentEncoding: "binary",
			Description: "The file; Content-Type is sniffed from its content, not its name."}}
	}
	return &Response{Description: "The file, as an attachment", Headers: h, Content: content}
}

// changeParameters are the query parameters of a change-log list; action
// where it lists every action's entries.
func changeParameters(action bool) []*Parameter {
	params := []*Parameter{{Name: "limit", In: "query", Schema: atLeast(jsonNumber[int32](""), 1),
		Description: "How many of the newest entries: default " + strconv.Itoa(runtime.DefaultLimit) + "; more than " + strconv.Itoa(runtime.MaxLimit) + " is taken as " + strconv.Itoa(runtime.MaxLimit) + "."}}
	if action {
		params = append(params, &Parameter{Name: "action", In: "query", Schema: &Schema{Type: types("string"), MinLength: ptr(1)},
			Description: "Only the entries of this action (exact, such as update, status, note or create line)."})
	}
	return params
}

func listParameters(r *model.Register) []*Parameter {
	q := func(name string, s *Schema, desc string) *Parameter {
		return &Parameter{Name: name, In: "query", Schema: s, Description: desc}
	}
	str := func() *Schema { return &Schema{Type: types("string")} }
	params := []*Parameter{
		q("limit", atLeast(jsonNumber[int32](""), 1), "Page size: default 50; more than 500 is taken as 500."),
		q("page", atLeast(jsonNumber[int32](""), 1), "Page number from 1; pages can repeat rows while records are created."),
		q("cursor", str(), "nextCursor of the previous page: stable while records are created."),
		q("modifiedSince", str(), "ISO 8601 timestamp: records modified at or after it."),
		q("modifiedBefore", str(), "ISO 8601 timestamp: records modified before it."),
	}
	for _, fl := range r.Filters {
		f := r.Field(fl.Field)
		s := valueSchema(f)
		s.Enum = nil
		desc := string(fl.Match) + " on " + fl.Field
		switch fl.Match {
		case catalog.OneOf:
			s, desc = str(), "Comma-separated values of "+fl.Field
		case catalog.Hides:
			s, desc = &Schema{Type: types("boolean")}, "true includes records whose "+fl.Field+" is "+strings.Join(fl.Values, " or ")
		}
		if f.Type == catalog.List {
			s = str() // a list field is filtered by one of its values
		}
		if fl.Default != "" {
			desc += "; " + fl.Default + " when absent"
		}
		params = append(params, q(fl.Param, s, desc))
	}
	return append(params, listShapeParameters(r)...)
}
