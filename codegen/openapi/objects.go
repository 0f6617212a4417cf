package openapi

import "encoding/json"

// The OpenAPI 3.1 objects the generator emits, as Go types. Only the
// fields fieldapi uses are declared; encoding/json sorts map keys, so the
// rendered document is deterministic. Names follow the specification
// (https://spec.openapis.org/oas/v3.1.0).

// Document is the root of an OpenAPI document.
type Document struct {
	OpenAPI    string                `json:"openapi"`
	Info       Info                  `json:"info"`
	Servers    []Server              `json:"servers"`
	Security   []SecurityRequirement `json:"security"`
	Tags       []Tag                 `json:"tags"`
	Paths      map[string]*PathItem  `json:"paths"`
	Webhooks   map[string]*PathItem  `json:"webhooks,omitempty"` // what the service sends to subscribers, by event type
	Components Components            `json:"components"`
}

// Info describes the API.
type Info struct {
	Title       string   `json:"title"`
	Version     string   `json:"version"`
	Description string   `json:"description,omitempty"`
	Contact     *Contact `json:"contact,omitempty"`
	License     *License `json:"license,omitempty"`
}

// Contact is who answers for the API.
type Contact struct {
	Name  string `json:"name,omitempty"`
	URL   string `json:"url,omitempty"`
	Email string `json:"email,omitempty"`
}

// License is the API's licence.
type License struct {
	Name       string `json:"name"`
	Identifier string `json:"identifier,omitempty"`
	URL        string `json:"url,omitempty"`
}

// Server is where the API is served.
type Server struct {
	URL         string                    `json:"url"`
	Description string                    `json:"description,omitempty"`
	Variables   map[string]ServerVariable `json:"variables,omitempty"`
}

// ServerVariable is a placeholder of a server URL.
type ServerVariable struct {
	Default     string `json:"default"`
	Description string `json:"description,omitempty"`
}

// SecurityRequirement names the schemes an operation accepts.
type SecurityRequirement map[string][]string

// Tag groups operations; fieldapi has one per register.
type Tag struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// PathItem is the operations of one path.
type PathItem struct {
	Get    *Operation `json:"get,omitempty"`
	Head   *Operation `json:"head,omitempty"`
	Put    *Operation `json:"put,omitempty"`
	Post   *Operation `json:"post,omitempty"`
	Patch  *Operation `json:"patch,omitempty"`
	Delete *Operation `json:"delete,omitempty"`
}

// Set puts op under its HTTP method.
func (p *PathItem) Set(method string, op *Operation) {
	switch method {
	case "GET":
		p.Get = op
	case "HEAD":
		p.Head = op
	case "PUT":
		p.Put = op
	case "POST":
		p.Post = op
	case "PATCH":
		p.Patch = op
	case "DELETE":
		p.Delete = op
	default:
		panic("openapi: no OpenAPI slot for method " + method)
	}
}

// Method is the operation under an HTTP method; nil when there is none.
func (p *PathItem) Method(method string) *Operation {
	switch method {
	case "GET":
		return p.Get
	case "PUT":
		return p.Put
	case "POST":
		return p.Post
	case "PATCH":
		return p.Patch
	case "DELETE":
		return p.Delete
	}
	return nil
}

// Operation is the operation of a method on a path in OpenAPI syntax
// (/v1/tasks/{Nr}); nil when the document has none.
func (d *Document) Operation(method, path string) *Operation {
	if item := d.Paths[path]; item != nil {
		return item.Method(method)
	}
	return nil
}

// Operation is one method on one path.
type Operation struct {
	OperationID string                 `json:"operationId"`
	Summary     string                 `json:"summary"`
	Description string                 `json:"description,omitempty"`
	Tags        []string               `json:"tags"`
	Security    *[]SecurityRequirement `json:"security,omitempty"` // non-nil and empty: public
	Parameters  []*Parameter           `json:"parameters,omitempty"`
	RequestBody *RequestBody           `json:"requestBody,omitempty"`
	Responses   map[string]*Response   `json:"responses"`
}

// Parameter is a path, query or header parameter, or a reference to one.
type Parameter struct {
	Ref         string  `json:"$ref,omitempty"`
	Name        string  `json:"name,omitempty"`
	In          string  `json:"in,omitempty"`
	Description string  `json:"description,omitempty"`
	Required    bool    `json:"required,omitempty"`
	Schema      *Schema `json:"schema,omitempty"`
	Style       string  `json:"style,omitempty"`   // form, for a comma list: with Explode false
	Explode     *bool   `json:"explode,omitempty"` // false: an array is one comma-separated value
}

