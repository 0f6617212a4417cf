package client

import (
	"encoding/json"
	"reflect"
	"time"
)

// Field is one field of a request body in one of three states:
//
//	client.Field[string]{}  // unset: not sent, the server leaves the field as it is
//	client.Null[string]()   // null: sent as null, which also leaves the field (spec 2.1)
//	client.Value("")        // a value: set it; "" clears a text field
//
// The zero Field is unset, so a body literal names only what it changes.
type Field[T any] struct {
	value T
	state fieldState
}

type fieldState uint8

const (
	unset fieldState = iota
	null
	set
)

// Value is a field set to v.
func Value[T any](v T) Field[T] { return Field[T]{value: v, state: set} }

// Null is a field sent as null.
func Null[T any]() Field[T] { return Field[T]{state: null} }

// IsZero reports whether the field is unset; encoding/json's omitzero
// leaves unset fields out of the body.
func (f Field[T]) IsZero() bool { return f.state == unset }

// IsNull reports whether the field is sent as null.
func (f Field[T]) IsNull() bool { return f.state == null }

// Get returns the value and whether one is set.
func (f Field[T]) Get() (T, bool) { return f.value, f.state == set }

// MarshalJSON writes the value, or null. A set nil list or map is sent
// as [] or {} (which clears it), never as null (which would leave it).
func (f Field[T]) MarshalJSON() ([]byte, error) {
	if f.state != set {
		return []byte("null"), nil
	}
	switch v := reflect.ValueOf(f.value); {
	case v.Kind() == reflect.Slice && v.IsNil():
		return []byte("[]"), nil
	case v.Kind() == reflect.Map && v.IsNil():
		return []byte("{}"), nil
	}
	return json.Marshal(f.value)
}

// UnmarshalJSON reads a value or null, so bodies can round-trip.
func (f *Field[T]) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		*f = Null[T]()
		return nil
	}
	var v T
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*f = Value(v)
	return nil
}

// Date is a date or date-time as the server stores it (ISO 8601, kept as
// sent): 2026-05-04, 2026-05-04T08:00:00 or 2026-05-04T08:00:00+02:00.
type Date string

// The layouts Date.Time understands, most precise first.
var dateLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02T15:04", "2006-01-02"}

// Time parses the date. A value without a zone is read as UTC; use
// time.ParseInLocation on the string for the company's time zone.
func (d Date) Time() (time.Time, error) {
	var err error
	for _, layout := range dateLayouts {
		var t time.Time
		if t, err = time.Parse(layout, string(d)); err == nil {
			return t, nil
		}
	}
	return time.Time{}, err
}

// DateOf is the date of t (2026-05-04), for date fields.
func DateOf(t time.Time) Date { return Date(t.Format("2006-01-02")) }

// DateTimeOf is t to the second with its zone (2026-05-04T08:00:00+02:00).
func DateTimeOf(t time.Time) Date { return Date(t.Format(time.RFC3339)) }

// Ptr returns a pointer to v, for the optional number and bool filters of
// list parameters.
func Ptr[T any](v T) *T { return &v }
