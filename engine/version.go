package engine

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
)

// ErrPreconditionFailed: the write named the record's version (If-Match)
// and the record has changed since (HTTP 412). Nothing was written.
var ErrPreconditionFailed = errors.New("precondition failed: the record has changed since the version given")

// VersionField is where an engine may put a record's version itself (a
// row version column, say). Without it, the version is a hash of the record.
const VersionField = "@version"

// Version identifies the state of a record as read, for a strong ETag:
// VersionField if set, else 128 bits of a SHA-256 over the fields (names
// sorted, every value typed and length-prefixed). An engine computes it
// when answering and under its row lock from the same read, so they agree.
func (r Record) Version() string {
	if v, ok := r[VersionField].(string); ok {
		return v
	}
	sum := sha256.Sum256(appendRecord(make([]byte, 0, 1024), r))
	return hex.EncodeToString(sum[:16])
}

// The version's input is built by appending to one buffer, not by JSON:
// a version is computed on every read, so it must cost little. Each value
// carries a type tag, and text its length, so no two records give the
// same input.

func appendText(b []byte, tag byte, s string) []byte {
	b = strconv.AppendInt(append(b, tag), int64(len(s)), 10)
	return append(append(b, ':'), s...)
}

func appendCount(b []byte, tag byte, n int) []byte {
	return append(strconv.AppendInt(append(b, tag), int64(n), 10), ';')
}

// fewKeys is how many keys sortedKeys sorts without allocating: more
// than the fields of any record of the catalog.
const fewKeys = 64

// sortedKeys returns a map's keys in order, in buf's array when they fit
// (callers pass one of fewKeys on their stack: no allocation).
// slices.Sort cost a GET of one task about 5 % of its CPU, each comparison
// reading both strings; here each key is insertion-sorted by its first 8
// bytes as a big-endian uint64 (zero-padded, so they order as the strings
// do), comparing strings only on a tie. Insertion sort is quadratic, so a
// larger map goes to slices.Sort.
func sortedKeys[V any](m map[string]V, buf []string) []string {
	keys := buf[:0]
	if len(m) > fewKeys {
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		return keys
	}
	var heads [fewKeys]uint64 // heads[i]: the first 8 bytes of keys[i]
	for k := range m {
		var b [8]byte
		copy(b[:], k)
		h := binary.BigEndian.Uint64(b[:])
		i := len(keys)
		keys = append(keys, k)
		for ; i > 0 && (h < heads[i-1] || h == heads[i-1] && k < keys[i-1]); i-- {
			heads[i], keys[i] = heads[i-1], keys[i-1]
		}
		heads[i], keys[i] = h, k
	}
	return keys
}

func appendRecord(b []byte, r Record) []byte {
	names := sortedKeys(r, make([]string, 0, fewKeys))
	b = appendCount(b, '{', len(names))
	for _, name := range names {
		b = appendValue(appendText(b, 'k', name), r[name])
	}
	return b
}

func appendValue(b []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(b, 'n')
	case string:
		return appendText(b, 's', v)
	case float64:
		return append(strconv.AppendFloat(append(b, 'f'), v, 'g', -1, 64), ';')
	case bool:
		return strconv.AppendBool(append(b, 'b'), v)
	case []string:
		b = appendCount(b, '[', len(v))
		for _, s := range v {
			b = appendText(b, 's', s)
		}
		return b
	case map[string]string:
		keys := sortedKeys(v, make([]string, 0, fewKeys))
		b = appendCount(b, 'm', len(keys))
		for _, k := range keys {
			b = appendText(appendText(b, 'k', k), 's', v[k])
		}
		return b
	case Record:
		return appendRecord(b, v)
	case []Record:
		b = appendCount(b, 'L', len(v))
		for _, rec := range v {
			b = appendRecord(b, rec)
		}
		return b
	default: // a type outside Record's documented ones: its JSON
		data, _ := json.Marshal(v)
		return appendText(b, 'j', string(data))
	}
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