// RequestBody is what an operation accepts.
type RequestBody struct {
	Description string                `json:"description,omitempty"`
	Required    bool                  `json:"required"`
	Content     map[string]*MediaType `json:"content"`
}

// MediaType is a body of one media type.
type MediaType struct {
	Schema  *Schema `json:"schema"`
	Example any     `json:"example,omitempty"`
}

// Response is one status of an operation, or a reference to a shared one.
type Response struct {
	Ref         string                `json:"$ref,omitempty"`
	Description string                `json:"description,omitempty"`
	Headers     map[string]*Header    `json:"headers,omitempty"`
	Content     map[string]*MediaType `json:"content,omitempty"`
}

// Header is a response header, or a reference to a shared one.
type Header struct {
	Ref         string  `json:"$ref,omitempty"`
	Description string  `json:"description,omitempty"`
	Required    bool    `json:"required,omitempty"`
	Schema      *Schema `json:"schema,omitempty"`
	Style       string  `json:"style,omitempty"`   // form, for a comma list: with Explode false
	Explode     *bool   `json:"explode,omitempty"` // false: an array is one comma-separated value
}

// Components are the shared parts the document refers to.
type Components struct {
	Schemas         map[string]*Schema         `json:"schemas"`
	Responses       map[string]*Response       `json:"responses"`
	Parameters      map[string]*Parameter      `json:"parameters"`
	Headers         map[string]*Header         `json:"headers"`
	SecuritySchemes map[string]*SecurityScheme `json:"securitySchemes"`
}

// SecurityScheme is how a caller authenticates.
type SecurityScheme struct {
	Type        string `json:"type"`
	Scheme      string `json:"scheme"`
	Description string `json:"description,omitempty"`
}

// Schema is a JSON Schema 2020-12 schema, or a reference to a component.
type Schema struct {
	Ref             string             `json:"$ref,omitempty"`
	Type            Types              `json:"type,omitempty"`
	Format          string             `json:"format,omitempty"`
	Pattern         string             `json:"pattern,omitempty"`
	ContentEncoding string             `json:"contentEncoding,omitempty"`
	Description     string             `json:"description,omitempty"`
	Enum            []any              `json:"enum,omitempty"`
	Minimum         *float64           `json:"minimum,omitempty"`
	Maximum         *float64           `json:"maximum,omitempty"`
	MinLength       *int               `json:"minLength,omitempty"`
	MaxLength       *int               `json:"maxLength,omitempty"`
	MinItems        *int               `json:"minItems,omitempty"`
	MaxItems        *int               `json:"maxItems,omitempty"`
	Items           *Schema            `json:"items,omitempty"`
	Properties      map[string]*Schema `json:"properties,omitempty"`
	Required        []string           `json:"required,omitempty"`
	// UnlessNarrowed are the properties a record schema's answer carries
	// whenever fields= does not narrow it: required says only the key, as
	// a narrowed answer may leave the rest out.
	UnlessNarrowed       []string  `json:"x-required-unless-narrowed,omitempty"`
	AdditionalProperties *Schema   `json:"additionalProperties,omitempty"`
	Examples             []any     `json:"examples,omitempty"`
	AllOf                []*Schema `json:"allOf,omitempty"` // every one of these applies
	AnyOf                []*Schema `json:"anyOf,omitempty"` // at least one of these applies (orNull)

	never bool // the schema false: nothing matches (additionalProperties: false)
}

// Never is the schema that admits nothing, rendered as false.
func Never() *Schema { return &Schema{never: true} }

// IsNever reports whether s is the schema Never: it admits nothing.
func (s *Schema) IsNever() bool { return s.never }

// MarshalJSON renders the schema false as false, anything else as an object.
func (s *Schema) MarshalJSON() ([]byte, error) {
	if s.never {
		return []byte("false"), nil
	}
	type plain Schema // without this method
	return json.Marshal((*plain)(s))
}

// Types is a schema's type: one name, or a list such as ["string", "null"].
type Types []string

// MarshalJSON renders one type as a string and several as a list.
func (t Types) MarshalJSON() ([]byte, error) {
	if len(t) == 1 {
		return json.Marshal(t[0])
	}
	return json.Marshal([]string(t))
}
