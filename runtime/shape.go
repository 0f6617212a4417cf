package runtime

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"sync"

	"fieldapi/engine"
	"fieldapi/runtime/etag"
	"fieldapi/runtime/listquery"
	"fieldapi/runtime/readshape"
	"fieldapi/runtime/textcheck"
)

// Shaped reads as a call answers them: package readshape parses fields=
// and expand= and encodes the records; here they are read and sent.

// shapedGet serves a get whose query has fields= or expand=, reading the
// record with read; served is false when it has neither (the get answers
// as it always has).
func shapedGet[R any](c *Call, shape ReadShape, view func(engine.Record) R, read func(engine.ShapedReads, engine.Shape) (engine.Record, error)) (served bool, err error) {
	sr, err := c.shapeOf(shape)
	if err != nil || !sr.Shaped() {
		return err != nil, err
	}
	reads, err := capabilityOf[engine.ShapedReads](c, "fields and expand")
	if err != nil {
		return true, err
	}
	rec, err := read(reads, sr.Engine)
	if err != nil {
		return true, err
	}
	return true, c.sendShaped(sr, rec, anyView(view))
}

// sendShaped answers a shaped read of one record. Its ETag is weak, of
// the answer itself: If-None-Match answers 304 while the shaped answer is
// unchanged, and a write refuses it (a write's If-Match takes the strong
// ETag of the whole record).
func (c *Call) sendShaped(sr readshape.Request, rec engine.Record, view func(engine.Record) any) error {
	body, err := sr.Encode(rec, view)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(body)
	tag := hex.EncodeToString(sum[:16])
	c.W.Header().Set(HeaderETag, etag.Weak(tag))
	if noneMatch(c.R, tag) {
		c.WriteHeader(http.StatusNotModified)
		return nil
	}
	c.send(http.StatusOK, "application/json", body)
	return nil
}

// shapeOf parses the fields= and expand= of a get. The query is read
// strictly, as a list's is (a malformed escape, name or value is a 400
// naming it); other well-formed parameters are left alone, as a get
// always has.
func (c *Call) shapeOf(shape ReadShape) (readshape.Request, error) {
	if c.R.URL.RawQuery == "" {
		return readshape.Request{}, nil
	}
	query, err := c.Query()
	if err != nil {
		return readshape.Request{}, err
	}
	if err := textcheck.Query(query); err != nil {
		return readshape.Request{}, err
	}
	return readshape.Parse(query, shape, c.Scopes)
}

// sendPage answers a list whose items are written one by one: a shaped
// list, or any list of a register whose read shape is written straight
// from the record (ReadShape.JSON). It is the envelope of every list, its
// items written into one buffer (json.Marshal of the items as
// json.RawMessage would scan them all again).
func sendPage(c *Call, sr readshape.Request, req listquery.Request, page engine.Page, view func(engine.Record) any) error {
	bare := page // all but the records, which are encoded below: the cursor's sort values, the total and whether it is estimated
	bare.Records = nil
	env := listquery.NewEnvelope(req, bare, func(engine.Record) struct{} { return struct{}{} })
	rest, err := json.Marshal(env)
	if err != nil {
		return err
	}
	b := c.server.pages.get()
	defer c.server.pages.put(b)
	b.Grow(4096 * (len(page.Records) + 1))
	b.WriteString(`{"items":[`)
	for i, rec := range page.Records {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := sr.EncodeTo(b, rec, view); err != nil {
			return err
		}
	}
	b.WriteString("],")
	b.Write(rest[bytes.IndexByte(rest, ',')+1:]) // {"items":[],"nextCursor":…} past items
	c.send(http.StatusOK, "application/json", b.Bytes())
	return nil
}

// pageBuffers are the buffers pages are written into, kept for the next
// page: a page of 50 tasks is some 150 kB, which made anew for each list
// would be much of what the garbage collector then has to sweep. The
// response writer copies what it is given, so a buffer is free again once
// sent. The zero value is ready to use.
type pageBuffers struct{ pool sync.Pool }

// maxPooledPage is the largest buffer kept: the rare page of hundreds of
// large records is left to the collector rather than held.
const maxPooledPage = 1 << 20

// get returns an empty buffer.
func (p *pageBuffers) get() *bytes.Buffer {
	if b, ok := p.pool.Get().(*bytes.Buffer); ok {
		b.Reset()
		return b
	}
	return new(bytes.Buffer)
}

// put keeps b for a later page unless it grew past maxPooledPage.
func (p *pageBuffers) put(b *bytes.Buffer) {
	if b.Cap() <= maxPooledPage {
		p.pool.Put(b)
	}
}
