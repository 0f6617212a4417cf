// Package dataset is the shape of data an engine imports as it is: a
// company's records, settings and definitions, written by the engine's own
// load path (the demo companies, or data brought over from another system)
// rather than through the API. An import sets any field, logs nothing in
// the change log and checks no status transition: the data is taken to be
// consistent already. The JSON tags are the format of the demo package's
// data files.
package dataset

import "fieldapi/engine"

// Company is the data of one company, imported batch by batch in order,
// all in one transaction: a batch that fails leaves nothing of the import.
type Company struct {
	ID      string  `json:"id"`
	Name    string  `json:"name"`
	Batches []Batch `json:"batches"`
}

// Batch is one part of a company's data. The importer records its Name as
// a setting of the company and skips a batch it has imported before, so an
// import can run again without adding anything and a batch added later
// still runs on an existing database. A batch naming a register the
// catalog lacks is skipped until the register exists.
type Batch struct {
	Name           string             `json:"name"`
	Settings       []Setting          `json:"settings,omitempty"` // kept where the company has the setting already
	ExtraFieldDefs []ExtraFieldDef    `json:"extraFieldDefs,omitempty"`
	FieldNames     []engine.FieldName `json:"fieldNames,omitempty"`
	Registers      []Register         `json:"registers,omitempty"`
}

// Setting is one company setting, such as the time zone ("timezone").
type Setting struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// ExtraFieldDef defines an extra field of a register. A field with an
// SQLExpr is computed from the record's row on read, never written.
type ExtraFieldDef struct {
	Register string   `json:"register"`
	Key      string   `json:"key"`
	Name     string   `json:"name"`
	Category string   `json:"category"`
	Type     string   `json:"type"`
	ReadOnly bool     `json:"readOnly,omitempty"`
	Options  []string `json:"options,omitempty"`
	SQLExpr  string   `json:"sqlExpr,omitempty"`
}

// Register holds records of one register, written in order.
type Register struct {
	Name    string   `json:"register"`
	Records []Record `json:"records"`
}

// Record is one record as it is stored: Values by catalog field name (a
// field left out is empty), with what the engine keeps beside it.
type Record struct {
	Values      map[string]any    `json:"values"`
	Extra       map[string]string `json:"extra,omitempty"`       // extra-field values by key
	Permissions string            `json:"permissions,omitempty"` // users only: the signature's permissions ("*" = all)
	Documents   []Document        `json:"documents,omitempty"`
	Location    *engine.Location  `json:"location,omitempty"` // a position stored as it is
}

// Document is a document kept on a record. Kind says which of Content
// (embedded), LinkPath (link) or HTML (html template) it uses; "other" is a
// print of the record's fields and uses none.
type Document struct {
	Name     string `json:"name"`
	DocType  string `json:"docType"`
	Kind     string `json:"kind"`
	Internal bool   `json:"internal,omitempty"`
	Content  []byte `json:"content,omitempty"`
	LinkPath string `json:"linkPath,omitempty"`
	HTML     string `json:"html,omitempty"`
}
