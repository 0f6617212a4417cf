// Package documents keeps documents on records (spec 4.3 rules 9 and 10)
// for the registers the catalog marks documents: true: engine.Documents,
// beside the pipeline, over the same store. A document is of one kind:
//
//	embedded  the file's bytes, kept in the engine (every API upload)
//	link      a path outside the engine: a local file or an http(s) URL,
//	          fetched when the document is read (docrender.Links)
//	html      an HTML text, such as a service report template, whose
//	          {{Field}} placeholders are filled from the record; read as a PDF
//	other     a print template of the record: a PDF of its fields
//
// PDFs are rendered by package docrender. HasContent says whether the
// engine keeps the content itself (embedded bytes or html text).
package documents

import (
	"bytes"
	"context"
	"io"
	"strings"
	"time"

	"github.com/gabriel-vasile/mimetype"

	"fieldapi/catalog"
	"fieldapi/engine"
	"fieldapi/engine/dataset"
	"fieldapi/engine/docrender"
	"fieldapi/engine/pipeline"
	"fieldapi/engine/pipeline/write"
	"fieldapi/engine/store"
)

// The document kinds.
const (
	embedded = "embedded"
	link     = "link"
	html     = "html"
	other    = "other"
)

// table keeps the documents; a document's id is its row's Seq.
const table = "documents"

// Tables is what the module keeps in the store: add it to the schema.
func Tables() []*store.Table {
	text := func(field string) store.Column {
		return store.Column{Field: field, Name: field, Type: store.Text, NotNull: true}
	}
	return []*store.Table{{
		Name: table, Company: true, Seq: true,
		Columns: []store.Column{
			text("register"), {Field: "record_seq", Name: "record_seq", Type: store.Int, NotNull: true},
			text("name"), text("doc_type"), text("kind"), {Field: "is_internal", Name: "is_internal", Type: store.Bool, NotNull: true},
			{Field: "content", Name: "content", Type: store.Bytes}, text("link_path"), text("html"), text("modified"),
		},
		Indexes: []store.Index{{Name: "documents_record", Fields: []string{"register", "record_seq"}}},
	}}
}

// Module is engine.Documents over the pipeline's engine.
type Module struct {
	e           *pipeline.Engine
	linkTimeout time.Duration
}

var _ engine.Documents = (*Module)(nil)

// New serves documents of e's registers, fetching linked ones with
// linkTimeout (0 = 10s), and adds the documents of imported records to
// e's import path.
func New(e *pipeline.Engine, linkTimeout time.Duration) *Module {
	if linkTimeout <= 0 {
		linkTimeout = 10 * time.Second
	}
	m := &Module{e: e, linkTimeout: linkTimeout}
	e.ImportsWith(m.importDocuments)
	return m
}

// add stores a document on the record with the given Seq and returns its id.
func add(ctx context.Context, tx store.Tx, company, register string, recordSeq int64, d dataset.Document, modified string) (int64, error) {
	seqs, err := tx.Insert(ctx, table, company, []store.Values{{
		"register": register, "record_seq": recordSeq, "name": d.Name, "doc_type": d.DocType, "kind": d.Kind,
		"is_internal": d.Internal, "content": d.Content, "link_path": d.LinkPath, "html": d.HTML, "modified": modified,
	}})
	if err != nil {
		return 0, err
	}
	return seqs[0], nil
}

// AddDocument stores an uploaded file as an embedded document and logs it
// on the record. Its DocType is the file type its content shows (PNG, PDF,
// TXT, ...). The receipt renders {Id, Nr, Name}.
func (m *Module) AddDocument(ctx context.Context, s engine.Session, register, key string, doc engine.NewDocument, rc engine.Receipt) (engine.Response, error) {
	if err := m.documented(register); err != nil {
		return engine.Response{}, err
	}
	name := strings.TrimSpace(doc.Name)
	if name == "" {
		return engine.Response{}, engine.Refuse("a document needs a name")
	}
	if strings.ContainsRune(name, 0) {
		return engine.Response{}, engine.Refuse("Name: text may not contain NUL characters")
	}
	return m.e.Write(ctx, s, register, rc, func(ctx context.Context, w *write.Writer) (engine.Record, error) {
		rec, seq, err := m.e.Row(ctx, w.Tx(), s.Company, register, key)
		if err != nil {
			return nil, err
		}
		id, err := add(ctx, w.Tx(), s.Company, register, seq, dataset.Document{Name: name, DocType: docTypeOf(doc.Content), Kind: embedded, Content: doc.Content}, w.Now())
		if err != nil {
			return nil, err
		}
		if err := w.Log(register, key, "add document", name, rec); err != nil {
			return nil, err
		}
		w.Emit(register, catalog.EventDocumentAdded, key, []string{"Documents"})
		return engine.Record{"Id": float64(id), "Nr": key, "Name": name}, nil
	})
}

// docTypeOf names the file type of a content, such as PNG or PDF.
func docTypeOf(content []byte) string {
	if ext := strings.TrimPrefix(mimetype.Detect(content).Extension(), "."); ext != "" {
		return strings.ToUpper(ext)
	}
	return "FILE"
}

