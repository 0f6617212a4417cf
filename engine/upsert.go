package engine

import (
	"context"
	"fmt"
)

// Upserts writes a record by a key the caller chose (PUT): a sync job that
// knows its records by its own numbers writes them in one call, exactly
// once however many workers send the same key at the same moment.
type Upserts interface {
	// Upsert creates the record the key names when the company has none
	// (with the create's rules; its lines as a create takes them), or
	// changes the fields present on the one it has (with the update's
	// rules; values equal to the stored ones are no change). The receipt
	// renders the answer of whichever ran. Two parallel upserts of one new
	// key create one record: the one that loses the race updates it.
	Upsert(ctx context.Context, s Session, register string, by KeyRef, in Input, only Presence, r UpsertReceipt) (Response, error)
	// GetBy returns the record a key names, or ErrNotFound.
	GetBy(ctx context.Context, s Session, register string, by KeyRef) (Record, error)
}

// KeyRef names a record by a unique field: the register's key, or a field
// the catalog declares a lookup key.
type KeyRef struct {
	Field string // PascalCase field name
	Value string
}

// Presence is the condition an upsert sets on the record being there
// (RFC 9110 If-Match: * and If-None-Match: *).
type Presence uint8

// The presence conditions.
const (
	CreateOrUpdate Presence = iota // no condition
	UpdateOnly                     // If-Match (a tag or *): absent is ErrPreconditionFailed
	CreateOnly                     // If-None-Match: *: present is ErrPreconditionFailed
)

// UpsertReceipt renders an upsert's answer in its transaction, as Receipt
// does: Created when it created the record, Updated when it found it.
type UpsertReceipt struct {
	Claim   Claim
	Created func(Record) (Response, error)
	Updated func(Record) (Response, error)
}

// KeyTakenError: a write would give a record the key or lookup-key value
// another record of the company has; nothing was written. A taken record
// key is a refusal (HTTP 422, as for any refused create), a taken
// lookup-key value a conflict (HTTP 409).
type KeyTakenError struct {
	Record string // the record type: Customer
	Field  string // the unique field: Nr, ExternalId
	Value  string
	Lookup bool // Field is a lookup key (or may be: the store could not say which)
}

func (e *KeyTakenError) Error() string {
	if e.Value == "" { // the store could not say which unique field it was
		return fmt.Sprintf("another %s has the same %s", e.Record, e.Field)
	}
	return fmt.Sprintf("%s %s %s already exists", e.Record, e.Field, e.Value)
}
