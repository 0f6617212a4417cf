package runtime

import (
	"encoding/json"
	"log/slog"

	"fieldapi/runtime/auth"
	"fieldapi/runtime/decode"
	"fieldapi/runtime/listquery"
	"fieldapi/runtime/observe"
	"fieldapi/runtime/problem"
	"fieldapi/runtime/readshape"
	"fieldapi/runtime/recordjson"
)

// The names below are used through package runtime by the generated code,
// the commands and the tests, but declared in the subpackage that does the
// work. Each forwards to that declaration: a type is an alias of it, a
// constant or a variable has its value (a variable the same slice or
// expression), a function calls it. runtime's own code uses the
// subpackages directly.

// Problems: package problem.
type (
	// Problem is an RFC 9457 problem response (problem.Problem).
	Problem = problem.Problem
	// ProblemCode is one kind of failure (problem.ProblemCode).
	ProblemCode = problem.ProblemCode
)

// ProblemCodes is every problem code the service answers with, in status
// order (problem.Codes).
func ProblemCodes() []ProblemCode { return problem.Codes() }

// AsProblem maps any error to its problem (problem.Of).
func AsProblem(err error) *Problem { return problem.Of(err) }

// UnknownField is the problem of a body naming a field that cannot be sent
// here (problem.UnknownField); generated decoders answer with it.
func UnknownField(path string, writable []string) *Problem {
	return problem.UnknownField(path, writable)
}

// Request bodies: package decode.
type (
	// Optional is one field of a request body (decode.Optional).
	Optional[T any] = decode.Optional[T]
	// Choice is a text field whose values the catalog lists (decode.Choice).
	Choice = decode.Choice
	// Date is an ISO 8601 date or date-time, kept as sent (decode.Date).
	Date = decode.Date
	// Shape is what a request body may carry (decode.Shape).
	Shape = decode.Shape
	// Body is a generated request body type (decode.Body).
	Body = decode.Body
)

// Set is the Presence of a field sent with a value (decode.Set).
const Set = decode.Set

// ValidDate reports whether s is an ISO 8601 date or date-time with real
// calendar values (decode.ValidDate).
func ValidDate(s string) bool { return decode.ValidDate(s) }

// DecodeLines decodes a list of line bodies; problems name the line, as in
// contacts[1].name (decode.Lines).
func DecodeLines[W any, P interface {
	*W
	Body
}](raw json.RawMessage, list string, shape Shape) ([]W, error) {
	return decode.Lines[W, P](raw, list, shape)
}

// Lists: package listquery.
type (
	// Filter is one query parameter of a register's list (listquery.Filter).
	Filter = listquery.Filter
	// Kind is the value type of a filtered field (listquery.Kind).
	Kind = listquery.Kind
	// Match says how a filter compares its parameter with the field
	// (listquery.Match).
	Match = listquery.Match
	// SortField is a field a list may be sorted by (listquery.SortField).
	SortField = listquery.SortField
	// ListEnvelope is the shape of every list (listquery.Envelope).
	ListEnvelope[T any] = listquery.Envelope[T]
)

// The kinds of filtered fields and the filter matches (listquery).
const (
	KindText   = listquery.KindText
	KindNumber = listquery.KindNumber
	KindBool   = listquery.KindBool
	KindDate   = listquery.KindDate

	Equals   = listquery.Equals
	Contains = listquery.Contains
	OneOf    = listquery.OneOf
	Hides    = listquery.Hides
)

// Paging limits (listquery.DefaultLimit, listquery.MaxLimit).
const (
	DefaultLimit = listquery.DefaultLimit
	MaxLimit     = listquery.MaxLimit
)

// CountModes are the values of engine.CountParam, the default first
// (listquery.CountModes: the same slice).
var CountModes = listquery.CountModes

// OpParam is the parameter of a filter's operator: param[op]
// (listquery.OpParam).
func OpParam(param, op string) string { return listquery.OpParam(param, op) }

// Keys and tokens: package auth.

// Credential prefixes (auth.KeyPrefix, auth.TokenPrefix).
const (
	KeyPrefix   = auth.KeyPrefix
	TokenPrefix = auth.TokenPrefix
)

// ValidClientID is the form of a client id (auth.ValidClientID: the same
// expression).
var ValidClientID = auth.ValidClientID

// NewKey makes a key for a client: the text shown once to the operator,
// and the hash of its secret that is stored (auth.NewKey).
func NewKey(clientID string) (key string, secretHash []byte, err error) { return auth.NewKey(clientID) }

// HashSecret is how secrets are stored (auth.HashSecret).
func HashSecret(secret string) []byte { return auth.HashSecret(secret) }

// Query shaping (fields=, expand=): package readshape.
type (
	// ReadShape is what fields= and expand= may name on the reads of one
	// register (readshape.Shape).
	ReadShape = readshape.Shape
	// Expansion is one relation a read may expand (readshape.Expansion).
	Expansion = readshape.Expansion
	// LineList is a line list of the read shape whose lines fields= may
	// narrow (readshape.LineList).
	LineList = readshape.LineList
)

// MaxExpandedLines is how many lines an expanded line list may carry per
// record (readshape.MaxExpandedLines).
const MaxExpandedLines = readshape.MaxExpandedLines

// Records written as JSON straight from the engine record: package
// recordjson.
type (
	// RecordJSON is a register's read shape as written (recordjson.Record).
	RecordJSON = recordjson.Record
	// JSONMember is one member of it (recordjson.Member).
	JSONMember = recordjson.Member
)

// How a JSONMember is read from the record (recordjson.Kind).
const (
	JSONText   = recordjson.Text
	JSONNumber = recordjson.Number
	JSONBool   = recordjson.Bool
	JSONList   = recordjson.List
	JSONObject = recordjson.Object
	JSONLines  = recordjson.Lines
)

// Observing requests: package observe.
type (
	// Observer hears of every request (observe.Observer).
	Observer = observe.Observer
	// RequestRecord is what the service learned about one request
	// (observe.RequestRecord).
	RequestRecord = observe.RequestRecord
)

// NewAccessLog writes one structured line per request through log
// (observe.NewAccessLog).
func NewAccessLog(log *slog.Logger) *observe.AccessLog { return observe.NewAccessLog(log) }
