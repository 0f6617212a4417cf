// Package listquery reads the query parameters of lists strictly (filters
// and their operators, sort, count, limit and paging, and a change log's)
// into the engine's queries, and writes the envelope every list answers
// with, whose cursor carries a walk on to its next page. Every route's
// query string is parsed here, as strictly (Values).
package listquery

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"fieldapi/engine"
	"fieldapi/runtime/decode"
	"fieldapi/runtime/problem"
	"fieldapi/runtime/textcheck"
)

// Paging limits (spec 4.8).
const (
	DefaultLimit = 50
	MaxLimit     = 500
)

// Kind is the value type of a filtered field.
type Kind uint8

// The kinds of filtered fields.
const (
	KindText Kind = iota
	KindNumber
	KindBool
	KindDate
)

// Match says how a filter compares its parameter with the field.
type Match uint8

// The filter matches, as declared in the catalog.
const (
	Equals   Match = iota // field = value
	Contains              // case-insensitive substring
	OneOf                 // field is one of a comma-separated list
	Hides                 // a switch: unless true, rows whose field is in Values are hidden
)

// Filter is one query parameter of a register's list.
type Filter struct {
	Param   string
	Field   string
	Kind    Kind
	Match   Match
	Values  []string // Hides: the hidden values
	Negate  bool     // Equals on a bool: the parameter is the field's opposite
	Default string   // assumed when the parameter is absent
	Ops     []string // operators it takes as Param[op] (filter.go)
	Enum    []string // the field's values, where the catalog fixes them: Ops check against them
}

// Request is a parsed list query: the engine query plus what the
// envelope needs to build the next cursor.
type Request struct {
	Query       engine.Query
	Page        int    // page number this response is
	fingerprint uint64 // hash of the filters, bound into cursors
	total       *int   // the total counted on the walk's first page
	estimated   bool   // that total is an estimate
}

// Values parses a raw query string strictly: a name or value that is not
// a valid percent-escape (a % without two hex digits) is a 400 naming the
// parameter. url.URL.Query would silently drop the pair, and with it a
// filter the client meant to apply.
func Values(raw string) (url.Values, error) {
	const badEscape = "not a valid percent-escape: a % must be followed by two hex digits"
	values := url.Values{}
	for pair := range strings.SplitSeq(raw, "&") {
		if pair == "" {
			continue
		}
		rawName, rawValue, _ := strings.Cut(pair, "=")
		name, err := url.QueryUnescape(rawName)
		if err != nil {
			return nil, problem.InvalidParameter(rawName, "the name is "+badEscape)
		}
		value, err := url.QueryUnescape(rawValue)
		if err != nil {
			return nil, problem.InvalidParameter(name, "the value is "+badEscape)
		}
		values[name] = append(values[name], value)
	}
	return values, nil
}

// PageLimit reads the limit parameter every paged route shares:
// DefaultLimit when absent, and a larger ask is served MaxLimit rather
// than refused, so a client asking for "everything" still gets pages.
func PageLimit(values url.Values) (int, error) {
	v := values.Get("limit")
	if v == "" {
		return DefaultLimit, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, problem.InvalidParameter("limit", "expected a whole number from 1 to "+strconv.Itoa(MaxLimit))
	}
	return min(n, MaxLimit), nil
}

// OnlyParams refuses a query with a parameter not in known, or one given
// twice.
func OnlyParams(values url.Values, known []string) error {
	for name, vs := range values {
		if !slices.Contains(known, name) {
			if !textcheck.Valid(name) {
				name = strconv.QuoteToASCII(name)
			}
			return problem.InvalidParameter(name, "unknown parameter").WithValid(known)
		}
		if len(vs) > 1 {
			return problem.InvalidParameter(name, "given more than once")
		}
	}
	return nil
}

