// Package engine is the port between the HTTP layer and the business system.
//
// The generated handlers call an Engine with register names and plain values;
// every business rule (numbering, references, permissions of the signature,
// extra fields, change log) lives behind this interface. This package holds
// only types: engine/pipeline implements it once over any store
// (engine/store), and engine/reference wires the reference engine.
package engine

import (
	"context"
	"time"
)

// Engine is the business system as the HTTP layer sees it.
type Engine interface {
	// Ping reports whether the engine can be reached.
	Ping(ctx context.Context) error

	// List returns one page of a register, newest first.
	List(ctx context.Context, s Session, register string, q Query) (Page, error)
	// Get returns one record by its key, or ErrNotFound.
	Get(ctx context.Context, s Session, register, key string) (Record, error)
	// Create writes a new record with its lines, all or nothing. The receipt
	// is rendered and stored in the same transaction as the write.
	Create(ctx context.Context, s Session, register string, in Input, r Receipt) (Response, error)
	// Update changes the fields present in the input, then renders the receipt
	// in the same transaction.
	Update(ctx context.Context, s Session, register, key string, in Input, r Receipt) (Response, error)

	// ExtraFieldDefs describes the company's extra fields of a register.
	ExtraFieldDefs(ctx context.Context, s Session, register string) ([]ExtraFieldDef, error)
	// FieldNames lists the company's labels for standard fields.
	FieldNames(ctx context.Context, s Session) ([]FieldName, error)

	// Keys stores API keys and tokens.
	Keys() KeyStore
	// Idempotency stores the responses of writes.
	Idempotency() IdempotencyStore
}

// Session is who is calling: the company and engine signature a key is tied to.
type Session struct {
	Company  string // every read and write is confined to this company
	Sign     string // engine signature the key acts as; its permissions apply
	ClientID string // the key's client id, for the change log
}

// Record is one record as read, keyed by PascalCase field name. Values are
// nil, string, float64, bool, []string or map[string]string; ExtraFields is
// a map[string]string; line lists are []Record.
type Record map[string]any

// Empty reports whether a value counts as not given: nil, "" or an empty list.
func Empty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return x == ""
	case []string:
		return len(x) == 0
	}
	return false
}

// Text returns a text or date field, or nil.
func (r Record) Text(field string) *string { return typed[string](r, field) }

// Number returns a number field, or nil.
func (r Record) Number(field string) *float64 { return typed[float64](r, field) }

// Bool returns a bool field, or nil.
func (r Record) Bool(field string) *bool { return typed[bool](r, field) }

// List returns a list-of-text field; never nil.
func (r Record) List(field string) []string { return orEmpty(r, field, []string{}) }

// Object returns an object field (such as ExtraFields); never nil.
func (r Record) Object(field string) map[string]string {
	if v, ok := r[field].(map[string]string); ok {
		return v
	}
	return map[string]string{} // made only when needed: a map is an allocation
}

// Lines returns a list of line records; never nil.
func (r Record) Lines(field string) []Record { return orEmpty(r, field, []Record{}) }

// typed is a field's value if it is a T, else nil.
func typed[T any](r Record, field string) *T {
	if v, ok := r[field].(T); ok {
		return &v
	}
	return nil
}

// orEmpty is a field's value if it is a T, else empty.
func orEmpty[T any](r Record, field string, empty T) T {
	if v, ok := r[field].(T); ok {
		return v
	}
	return empty
}

// Input is what a create or update writes.
type Input struct {
	// Values holds the fields sent, by PascalCase name: string, float64,
	// bool or []string; nil clears the field. An omitted field is absent.
	Values map[string]any
	// Extra holds extra-field values sent, by key; nil when none were sent.
	Extra map[string]string
	// Lines holds the line lists of a create, by request name (such as
	// "contacts"), in the order sent.
	Lines map[string][]Input
	// IfMatch, when not empty, makes the write conditional: the engine
	// checks, under the lock it writes with, that the record (the owner,
	// for a line or an action) is still at one of these versions
	// (Record.Version), and otherwise refuses with ErrPreconditionFailed.
	IfMatch []string
}

// NewInput returns an empty input ready to fill.
func NewInput() Input { return Input{Values: map[string]any{}} }

// Receipt renders the response to a write from the record as written. The
// engine calls it inside its transaction and stores the result with the
// idempotency claim, so the write and its stored response commit together.
type Receipt struct {
	Claim  Claim
	Render func(Record) (Response, error)
}

// Response is a rendered HTTP response, as stored for idempotent replay.
type Response struct {
	Status int
	Body   []byte
	// Version is the version of the record the receipt rendered, for its
	// ETag. It is not stored: a replay answers without one.
	Version string
}

// Query selects one page of a list.
type Query struct {
	Limit          int         // page size, already capped
	Page           int         // 1-based page number; 0 when paging by cursor
	After          *int64      // cursor: continue after this position
	ModifiedSince  *time.Time  // Modified >= this
	ModifiedBefore *time.Time  // Modified < this
	Where          []Condition // register filters
	KnownTotal     bool        // the caller carries the total already (a cursor walk): don't count
	Count          CountMode   // how to count the total
	Sort           []SortKey   // order by these fields, then newest first; none: newest first
	AfterKeys      []any       // cursor under Sort: the last row's sort values, with After its position
	Shape          Shape       // the fields read and the relations expanded (shape.go)
}

// Op is how a condition compares.
type Op string

// The condition operators.
const (
	OpEquals   Op = "equals"   // Field = Values[0]
	OpContains Op = "contains" // Field contains Values[0], ignoring case
	OpIn       Op = "in"       // Field is one of Values
	OpNotIn    Op = "notIn"    // Field is none of Values (NULL counts as none)
)

// Condition is one filter of a list. Values are typed as the field is.
type Condition struct {
	Field  string
	Op     Op
	Values []any
}

// Page is one page of a list.
type Page struct {
	Records []Record
	Next    *int64 // position to continue after; nil when nothing more
	Total   *int   // nil when the register is not counted
	// TotalEstimated says Total is the store's estimate (CountEstimated).
	TotalEstimated bool
	NextKeys       []any // under Query.Sort: the sort values of the row Next is
}

// ExtraFieldDef describes one extra field (spec 2.4).
type ExtraFieldDef struct {
	Key      string   `json:"Key"`
	Name     string   `json:"Name"`
	Category string   `json:"Category"`
	Type     string   `json:"Type"`
	Writable bool     `json:"Writable"`
	ReadOnly bool     `json:"ReadOnly"`
	Computed bool     `json:"Computed"`
	Options  []string `json:"Options,omitempty"`
}

// FieldName is the company's label for a standard field (spec 2.5).
type FieldName struct {
	DbFieldName   string `json:"DbFieldName"`
	UserFieldName string `json:"UserFieldName"`
	ListOnly      bool   `json:"ListOnly"`
	Hidden        bool   `json:"Hidden"`
}

// AddLine appends one line to a line list of a create.
func (in *Input) AddLine(list string, line Input) {
	if in.Lines == nil {
		in.Lines = map[string][]Input{}
	}
	in.Lines[list] = append(in.Lines[list], line)
}
