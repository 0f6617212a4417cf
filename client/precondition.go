package client

import (
	"context"
	"errors"
	"strings"
)

// Optimistic concurrency: every record answer (Get, Create, Update,
// actions, line posts) carries the record's version as an ETag (read it
// with WithResponse). Sending it back as If-Match makes a change go ahead
// only while nobody else has changed the record since it was read; the
// server answers a stale one 412, which errors.Is matches as
// ErrPreconditionFailed, and writes nothing. Sending it as If-None-Match
// makes a Get answer ErrNotModified while the record is still at that
// version, without sending it again.

// ErrNotModified is what Get returns under WithIfNoneMatch while the record
// is still at the version named (304): keep the copy you hold. It is no
// *Problem, since nothing went wrong.
var ErrNotModified = errors.New("fieldapi: not modified")

type ifMatchContext struct{}

type ifNoneMatchContext struct{}

type createOnlyContext struct{}

// WithCreateOnly makes an Upsert made with ctx create the record only: it
// fails with ErrPreconditionFailed, and changes nothing, when a record has
// the key already (If-None-Match: *). Its opposite, update only, is
// WithIfMatch(ctx, "*"): ErrPreconditionFailed when no record has the key.
// Other calls refuse such a context.
func WithCreateOnly(ctx context.Context) context.Context {
	return context.WithValue(ctx, createOnlyContext{}, true)
}

// WithIfMatch makes Update, the actions (Tasks.SetStatus, ...) and the line
// posts (Tasks.AddMaterial, ...) made with ctx change the record only while
// it is still at etag, the ETag of a Get or an earlier write (a line post
// names its owner's). A stale etag fails with ErrPreconditionFailed and
// changes nothing, and is never retried: Get the record again, reapply the
// change and send the new ETag. Other writes (Create, PinLocation,
// UploadDocument) cannot be made conditional and refuse such a context
// rather than write unconditionally; reads ignore it. An empty etag (a
// replayed answer has none) is refused too, for the same reason.
func WithIfMatch(ctx context.Context, etag string) context.Context {
	return context.WithValue(ctx, ifMatchContext{}, quoteETag(etag))
}

// WithIfNoneMatch makes Get, made with ctx, answer ErrNotModified while the
// record is still at etag, and the record as usual once it has changed.
// An empty etag (nothing held yet) reads as usual; other calls ignore it.
func WithIfNoneMatch(ctx context.Context, etag string) context.Context {
	return context.WithValue(ctx, ifNoneMatchContext{}, quoteETag(etag))
}

// quoteETag accepts an ETag as the server sent it ("3f2a…") or its bare
// value (3f2a…), and "*" (any version).
func quoteETag(etag string) string {
	etag = strings.TrimSpace(etag)
	if etag == "" || etag == "*" || strings.HasSuffix(etag, `"`) {
		return etag
	}
	return `"` + etag + `"`
}

// preconditions are the headers a call sends from its context: If-Match on
// a conditional write, If-None-Match on a conditional read. A write that
// cannot be conditional fails when the context asks for If-Match.
func preconditions(ctx context.Context, req request) (ifMatch, ifNoneMatch string, err error) {
	ifMatch, conditional := ctx.Value(ifMatchContext{}).(string)
	ifNoneMatch, _ = ctx.Value(ifNoneMatchContext{}).(string)
	createOnly, _ := ctx.Value(createOnlyContext{}).(bool)
	switch {
	case createOnly && !req.upsert:
		return "", "", errors.New("fieldapi: " + req.method + " " + req.path + " cannot be create-only: WithCreateOnly is for Upsert")
	case createOnly && conditional:
		return "", "", errors.New("fieldapi: WithCreateOnly and WithIfMatch together never write: choose one")
	case createOnly:
		return "", "*", nil
	case !req.isWrite():
		if req.conditional {
			return "", ifNoneMatch, nil
		}
		return "", "", nil
	case !conditional:
		return "", "", nil
	case !req.conditional:
		return "", "", errors.New("fieldapi: " + req.method + " " + req.path + " cannot be conditional: WithIfMatch is for Update, actions and line posts")
	case ifMatch == "":
		return "", "", errors.New("fieldapi: WithIfMatch got an empty ETag (a replayed answer carries none: Get the record for its version)")
	}
	return ifMatch, "", nil
}