// Parse parses a list's query string strictly: unknown parameters and
// unparsable values are 400 problems.
func Parse(values url.Values, filters []Filter, sortable ...SortField) (Request, error) {
	req := Request{Query: engine.Query{Limit: DefaultLimit}, Page: 1}
	if err := textcheck.Query(values); err != nil {
		return req, err
	}
	for name, vs := range values {
		if err := checkParam(name, filters); err != nil {
			return req, err
		}
		if len(vs) > 1 {
			return req, problem.InvalidParameter(name, "given more than once")
		}
	}
	limit, err := PageLimit(values)
	if err != nil {
		return req, err
	}
	req.Query.Limit = limit
	if req.Query.Count, err = parseCount(values); err != nil {
		return req, err
	}
	if req.Query.Sort, err = parseSort(values, sortable); err != nil {
		return req, err
	}
	for _, name := range []string{"modifiedSince", "modifiedBefore"} {
		v := values.Get(name)
		if v == "" {
			continue
		}
		t, err := ParseTime(v)
		if err != nil {
			return req, problem.InvalidParameter(name, err.Error())
		}
		if name == "modifiedSince" {
			req.Query.ModifiedSince = &t
		} else {
			req.Query.ModifiedBefore = &t
		}
	}
	for _, f := range filters {
		v, given := values.Get(f.Param), values.Has(f.Param)
		if !given && f.Default != "" {
			v, given = f.Default, true
		}
		cond, ok, err := f.condition(v, given)
		if err != nil {
			return req, problem.InvalidParameter(f.Param, err.Error())
		}
		if ok {
			req.Query.Where = append(req.Query.Where, cond)
		}
	}
	ops, err := opConditions(values, filters)
	if err != nil {
		return req, err
	}
	req.Query.Where = append(req.Query.Where, ops...)
	req.fingerprint = fingerprint(values)
	cursor, page := values.Get("cursor"), values.Get("page")
	switch {
	case cursor != "" && page != "":
		return req, problem.InvalidParameter("cursor", "give either cursor or page, not both")
	case cursor != "":
		c, err := decodeCursor(cursor, req.fingerprint)
		if err == nil {
			err = checkCursorKeys(c.Keys, req.Query.Sort, sortable)
		}
		if err != nil {
			return req, problem.InvalidParameter("cursor", err.Error())
		}
		req.Query.AfterKeys = c.Keys
		req.Query.After, req.Page, req.total, req.estimated = &c.Pos, c.Page, c.Total, c.Estimated
		// Counting costs a scan of the company's rows: a walk counts once,
		// on its first page, and carries the total in its cursors.
		req.Query.KnownTotal = c.Total != nil
	case page != "":
		n, err := strconv.Atoi(page)
		if err != nil || n < 1 {
			return req, problem.InvalidParameter("page", "expected a whole number from 1")
		}
		req.Query.Page, req.Page = n, n
	}
	return req, nil
}

func unknownParameter(name string, filters []Filter) *problem.Problem {
	valid := engine.ListParams()
	for _, f := range filters {
		valid = append(valid, f.Param)
	}
	valid = append(valid, opParams(filters)...)
	p := problem.InvalidParameter(name, "not a parameter of this list; the parameters are listed in validValues")
	p.ValidValues = valid
	return p
}

// condition turns one parameter into an engine condition; ok is false when
// the parameter selects nothing.
func (f Filter) condition(v string, given bool) (engine.Condition, bool, error) {
	switch f.Match {
	case Hides:
		show := false
		if given {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return engine.Condition{}, false, fmt.Errorf("expected true or false")
			}
			show = b
		}
		if show {
			return engine.Condition{}, false, nil
		}
		// The hidden values are catalog text; the engine takes them typed
		// as the field is (0 for includeZeroQuantity on a number field).
		hidden := make([]any, len(f.Values))
		for i, text := range f.Values {
			x, err := f.value(text)
			if err != nil {
				return engine.Condition{}, false, fmt.Errorf("hidden value %q of the catalog: %w", text, err)
			}
			hidden[i] = x
		}
		return engine.Condition{Field: f.Field, Op: engine.OpNotIn, Values: hidden}, true, nil
	case OneOf:
		if !given {
			return engine.Condition{}, false, nil
		}
		var vals []any
		for _, part := range strings.Split(v, ",") {
			if part = strings.TrimSpace(part); part != "" {
				x, err := f.value(part)
				if err != nil {
					return engine.Condition{}, false, err
				}
				vals = append(vals, x)
			}
		}
		if len(vals) == 0 {
			return engine.Condition{}, false, fmt.Errorf("expected a comma-separated list of values")
		}
		return engine.Condition{Field: f.Field, Op: engine.OpIn, Values: vals}, true, nil
	case Contains:
		if !given || v == "" {
			return engine.Condition{}, false, nil
		}
		return engine.Condition{Field: f.Field, Op: engine.OpContains, Values: []any{v}}, true, nil
	default:
		if !given {
			return engine.Condition{}, false, nil
		}
		x, err := f.value(v)
		if err != nil {
			return engine.Condition{}, false, err
		}
		if b, isBool := x.(bool); isBool && f.Negate {
			x = !b
		}
		return engine.Condition{Field: f.Field, Op: engine.OpEquals, Values: []any{x}}, true, nil
	}
}

