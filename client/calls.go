package client

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"maps"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// The calls below are what every register shares; the generated services
// only name the path and the types.

// itemPath is the path of one record, the key escaped whole, and anything
// after it: itemPath("/v1/tasks", "10065", "/status").
func itemPath(collection, key string, rest ...string) string {
	return collection + "/" + url.PathEscape(key) + strings.Join(rest, "")
}

// getOne reads one JSON answer.
func getOne[T any](ctx context.Context, c *Client, path string, query url.Values) (T, error) {
	return call[T](ctx, c, request{method: http.MethodGet, path: path, query: query})
}

// getRecord reads one record, sending the context's If-None-Match and
// the read options' query (fields=, expand=; client/shape.go).
func getRecord[T any](ctx context.Context, c *Client, path string, opts []ReadOption) (T, error) {
	q := url.Values{}
	for _, opt := range opts {
		opt(q)
	}
	return call[T](ctx, c, request{method: http.MethodGet, path: path, query: q, conditional: true})
}

// write sends a body with a fresh (or the context's) Idempotency-Key.
func write[T any](ctx context.Context, c *Client, method, path string, body any) (T, error) {
	return call[T](ctx, c, request{method: method, path: path, body: body})
}

// writeRecord is write on the record the path names (a PATCH, an action,
// a line post), sending the context's If-Match.
func writeRecord[T any](ctx context.Context, c *Client, method, path string, body any) (T, error) {
	return call[T](ctx, c, request{method: method, path: path, body: body, conditional: true})
}

// Upserted is the answer of an Upsert: Created says which write ran. A PUT
// that created the record answers as Create does (New); one that found it
// answers with the whole record after the change (Record), as Update does.
type Upserted[C, R any] struct {
	Created bool
	New     C // when Created: the answer of the create
	Record  R // when not Created: the record after the change
}

// upsertRecord is a PUT by key: it creates the record or changes it,
// sending the context's If-Match or create-only condition.
func upsertRecord[C, R any](ctx context.Context, c *Client, path string, body any) (Upserted[C, R], error) {
	var out Upserted[C, R]
	req := request{method: http.MethodPut, path: path, body: body, conditional: true, upsert: true}
	resp, err := c.do(ctx, req)
	if err != nil {
		return out, err
	}
	defer resp.Body.Close()
	var into any = &out.Record
	if out.Created = resp.StatusCode == http.StatusCreated; out.Created {
		into = &out.New
	}
	if err := json.NewDecoder(resp.Body).Decode(into); err != nil {
		return out, fmt.Errorf("fieldapi: decoding the answer to %s %s: %w", req.method, req.path, err)
	}
	return out, nil
}

// listPage reads one page of a list.
func listPage[T any](ctx context.Context, c *Client, path string, query url.Values) (Page[T], error) {
	page, err := getOne[Page[T]](ctx, c, path, query)
	if page.Items == nil {
		page.Items = []T{}
	}
	return page, err
}

// walk yields every record of a list, following nextCursor from the page
// the query starts at. It stops at the first error, which it yields.
func walk[T any](ctx context.Context, c *Client, path string, query url.Values) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		query := maps.Clone(query) // each range starts where the parameters say
		for {
			page, err := listPage[T](ctx, c, path, query)
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for _, item := range page.Items {
				if !yield(item, nil) {
					return
				}
			}
			if page.NextCursor == "" {
				return
			}
			query.Del("page")
			query.Set("cursor", page.NextCursor)
		}
	}
}

// listQuery holds the parameters every list takes; the generated Params
// types add their filters.
func listQuery(limit int, cursor string, page int, since, before time.Time) url.Values {
	q := url.Values{}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	if cursor != "" {
		q.Set("cursor", cursor)
	}
	if page > 0 {
		q.Set("page", strconv.Itoa(page))
	}
	if !since.IsZero() {
		q.Set("modifiedSince", since.Format(time.RFC3339Nano))
	}
	if !before.IsZero() {
		q.Set("modifiedBefore", before.Format(time.RFC3339Nano))
	}
	return q
}

// The filter encoders: an absent filter sends nothing.

func setText(q url.Values, name, v string) {
	if v != "" {
		q.Set(name, v)
	}
}

func setList(q url.Values, name string, vs []string) {
	if len(vs) > 0 {
		q.Set(name, strings.Join(vs, ","))
	}
}

func setNumber(q url.Values, name string, v *float64) {
	if v != nil {
		q.Set(name, strconv.FormatFloat(*v, 'f', -1, 64))
	}
}

func setBool(q url.Values, name string, v *bool) {
	if v != nil {
		q.Set(name, strconv.FormatBool(*v))
	}
}

func setSwitch(q url.Values, name string, on bool) {
	if on {
		q.Set(name, "true")
	}
}

// collection is the shape of a short, unpaged list.
type collection[T any] struct {
	Items []T `json:"items"`
	Count int `json:"count"`
}

// getItems reads a short, unpaged list.
func getItems[T any](ctx context.Context, c *Client, path string) ([]T, error) {
	col, err := getOne[collection[T]](ctx, c, path, nil)
	if col.Items == nil {
		col.Items = []T{}
	}
	return col.Items, err
}

// getChanges reads change-log entries of a record, newest first: every
// action's (p.Action selects one), or on an action's path the entries it
// wrote (p.Action is then "").
func getChanges(ctx context.Context, c *Client, path string, p ChangeParams) ([]Change, error) {
	q := url.Values{}
	if p.Limit > 0 {
		q.Set("limit", strconv.Itoa(p.Limit))
	}
	setText(q, "action", p.Action)
	col, err := getOne[collection[Change]](ctx, c, path, q)
	if col.Items == nil {
		col.Items = []Change{}
	}
	return col.Items, err
}

// getLocation reads a record's position.
func getLocation(ctx context.Context, c *Client, path string, opt LocateOptions) (Location, error) {
	q := url.Values{}
	setSwitch(q, "locate", opt.Locate)
	setSwitch(q, "force", opt.Force)
	return getOne[Location](ctx, c, path, q)
}

// uploadDocument sends a file. It is read whole first, so every retry
// sends the same bytes.
func uploadDocument(ctx context.Context, c *Client, path, name string, content io.Reader) (Document, error) {
	data, err := io.ReadAll(content)
	if err != nil {
		return Document{}, fmt.Errorf("fieldapi: reading the document %q: %w", name, err)
	}
	body := map[string]string{"name": name, "contentBase64": base64.StdEncoding.EncodeToString(data)}
	return write[Document](ctx, c, http.MethodPost, path, body)
}

// downloadDocument opens a document's content.
func downloadDocument(ctx context.Context, c *Client, path string) (*DocumentContent, error) {
	resp, err := c.do(ctx, request{method: http.MethodGet, path: path})
	if err != nil {
		return nil, err
	}
	doc := &DocumentContent{Body: resp.Body, ContentType: resp.Header.Get(headerContentType), Size: resp.ContentLength}
	if _, params, err := mime.ParseMediaType(resp.Header.Get(headerContentDisposition)); err == nil {
		doc.FileName = params["filename"]
	}
	return doc, nil
}
