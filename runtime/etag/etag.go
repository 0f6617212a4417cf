// Package etag is the entity tags of optimistic concurrency (RFC 9110
// section 13): a record's ETag is its version (engine.Record.Version) in
// quotes. A write with If-Match goes ahead only while the record is still
// at that version; the engine checks under the lock it writes with, so of
// two writers holding one ETag exactly one wins. A GET with If-None-Match
// of the current version answers 304.
package etag

import (
	"slices"
	"strings"

	"fieldapi/runtime/problem"
)

// Strong is the strong entity tag of a record version.
func Strong(version string) string { return `"` + version + `"` }

// Weak is the weak entity tag of an answer's hash.
func Weak(tag string) string { return "W/" + Strong(tag) }

// entityTags splits a list of entity tags (If-Match, If-None-Match) into
// their opaque values, noting which are weak. ok is false when the header
// is not such a list.
func entityTags(header string) (tags []string, weak []bool, ok bool) {
	for _, part := range strings.Split(header, ",") {
		tag := strings.TrimSpace(part)
		isWeak := strings.HasPrefix(tag, "W/")
		tag = strings.TrimPrefix(tag, "W/")
		if len(tag) < 2 || tag[0] != '"' || tag[len(tag)-1] != '"' || strings.Contains(tag[1:len(tag)-1], `"`) {
			return nil, nil, false
		}
		tags = append(tags, tag[1:len(tag)-1])
		weak = append(weak, isWeak)
	}
	return tags, weak, true
}

// IfMatch reads an If-Match header into the versions a write may find:
// none when the header is absent or "*" (any current record). Weak tags
// never match a write (strong comparison), so a header of only weak tags
// is refused here. A refusal names the header as name.
func IfMatch(name, header string) ([]string, error) {
	header = strings.TrimSpace(header)
	if header == "" || header == "*" {
		return nil, nil
	}
	tags, weak, ok := entityTags(header)
	if !ok {
		return nil, problem.InvalidParameter(name, `not a list of entity tags such as "3f2a…" (use the ETag of the record as read)`)
	}
	var versions []string
	for i, tag := range tags {
		if !weak[i] {
			versions = append(versions, tag)
		}
	}
	if len(versions) == 0 {
		return nil, problem.PreconditionFailed()
	}
	return versions, nil
}

// NoneMatch reports whether an If-None-Match header names the version
// (weak comparison, as RFC 9110 13.1.2 asks) or is "*".
func NoneMatch(header, version string) bool {
	header = strings.TrimSpace(header)
	if header == "" {
		return false
	}
	if header == "*" {
		return true
	}
	tags, _, ok := entityTags(header)
	return ok && slices.Contains(tags, version)
}
