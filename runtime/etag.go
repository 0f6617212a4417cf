package runtime

import (
	"net/http"

	"fieldapi/engine"
	"fieldapi/runtime/etag"
)

// ETags as calls send and read them (package etag).

// ifMatch reads the request's If-Match into the versions a write may find
// (etag.IfMatch).
func ifMatch(r *http.Request) ([]string, error) {
	return etag.IfMatch(HeaderIfMatch, r.Header.Get(HeaderIfMatch))
}

// noneMatch reports whether the request's If-None-Match names the version
// or is "*" (etag.NoneMatch).
func noneMatch(r *http.Request, version string) bool {
	return etag.NoneMatch(r.Header.Get(HeaderIfNoneMatch), version)
}

// sendRecord answers a read of one record: its ETag, and 304 without a
// body when the client holds that version already; else the record's
// read shape (written by shape.JSON, or else its view encoded).
func sendRecord[R any](c *Call, rec engine.Record, shape ReadShape, view func(engine.Record) R) error {
	version := rec.Version()
	c.W.Header().Set(HeaderETag, etag.Strong(version))
	if noneMatch(c.R, version) {
		c.WriteHeader(http.StatusNotModified)
		return nil
	}
	if shape.JSON == nil {
		return c.JSON(http.StatusOK, view(rec))
	}
	body, err := shape.JSON.Append(nil, rec)
	if err != nil {
		return err
	}
	c.send(http.StatusOK, "application/json", body)
	return nil
}
