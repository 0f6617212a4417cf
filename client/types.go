package client

import "io"

// Page is one page of a list, newest first.
type Page[T any] struct {
	Items      []T    `json:"items"`
	NextCursor string `json:"nextCursor"` // pass as Cursor for the next page; "" on the last page
	Page       int    `json:"page"`       // the page number, when paging by Page
	Total      *int   `json:"total"`      // rows matching the filters; nil for registers the engine does not count
	// TotalEstimated is true when Total is the database's estimate (Count: CountEstimated).
	TotalEstimated bool `json:"totalEstimated"`
}

// ExtraFieldDef describes one of the company's own fields of a register.
type ExtraFieldDef struct {
	Key      string   `json:"Key"` // the key in ExtraFields
	Name     string   `json:"Name"`
	Category string   `json:"Category"`
	Type     string   `json:"Type"`
	Writable bool     `json:"Writable"`
	ReadOnly bool     `json:"ReadOnly"`
	Computed bool     `json:"Computed"`
	Options  []string `json:"Options"` // the values a choice allows
}

// Location is the position of a record.
type Location struct {
	Latitude   *float64 `json:"Latitude"` // nil until located
	Longitude  *float64 `json:"Longitude"`
	Address    string   `json:"Address"`
	Status     string   `json:"Status"`     // such as Pending, Located, Failed
	SourceType string   `json:"SourceType"` // what the position came from
	Provider   string   `json:"Provider"`   // the geocoder, or pinned
	Fixed      bool     `json:"Fixed"`      // pinned: geocoding never overwrites it
	Ambiguous  bool     `json:"Ambiguous"`  // the geocoder found several places
}

// LocateOptions are the parameters of reading a location.
type LocateOptions struct {
	Locate bool // recalculate the position first, unless it is fixed
	Force  bool // recalculate even a position that was already found
}

// Pin is a fixed position for PinLocation.
type Pin struct {
	Latitude  float64 `json:"latitude"`
	Longitude float64 `json:"longitude"`
	Address   string  `json:"address,omitempty"`
}

// Document is the answer to an upload.
type Document struct {
	ID   int64  `json:"id"`   // the document's id, for DownloadDocument
	Nr   string `json:"nr"`   // the owner's key
	Name string `json:"name"` // the file name as stored
}

// DocumentInfo describes one document of a record, without its content.
type DocumentInfo struct {
	ID         int64  `json:"Id"`
	Name       string `json:"Name"`
	DocType    string `json:"DocType"`
	Kind       string `json:"Kind"` // embedded, link, html or other
	IsInternal bool   `json:"IsInternal"`
	HasContent bool   `json:"HasContent"`
	Modified   Date   `json:"Modified"`
}

// DocumentContent is a downloaded document; the caller closes Body.
type DocumentContent struct {
	Body        io.ReadCloser
	ContentType string // sniffed by the server from the content
	FileName    string // from Content-Disposition
	Size        int64  // -1 when unknown
}

// Change is an entry of a record's change log: the engine's own log of
// every write (a line's write is logged on its owner too).
type Change struct {
	At       Date   `json:"At"`       // when the write was made, UTC
	Action   string `json:"Action"`   // create, update, status, note, create line, …
	Detail   string `json:"Detail"`   // what changed, as the engine wrote it: fields sent, a status move, a note's text
	Sign     string `json:"Sign"`     // the signature the write was made with
	ClientID string `json:"ClientId"` // the client id of the key that made it
	ViaAPI   bool   `json:"ViaApi"`   // made through the API
}

// ChangeParams are the parameters of reading a record's change log.
type ChangeParams struct {
	Limit  int    // how many of the newest entries: 50 when 0, at most 500
	Action string // only this action's entries (update, status, note, create line …); "" every action's
}
