package runtime

import (
	"net/http"

	"fieldapi/engine"
	"fieldapi/runtime/listquery"
	"fieldapi/runtime/readshape"
)

// The generic register handlers. Generated code calls them with a
// register's name, its filters, its body shape and its typed mappers.

// List serves GET /v1/<register>: one page, newest first.
func List[R any](c *Call, register string, filters []Filter, shape ReadShape, view func(engine.Record) R, sortable ...SortField) error {
	query, err := c.Query()
	if err != nil {
		return err
	}
	req, err := listquery.Parse(query, filters, sortable...)
	if err != nil {
		return err
	}
	sr, err := readshape.Parse(query, shape, c.Scopes)
	if err != nil {
		return err
	}
	req.Query.Shape = sr.Engine
	page, err := c.Engine.List(c.Context(), c.Session, register, req.Query)
	if err != nil {
		return err
	}
	if sr.Shaped() || shape.JSON != nil {
		return sendPage(c, sr, req, page, anyView(view))
	}
	return c.JSON(http.StatusOK, listquery.NewEnvelope(req, page, view))
}

// Get serves GET /v1/<register>/{key}.
func Get[R any](c *Call, register string, shape ReadShape, view func(engine.Record) R) error {
	key, err := c.Key()
	if err != nil {
		return err
	}
	if served, err := shapedGet(c, shape, view, func(reads engine.ShapedReads, sh engine.Shape) (engine.Record, error) {
		return reads.GetShaped(c.Context(), c.Session, register, key, sh)
	}); served {
		return err
	}
	rec, err := c.Engine.Get(c.Context(), c.Session, register, key)
	if err != nil {
		return err
	}
	return sendRecord(c, rec, shape, view)
}

// Create serves POST /v1/<register>: 201 with the record as written.
func Create[W any, P interface {
	*W
	Body
}, R any](c *Call, register string, shape Shape, view func(engine.Record) R) error {
	in, planned, err := decodeWrite[W, P](c, register, shape, true)
	if err != nil || planned {
		return err
	}
	resp, err := c.Engine.Create(c.Context(), c.Session, register, in, c.recordReceipt(http.StatusCreated, anyView(view)))
	if err != nil {
		return err
	}
	return c.Send(resp)
}

// Update serves PATCH /v1/<register>/{key}: 200 with the whole record.
func Update[W any, P interface {
	*W
	Body
}, R any](c *Call, register string, shape Shape, view func(engine.Record) R) error {
	return writeRecord[W, P](c, register, shape, http.StatusOK, view, func(key string, in engine.Input, r engine.Receipt) (engine.Response, error) {
		return c.Engine.Update(c.Context(), c.Session, register, key, in, r)
	})
}

// writeRecord is a write on the record the path names: it decodes the body
// strictly, runs the engine write (conditional on If-Match) with a receipt
// rendered by view, and sends what the engine stored. An update of a
// register's fields names the register (plannedAs) for a batch's plan
// run (decodeWrite); a line or an action, whose body is not the
// register's, names none.
func writeRecord[W any, P interface {
	*W
	Body
}, R any](c *Call, plannedAs string, shape Shape, status int, view func(engine.Record) R, write func(key string, in engine.Input, r engine.Receipt) (engine.Response, error)) error {
	key, err := c.Key()
	if err != nil {
		return err
	}
	in, planned, err := decodeWrite[W, P](c, plannedAs, shape, false)
	if err != nil || planned {
		return err
	}
	if in.IfMatch, err = ifMatch(c.R); err != nil {
		return err
	}
	resp, err := write(key, in, c.recordReceipt(status, anyView(view)))
	if err != nil {
		return err
	}
	return c.Send(resp)
}

// ExtraFields serves GET /v1/<register>/extra-fields.
func ExtraFields(c *Call, register string) error {
	defs, err := c.Engine.ExtraFieldDefs(c.Context(), c.Session, register)
	if err != nil {
		return err
	}
	if defs == nil {
		defs = []engine.ExtraFieldDef{}
	}
	return c.JSON(http.StatusOK, Collection[engine.ExtraFieldDef]{Items: defs, Count: len(defs)})
}

// Collection is the shape of a short, unpaged list (spec 2.4, 4.3).
type Collection[T any] struct {
	Items []T `json:"items"`
	Count int `json:"count"`
}

func anyView[R any](view func(engine.Record) R) func(engine.Record) any {
	return func(rec engine.Record) any { return view(rec) }
}

// Views maps line records to their read shape; never nil, so an empty list
// reads as [].
func Views[R any](recs []engine.Record, view func(engine.Record) R) []R {
	out := make([]R, len(recs))
	for i, rec := range recs {
		out[i] = view(rec)
	}
	return out
}
