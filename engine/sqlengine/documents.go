package sqlengine

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"io"
	"strings"

	"github.com/gabriel-vasile/mimetype"

	"fieldapi/catalog"
	"fieldapi/engine"
	"fieldapi/engine/docrender"
)

var _ engine.Documents = (*Engine)(nil)

// Documents on records (spec 4.3 rules 9 and 10), for the registers the
// catalog marks documents: true. A document is of one kind:
//
//	embedded  the file's bytes, kept in the engine (every API upload)
//	link      a path outside the engine: a local file or an http(s) URL,
//	          fetched when the document is read (docrender.Links)
//	html      an HTML text, such as a service report template, whose
//	          {{Field}} placeholders are filled from the record; read as a PDF
//	other     a print template of the record: a PDF of its fields
//
// PDFs are rendered by package docrender. HasContent says whether the engine
// keeps the content itself (embedded bytes or html text).

// The document kinds.
const (
	docEmbedded = "embedded"
	docLink     = "link"
	docHTML     = "html"
	docOther    = "other"
)

// documentsTable is the engine's table of documents (see schema.go).
const documentsTable = `CREATE TABLE IF NOT EXISTS "documents" (
		{seq},
		"company" TEXT NOT NULL,
		"register" TEXT NOT NULL,
		"record_seq" BIGINT NOT NULL,
		"name" TEXT NOT NULL,
		"doc_type" TEXT NOT NULL,
		"kind" TEXT NOT NULL,
		"is_internal" {bool} NOT NULL,
		"content" {bytes},
		"link_path" TEXT NOT NULL,
		"html" TEXT NOT NULL,
		"modified" TEXT NOT NULL)`

const documentsIndex = `CREATE INDEX IF NOT EXISTS "documents_record" ON "documents" ("company", "register", "record_seq")`

// document is a document to store; the field its kind uses is set.
type document struct {
	Name, DocType, Kind string
	Internal            bool
	Content             []byte // embedded
	LinkPath            string // link
	HTML                string // html
}

// addDocument stores a document on the record with the given seq and
// returns its id.
func (w *writer) addDocument(ctx context.Context, t *table, recordSeq int64, d document) (int64, error) {
	var id int64
	err := get(ctx, w.tx, &id, `INSERT INTO "documents"
		("company", "register", "record_seq", "name", "doc_type", "kind", "is_internal", "content", "link_path", "html", "modified")
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING "seq"`,
		w.s.Company, t.reg.Name, recordSeq, d.Name, d.DocType, d.Kind, d.Internal, d.Content, d.LinkPath, d.HTML, w.now)
	return id, err
}

