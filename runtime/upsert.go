package runtime

import (
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"

	"fieldapi/engine"
	"fieldapi/runtime/problem"
)

// MaxKeyLength is the longest key or lookup-key value a PUT may give.
const MaxKeyLength = 255

// KeyParam is the unique field a route addresses records by: the
// register's key (PUT /v1/customers/{Nr}) or a lookup key (PUT
// /v1/products/by-barcode/{barcode}).
type KeyParam struct {
	Field string // PascalCase: Nr, Barcode
	Name  string // camelCase, as a body names it: nr, barcode
}

// Upsert serves PUT on a record by its key or a lookup key: absent, it is
// created with that key (201, Location, the body POST answers with);
// present, the fields sent change as with PATCH (200, the whole record).
// If-None-Match: * creates only and If-Match (* or ETags) updates only;
// either fails with 412 when the record is, or is not, there.
func Upsert[W any, P interface {
	*W
	Body
}, C any, R any](c *Call, register string, by KeyParam, shape Shape, createdView func(engine.Record) C, view func(engine.Record) R) error {
	ups, err := capabilityOf[engine.Upserts](c, "writes by key (PUT)")
	if err != nil {
		return err
	}
	value, err := keyValue(c, by)
	if err != nil {
		return err
	}
	in, planned, err := decodeWrite[W, P](c, register, shape, true)
	if err != nil || planned {
		return err
	}
	if sent, ok := in.Values[by.Field]; ok {
		if sent == nil { // null leaves a field as it is
			delete(in.Values, by.Field)
		} else if text, _ := sent.(string); text != value {
			return problem.InvalidField(by.Name, "contradicts the key of the path ("+value+"); send the same value or leave it out")
		}
	}
	only, err := presence(c.R, &in)
	if err != nil {
		return err
	}
	rc := engine.UpsertReceipt{
		Created: c.recordReceipt(http.StatusCreated, anyView(createdView)).Render,
		Updated: c.recordReceipt(http.StatusOK, anyView(view)).Render,
	}
	if c.claim != nil {
		rc.Claim = *c.claim
	}
	resp, err := ups.Upsert(c.Context(), c.Session, register, engine.KeyRef{Field: by.Field, Value: value}, in, only, rc)
	if err != nil {
		return err
	}
	return c.Send(resp)
}

// GetBy serves GET /v1/<register>/by-<lookup>/{value}: the record as GET
// by its key reads it.
func GetBy[R any](c *Call, register string, by KeyParam, shape ReadShape, view func(engine.Record) R) error {
	ups, err := capabilityOf[engine.Upserts](c, "reads by lookup key")
	if err != nil {
		return err
	}
	value, err := keyValue(c, by)
	if err != nil {
		return err
	}
	if served, err := shapedGet(c, shape, view, func(reads engine.ShapedReads, sh engine.Shape) (engine.Record, error) {
		return reads.GetByShaped(c.Context(), c.Session, register, engine.KeyRef{Field: by.Field, Value: value}, sh)
	}); served {
		return err
	}
	rec, err := ups.GetBy(c.Context(), c.Session, register, engine.KeyRef{Field: by.Field, Value: value})
	if err != nil {
		return err
	}
	return sendRecord(c, rec, shape, view)
}

// keyValue is the path's key, which must be a value a record can be
// given: not empty, at most MaxKeyLength characters, no control
// characters, no space at either end. A refusal names the key.
func keyValue(c *Call, by KeyParam) (string, error) {
	value, err := c.Key()
	if err != nil {
		return "", err
	}
	switch {
	case value == "":
		return "", problem.InvalidParameter(by.Name, "empty: a record needs a key")
	case utf8.RuneCountInString(value) > MaxKeyLength:
		return "", problem.InvalidParameter(by.Name, "longer than 255 characters")
	case strings.ContainsFunc(value, unicode.IsControl):
		return "", problem.InvalidParameter(by.Name, "holds control characters")
	case strings.TrimSpace(value) != value:
		return "", problem.InvalidParameter(by.Name, "starts or ends with white space")
	}
	return value, nil
}

// presence reads the conditions of a PUT: If-None-Match: * (create only;
// no other value means anything on a write) and If-Match (update only: *
// or ETags, which go to in.IfMatch).
func presence(r *http.Request, in *engine.Input) (engine.Presence, error) {
	noneMatch := strings.TrimSpace(r.Header.Get(HeaderIfNoneMatch))
	match := strings.TrimSpace(r.Header.Get(HeaderIfMatch))
	switch {
	case noneMatch != "" && match != "":
		return 0, problem.InvalidParameter(HeaderIfNoneMatch, "send If-None-Match: * (create only) or If-Match (update only), not both")
	case noneMatch == "*":
		return engine.CreateOnly, nil
	case noneMatch != "":
		return 0, problem.InvalidParameter(HeaderIfNoneMatch, `a write takes only "*" (create only)`)
	case match == "":
		return engine.CreateOrUpdate, nil
	}
	versions, err := ifMatch(r)
	in.IfMatch = versions
	return engine.UpdateOnly, err
}