// value parses one parameter value as the field's kind.
func (f Filter) value(v string) (any, error) {
	switch f.Kind {
	case KindNumber:
		n, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(n) || math.IsInf(n, 0) {
			return nil, fmt.Errorf("expected a finite number")
		}
		return n, nil
	case KindBool:
		b, err := strconv.ParseBool(v)
		if err != nil {
			return nil, fmt.Errorf("expected true or false")
		}
		return b, nil
	case KindDate:
		if !decode.ValidDate(v) {
			return nil, fmt.Errorf("expected an ISO 8601 date")
		}
	}
	return v, nil
}

// ParseTime parses an ISO 8601 timestamp; a date alone is midnight UTC and
// a time without zone is UTC.
func ParseTime(v string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02T15:04", "2006-01-02"} {
		if t, err := time.Parse(layout, v); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("expected an ISO 8601 timestamp, such as 2026-05-01T08:00:00Z")
}

// fingerprint hashes the parameters that select rows, so a cursor is only
// accepted with the filters it was made for.
func fingerprint(values url.Values) uint64 {
	var keys []string
	for k := range values {
		if k != "cursor" && k != "page" && k != "limit" && k != engine.FieldsParam && k != engine.ExpandParam { // the shape selects no rows
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	h := sha256.New()
	for _, k := range keys {
		fmt.Fprintf(h, "%s=%s&", k, values.Get(k))
	}
	return binary.BigEndian.Uint64(h.Sum(nil))
}

// cursor is the opaque position a list continues from.
type cursor struct {
	Pos   int64  `json:"p"`           // engine position of the last row received
	Page  int    `json:"n"`           // page number the cursor leads to
	FP    uint64 `json:"f"`           // filters it belongs to
	Total *int   `json:"t,omitempty"` // total counted when the walk began
	// Estimated says Total is an estimate (count=estimated).
	Estimated bool `json:"e,omitempty"`
	// Keys are the sort values of the last row received, under sort=.
	Keys []any `json:"k,omitempty"`
}

func encodeCursor(c cursor) string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeCursor(s string, fp uint64) (cursor, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	var c cursor
	if err != nil || json.Unmarshal(b, &c) != nil || c.Page < 2 || c.Pos < 0 || (c.Total != nil && *c.Total < 0) {
		return cursor{}, fmt.Errorf("not a cursor from this service")
	}
	if c.FP != fp {
		return cursor{}, fmt.Errorf("the cursor belongs to other filters or another sort; repeat the filters and sort of the first page")
	}
	return c, nil
}

// Envelope is the shape of every list (spec 2.5).
type Envelope[T any] struct {
	Items      []T     `json:"items"`
	NextCursor *string `json:"nextCursor"`
	Page       int     `json:"page"`
	Total      *int    `json:"total"`
	// TotalEstimated is true when total is the store's estimate
	// (count=estimated); absent otherwise, as the spec's envelope is.
	TotalEstimated bool `json:"totalEstimated,omitempty"`
}

// NewEnvelope wraps one engine page of records. On a cursor walk the total
// is the one counted on the walk's first page.
func NewEnvelope[T any](req Request, page engine.Page, view func(engine.Record) T) Envelope[T] {
	total, estimated := page.Total, page.TotalEstimated
	if req.Query.KnownTotal {
		total, estimated = req.total, req.estimated
	}
	env := Envelope[T]{Items: make([]T, len(page.Records)), Page: req.Page, Total: total, TotalEstimated: estimated}
	for i, rec := range page.Records {
		env.Items[i] = view(rec)
	}
	if page.Next != nil {
		next := encodeCursor(cursor{Pos: *page.Next, Page: req.Page + 1, FP: req.fingerprint, Total: total, Estimated: estimated, Keys: page.NextKeys})
		env.NextCursor = &next
	}
	return env
}