// AddDocument stores an uploaded file as an embedded document and logs it
// on the record. Its DocType is the file type its content shows (PNG, PDF,
// TXT, ...). The receipt renders {Id, Nr, Name}.
func (e *Engine) AddDocument(ctx context.Context, s engine.Session, register, key string, doc engine.NewDocument, r engine.Receipt) (engine.Response, error) {
	return call(e, ctx, func(ctx context.Context) (engine.Response, error) {
		t, err := e.documented(register)
		if err != nil {
			return engine.Response{}, err
		}
		if err := e.authorizeWrite(ctx, s, register); err != nil {
			return engine.Response{}, err
		}
		name := strings.TrimSpace(doc.Name)
		if name == "" {
			return engine.Response{}, engine.Refuse("a document needs a name")
		}
		if err := refuseNUL("Name", name); err != nil {
			return engine.Response{}, err
		}
		var resp engine.Response
		err = e.inTx(ctx, func(tx *txn) error {
			rec, seq, err := e.findRecord(ctx, tx, t, s.Company, key)
			if err != nil {
				return err
			}
			w := e.apiWriter(tx, s)
			id, err := w.addDocument(ctx, t, seq, document{Name: name, DocType: docTypeOf(doc.Content), Kind: docEmbedded, Content: doc.Content})
			if err != nil {
				return err
			}
			if err := w.log(ctx, t, key, "add document", name, rec); err != nil {
				return err
			}
			added := engine.Record{"Id": float64(id), "Nr": key, "Name": name}
			if resp, err = storeReceipt(ctx, tx, r, added); err != nil {
				return err
			}
			w.emit(t, catalog.EventDocumentAdded, key, []string{"Documents"})
			return w.recordEvents(ctx, added)
		})
		return resp, err
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
func (e *Engine) ListDocuments(ctx context.Context, s engine.Session, register, key string) ([]engine.DocumentInfo, error) {
	return call(e, ctx, func(ctx context.Context) ([]engine.DocumentInfo, error) {
		t, err := e.documented(register)
		if err != nil {
			return nil, err
		}
		if err := e.authorize(ctx, e.db, s, register, readAccess); err != nil {
			return nil, err
		}
		_, seq, err := e.findRecord(ctx, e.db, t, s.Company, key)
		if err != nil {
			return nil, err
		}
		var rows []struct {
			ID         int64  `db:"seq"`
			Name       string `db:"name"`
			DocType    string `db:"doc_type"`
			Kind       string `db:"kind"`
			IsInternal bool   `db:"is_internal"`
			HasContent bool   `db:"has_content"`
			Modified   string `db:"modified"`
		}
		err = sel(ctx, e.db, &rows, `SELECT "seq", "name", "doc_type", "kind", "is_internal",
				("content" IS NOT NULL OR "html" <> '') AS "has_content", "modified"
			FROM "documents" WHERE "company" = ? AND "register" = ? AND "record_seq" = ?
			ORDER BY "seq" DESC`, s.Company, register, seq)
		if err != nil {
			return nil, err
		}
		list := make([]engine.DocumentInfo, len(rows))
		for i, r := range rows {
			list[i] = engine.DocumentInfo{ID: r.ID, Name: r.Name, DocType: r.DocType, Kind: r.Kind,
				IsInternal: r.IsInternal, HasContent: r.HasContent, Modified: r.Modified}
		}
		return list, nil
	})
}

// storedDocument is a document as read for its content.
type storedDocument struct {
	Name     string `db:"name"`
	Kind     string `db:"kind"`
	Content  []byte `db:"content"`
	LinkPath string `db:"link_path"`
	HTML     string `db:"html"`
	Modified string `db:"modified"`
}

// OpenDocument returns a document's content: embedded bytes as stored (read
// once, in the one query), a link's file as fetched from its path, and html
// and other documents as PDFs. A link that cannot be read is refused (422).
func (e *Engine) OpenDocument(ctx context.Context, s engine.Session, register, key string, id int64) (*engine.DocumentContent, error) {
	t, err := e.documented(register)
	if err != nil {
		return nil, err
	}
	type opened struct {
		doc storedDocument
		rec engine.Record
	}
	o, err := call(e, ctx, func(ctx context.Context) (opened, error) {
		var o opened
		if err := e.authorize(ctx, e.db, s, register, readAccess); err != nil {
			return o, err
		}
		_, seq, err := e.findRecord(ctx, e.db, t, s.Company, key)
		if err != nil {
			return o, err
		}
		err = get(ctx, e.db, &o.doc, `SELECT "name", "kind", "content", "link_path", "html", "modified" FROM "documents"
			WHERE "company" = ? AND "register" = ? AND "record_seq" = ? AND "seq" = ?`, s.Company, register, seq, id)
		if errors.Is(err, sql.ErrNoRows) {
			return o, engine.ErrNotFound
		}
		if err != nil || (o.doc.Kind != docHTML && o.doc.Kind != docOther) {
			return o, err
		}
		// A rendered document shows the record as read, extra fields included.
		o.rec, err = e.getRecordBySeq(ctx, e.db, t, s.Company, seq)
		return o, err
	})
	if err != nil {
		return nil, err
	}
	d := o.doc
	switch d.Kind {
	case docEmbedded:
		return &engine.DocumentContent{Name: d.Name, Size: int64(len(d.Content)), Body: io.NopCloser(bytes.NewReader(d.Content))}, nil
	case docLink:
		// Fetched with the caller's context, not the statement timeout:
		// the body streams after this call returns.
		body, size, err := docrender.Links{Timeout: e.opt.LinkTimeout}.Open(ctx, d.LinkPath)
		if err != nil {
			return nil, engine.Refuse("document %q links to %s, which cannot be read: %v", d.Name, d.LinkPath, err)
		}
		return &engine.DocumentContent{Name: d.Name, Size: size, Body: body}, nil
	}
	var pdf []byte
	at, _ := parseTime(d.Modified)
	if d.Kind == docHTML {
		pdf, err = docrender.HTML(d.Name, d.HTML, o.rec, at)
	} else {
		pdf, err = docrender.Print(d.Name, t.reg, o.rec, at)
	}
	if err != nil {
		return nil, err
	}
	return &engine.DocumentContent{Name: d.Name, Size: int64(len(pdf)), Body: io.NopCloser(bytes.NewReader(pdf))}, nil
}

// documented returns the table of a register that keeps documents.
func (e *Engine) documented(register string) (*table, error) {
	t, err := e.table(register)
	if err != nil {
		return nil, err
	}
	if !t.reg.Documents {
		return nil, engine.ErrNotFound
	}
	return t, nil
}

// findRecord reads a record's row (without extra fields and lines) and
// its seq, or ErrNotFound.
func (e *Engine) findRecord(ctx context.Context, q db, t *table, company, key string) (engine.Record, int64, error) {
	cond, arg, ok := t.keyMatch(key)
	if !ok {
		return nil, 0, engine.ErrNotFound
	}
	recs, seqs, err := e.fetch(ctx, q, t, company, " AND "+cond, arg)
	if err != nil {
		return nil, 0, err
	}
	if len(recs) == 0 {
		return nil, 0, engine.ErrNotFound
	}
	return recs[0], seqs[0], nil
}
