package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"slices"
)

// ErrPreconditionFailed: the write named the record's version (If-Match)
// and the record has changed since (HTTP 412). Nothing was written.
var ErrPreconditionFailed = errors.New("precondition failed: the record has changed since the version given")

// VersionField is where an engine may put a record's version itself (a
// row version column, say). Without it, the version is a hash of the record.
const VersionField = "@version"

// Version identifies the state of a record as read: it changes whenever
// anything the record shows changes, so the HTTP layer sends it as a strong
// ETag. An engine that sets VersionField decides it; otherwise it is the
// SHA-256 of the record's JSON (map keys sorted), shortened to 128 bits.
// An engine computes it both when answering and under its row lock, from
// the same read, so the two agree.
func (r Record) Version() string {
	if v, ok := r[VersionField].(string); ok {
		return v
	}
	data, err := json.Marshal(r)
	if err != nil {
		return "" // a record of the documented value types always marshals
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:16])
}

// CheckVersion is the precondition of a write: the record as locked must
// still be at one of the versions the caller names (Input.IfMatch). No
// versions named means no precondition.
func (in Input) CheckVersion(current Record) error {
	if len(in.IfMatch) == 0 || slices.Contains(in.IfMatch, current.Version()) {
		return nil
	}
	return ErrPreconditionFailed
}