// ListDocuments lists a record's documents, newest first, without content.
func (m *Module) ListDocuments(ctx context.Context, s engine.Session, register, key string) ([]engine.DocumentInfo, error) {
	seq, err := m.findRecord(ctx, s, register, key)
	if err != nil {
		return nil, err
	}
	ofRecord := []store.Cond{store.Equal("register", register), store.Equal("record_seq", seq)}
	rows, err := m.e.Store().Select(ctx, store.Select{Table: table, Company: s.Company, Where: ofRecord,
		Columns: []string{"name", "doc_type", "kind", "is_internal", "html", "modified"},
		OrderBy: []store.Order{{Field: store.SeqField, Desc: true}}})
	if err != nil {
		return nil, err
	}
	// Which keep bytes is asked apart, so a list never reads the contents.
	withBytes, err := m.e.Store().Select(ctx, store.Select{Table: table, Company: s.Company,
		Where: append(ofRecord, store.Cond{Field: "content", Op: store.NotNull}), Columns: []string{"kind"}})
	if err != nil {
		return nil, err
	}
	hasBytes := map[int64]bool{}
	for _, row := range withBytes {
		hasBytes[row.Seq] = true
	}
	list := make([]engine.DocumentInfo, len(rows))
	for i, row := range rows {
		d := fromRow(row.Values)
		list[i] = engine.DocumentInfo{ID: row.Seq, Name: d.Name, DocType: d.DocType, Kind: d.Kind,
			IsInternal: d.Internal, HasContent: hasBytes[row.Seq] || d.HTML != "", Modified: text(row.Values, "modified")}
	}
	return list, nil
}

// OpenDocument returns a document's content: embedded bytes as stored, a
// link's file as fetched from its path, and html and other documents as
// PDFs. A link that cannot be read is refused (422).
func (m *Module) OpenDocument(ctx context.Context, s engine.Session, register, key string, id int64) (*engine.DocumentContent, error) {
	seq, err := m.findRecord(ctx, s, register, key)
	if err != nil {
		return nil, err
	}
	rows, err := m.e.Store().Select(ctx, store.Select{Table: table, Company: s.Company, Where: []store.Cond{
		store.Equal("register", register), store.Equal("record_seq", seq), store.Equal(store.SeqField, id)}})
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, engine.ErrNotFound
	}
	d := fromRow(rows[0].Values)
	switch d.Kind {
	case embedded:
		return &engine.DocumentContent{Name: d.Name, Size: int64(len(d.Content)), Body: io.NopCloser(bytes.NewReader(d.Content))}, nil
	case link:
		// Fetched with the caller's context: the body streams after this returns.
		body, size, err := docrender.Links{Timeout: m.linkTimeout}.Open(ctx, d.LinkPath)
		if err != nil {
			return nil, engine.Refuse("document %q links to %s, which cannot be read: %v", d.Name, d.LinkPath, err)
		}
		return &engine.DocumentContent{Name: d.Name, Size: size, Body: body}, nil
	}
	// A rendered document shows the record as read, extra fields included.
	rec, err := m.e.RecordBySeq(ctx, m.e.Store(), s.Company, register, seq)
	if err != nil {
		return nil, err
	}
	at, _ := time.Parse("2006-01-02T15:04:05.000000Z", text(rows[0].Values, "modified"))
	var pdf []byte
	if d.Kind == html {
		pdf, err = docrender.HTML(d.Name, d.HTML, rec, at)
	} else {
		pdf, err = docrender.Print(d.Name, m.e.Catalog().Register(register), rec, at)
	}
	if err != nil {
		return nil, err
	}
	return &engine.DocumentContent{Name: d.Name, Size: int64(len(pdf)), Body: io.NopCloser(bytes.NewReader(pdf))}, nil
}

// findRecord authorizes a read of a register's documents and returns the
// Seq of the record, or ErrNotFound.
func (m *Module) findRecord(ctx context.Context, s engine.Session, register, key string) (int64, error) {
	if err := m.documented(register); err != nil {
		return 0, err
	}
	if err := m.e.Authorize(ctx, s, register, false); err != nil {
		return 0, err
	}
	_, seq, err := m.e.Row(ctx, m.e.Store(), s.Company, register, key)
	return seq, err
}

// documented refuses a register that keeps no documents (404).
func (m *Module) documented(register string) error {
	r := m.e.Catalog().Register(register)
	if r == nil || !r.Documents {
		return engine.ErrNotFound
	}
	return nil
}

func text(v store.Values, name string) string { s, _ := v[name].(string); return s }

// fromRow is a stored document.
func fromRow(v store.Values) dataset.Document {
	internal, _ := v["is_internal"].(bool)
	content, _ := v["content"].([]byte)
	return dataset.Document{Name: text(v, "name"), DocType: text(v, "doc_type"), Kind: text(v, "kind"), Internal: internal,
		Content: content, LinkPath: text(v, "link_path"), HTML: text(v, "html")}
}

// importDocuments stores the documents an imported record carries.
func (m *Module) importDocuments(ctx context.Context, tx store.Tx, company, register string, seq int64, rec dataset.Record) error {
	for _, d := range rec.Documents {
		if _, err := add(ctx, tx, company, register, seq, d, m.e.Now()); err != nil {
			return err
		}
	}
	return nil
}
