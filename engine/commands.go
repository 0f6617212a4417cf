package engine

import (
	"context"
	"io"
)

// Commands are writes on an existing record beyond PATCH: adding a line
// (POST /v1/tasks/{nr}/times) and named actions (POST /v1/tasks/{nr}/status).
type Commands interface {
	// AddLine creates one line of the named line list on the record.
	AddLine(ctx context.Context, s Session, register, key, line string, in Input, r Receipt) (Response, error)
	// Act runs a named action on the record; the receipt renders the record after it.
	Act(ctx context.Context, s Session, register, key, action string, in Input, r Receipt) (Response, error)
}

// Locations reads and pins the stored positions of records (spec 2.5).
type Locations interface {
	// Location reads a record's position; Locate asks the engine to
	// recalculate it first (Force: even when one exists). A fixed position
	// is never recalculated.
	Location(ctx context.Context, s Session, register, key string, opt Locate) (Location, error)
	// PinLocation fixes a record's position; the engine's geocoding never
	// overwrites it. The receipt renders the location as a record.
	PinLocation(ctx context.Context, s Session, register, key string, pin Pin, r Receipt) (Response, error)
}

// Locate says whether to recalculate a position before reading it.
type Locate struct {
	Locate bool
	Force  bool
}

// Pin is a fixed position.
type Pin struct {
	Latitude  float64
	Longitude float64
	Address   string
}

// Location is a record's stored position (spec 2.5).
type Location struct {
	Latitude   *float64 `json:"Latitude"`
	Longitude  *float64 `json:"Longitude"`
	Address    string   `json:"Address"`
	Status     string   `json:"Status"`
	SourceType string   `json:"SourceType"`
	Provider   string   `json:"Provider"`
	Fixed      bool     `json:"Fixed"`
	Ambiguous  bool     `json:"Ambiguous"`
}

// Documents keeps files on records (spec 4.3 rules 9 and 10).
type Documents interface {
	// AddDocument stores an uploaded file; the receipt renders a record
	// with Id, Nr (the owner's key) and Name.
	AddDocument(ctx context.Context, s Session, register, key string, doc NewDocument, r Receipt) (Response, error)
	// ListDocuments lists a record's documents without content.
	ListDocuments(ctx context.Context, s Session, register, key string) ([]DocumentInfo, error)
	// OpenDocument returns a document's content: embedded files as stored,
	// links fetched from their path, html and other kinds rendered as PDF.
	OpenDocument(ctx context.Context, s Session, register, key string, id int64) (*DocumentContent, error)
}

// NewDocument is an upload.
type NewDocument struct {
	Name    string
	Content []byte
}

// DocumentInfo is one document of a record, without content (spec 2.5).
type DocumentInfo struct {
	ID         int64  `json:"Id"`
	Name       string `json:"Name"`
	DocType    string `json:"DocType"`
	Kind       string `json:"Kind"` // embedded, link, html or other
	IsInternal bool   `json:"IsInternal"`
	HasContent bool   `json:"HasContent"`
	Modified   string `json:"Modified"`
}

// DocumentContent is an open document; the caller closes Body.
type DocumentContent struct {
	Name string
	Size int64 // -1 when unknown
	Body io.ReadCloser
}

// ChangeLog reads the engine's own log of the writes on a record (spec 1:
// every write adds a row, signed and marked as made via the API; a line's
// write is logged on its owner too).
type ChangeLog interface {
	// Changes lists a record's log entries, newest first; ErrNotFound
	// when the record does not exist.
	Changes(ctx context.Context, s Session, register, key string, q ChangeQuery) ([]Change, error)
}

// ChangeQuery selects entries of a record's log.
type ChangeQuery struct {
	Action string // only this action's entries ("note"); "" = every entry
	Limit  int    // at most this many, newest first; 0 = 100
}

// Change is one entry of a record's change log.
type Change struct {
	At       string `json:"At"`       // when, UTC
	Action   string `json:"Action"`   // create, update, status, note, create line, ...
	Detail   string `json:"Detail"`   // what changed, as the engine wrote it
	Sign     string `json:"Sign"`     // the signature that wrote it
	ClientID string `json:"ClientId"` // the key's client id
	ViaAPI   bool   `json:"ViaApi"`   // written through the API
}
