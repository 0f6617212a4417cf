package runtime

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"path"
	"strconv"

	"github.com/gabriel-vasile/mimetype"

	"fieldapi/engine"
	"fieldapi/runtime/decode"
	"fieldapi/runtime/problem"
)

// uploadBody is the body of POST …/documents.
type uploadBody struct {
	Name    decode.Optional[string]
	Content decode.Optional[string]
}

var uploadShape = decode.Shape{Writable: []string{"name", "contentBase64"}, Required: []string{"name", "contentBase64"}}

func (b *uploadBody) DecodeField(name string, raw json.RawMessage) error {
	switch name {
	case "name":
		return b.Name.Decode(raw)
	case "contentBase64":
		return b.Content.Decode(raw)
	}
	return problem.UnknownField(name, uploadShape.Writable)
}

func (b *uploadBody) Input() engine.Input { return engine.NewInput() } // uploads are not record inputs

// documentReply is the answer to an upload (spec 4.3).
type documentReply struct {
	ID   int64  `json:"id"`
	Nr   string `json:"nr"`
	Name string `json:"name"`
}

// AddDocument serves POST /v1/<register>/{key}/documents: 201 {id, nr, name}.
func AddDocument(c *Call, register string) error {
	if c.planning() {
		return nil
	}
	docs, key, err := recordCapability[engine.Documents](c, "documents")
	if err != nil {
		return err
	}
	var b uploadBody
	if err := decode.Object(c.Body, uploadShape, &b); err != nil {
		return err
	}
	if b.Name.Value == "" || b.Name.Value != path.Base(b.Name.Value) {
		return problem.InvalidField("name", "expected a file name without directories")
	}
	content, err := base64.StdEncoding.DecodeString(b.Content.Value)
	if err != nil {
		return problem.InvalidField("contentBase64", "not valid base64")
	}
	b.Content.Value = "" // drop the encoded copy before the engine stores the bytes
	view := func(rec engine.Record) any {
		id := rec.Number("Id")
		reply := documentReply{Nr: deref(rec.Text("Nr")), Name: deref(rec.Text("Name"))}
		if id != nil {
			reply.ID = int64(*id)
		}
		return reply
	}
	resp, err := docs.AddDocument(c.Context(), c.Session, register, key, engine.NewDocument{Name: b.Name.Value, Content: content}, c.Receipt(http.StatusCreated, view))
	if err != nil {
		return err
	}
	return c.Send(resp)
}

// ListDocuments serves GET /v1/<register>/{key}/documents.
func ListDocuments(c *Call, register string) error {
	docs, key, err := recordCapability[engine.Documents](c, "documents")
	if err != nil {
		return err
	}
	list, err := docs.ListDocuments(c.Context(), c.Session, register, key)
	if err != nil {
		return err
	}
	if list == nil {
		list = []engine.DocumentInfo{}
	}
	return c.JSON(http.StatusOK, Collection[engine.DocumentInfo]{Items: list, Count: len(list)})
}

// sniffLen is how much of a file decides its Content-Type.
const sniffLen = 3072

// GetDocument serves GET /v1/<register>/{key}/documents/{id}: the file,
// streamed, with a Content-Type sniffed from the content (not the name).
func GetDocument(c *Call, register string) error {
	docs, key, err := recordCapability[engine.Documents](c, "documents")
	if err != nil {
		return err
	}
	raw, err := c.Param("id")
	if err != nil {
		return err
	}
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || id < 1 {
		// Ids are positive numbers: any other id names no document, as an
		// engine-assigned record Id that is not a number names no record.
		return problem.NotFound("no document " + strconv.Quote(raw))
	}
	doc, err := docs.OpenDocument(c.Context(), c.Session, register, key, id)
	if err != nil {
		return err
	}
	defer doc.Body.Close()
	head := make([]byte, sniffLen)
	n, err := io.ReadFull(doc.Body, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return err
	}
	head = head[:n]
	kind := mimetype.Detect(head)
	name := doc.Name
	if path.Ext(name) == "" {
		name += kind.Extension()
	}
	h := c.W.Header()
	h.Set(HeaderContentType, kind.String())
	h.Set(HeaderContentDisposition, mime.FormatMediaType("attachment", map[string]string{"filename": name}))
	if doc.Size >= 0 {
		h.Set(HeaderContentLength, strconv.FormatInt(doc.Size, 10))
	}
	c.WriteHeader(http.StatusOK)
	_, err = io.Copy(c.W, io.MultiReader(bytes.NewReader(head), doc.Body))
	if err != nil {
		c.server.cfg.Logger.Warn("document stream cut short", "requestId", c.RequestID, "error", err)
	}
	return nil
}
