package engine

import (
	"context"
	"fmt"
	"slices"
)

// Shape narrows and widens what a read returns of each record (fields=
// and expand= of a list or get). The zero Shape is the record as read.
type Shape struct {
	// Fields names the register's fields to read, PascalCase: the key and
	// whatever the read needs itself are read as well. nil reads every field.
	Fields []string
	// Lines narrows the line lists named in Fields, by list name: the
	// fields each line is read with (its key always). A list not here is
	// read whole.
	Lines map[string][]string
	// Expand names the related records to read with each record, as the
	// catalog declares them (Register.Expansions).
	Expand []Expand
}

// Expand asks for one relation of the catalog read with each record: the
// record a reference field names (nil when it names none), or a line list
// the read shape does not carry.
type Expand struct {
	Name   string   // the expansion's name, as the catalog declares it (Customer)
	Fields []string // the expanded records' fields, as Shape.Fields; nil: every field
	// MaxLines, for a line list, is the most lines a record may carry (0:
	// no limit); a record with more refuses the read (*TooManyLinesError)
	// before its lines are all read.
	MaxLines int
}

// TooManyLinesError refuses a read whose expanded line list carries more
// lines on some record than Expand.MaxLines allows.
type TooManyLinesError struct {
	Expansion string // Materials
	Most      int    // Expand.MaxLines
}

func (e *TooManyLinesError) Error() string {
	return fmt.Sprintf("a record has more than %d %s, more than an expansion carries; read them from their own list", e.Most, e.Expansion)
}

// Shaped reports whether the shape asks for anything but the record as read.
func (s Shape) Shaped() bool { return s.Fields != nil || len(s.Expand) > 0 }

// ShapedReads is the capability of reading one record shaped; a list is
// shaped by Query.Shape.
type ShapedReads interface {
	// GetShaped is Engine.Get with a shape.
	GetShaped(ctx context.Context, s Session, register, key string, shape Shape) (Record, error)
	// GetByShaped is Upserts.GetBy with a shape.
	GetByShaped(ctx context.Context, s Session, register string, by KeyRef, shape Shape) (Record, error)
}

// The query parameters every list takes besides its filters, named once
// for the HTTP layer and the catalog; fields and expand shape a get too.
const (
	FieldsParam = "fields"
	ExpandParam = "expand"
	CountParam  = "count"
	SortParam   = "sort"
)

// listParams is read only: ListParams hands out copies.
var listParams = [...]string{"limit", "page", "cursor", "modifiedSince", "modifiedBefore", CountParam, SortParam, FieldsParam, ExpandParam}

// ListParams are the parameters every list takes besides its filters.
func ListParams() []string { return slices.Clone(listParams[:]) }

// IsListParam reports whether every list takes name, without copying.
func IsListParam(name string) bool { return slices.Contains(listParams[:], name) }
