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
// body when the client holds that version already.
func (c *Call) sendRecord(rec engine.Record, view any) error {
	version := rec.Version()
	c.W.Header().Set(HeaderETag, etag.Strong(version))
	if noneMatch(c.R, version) {
		c.WriteHeader(http.StatusNotModified)
		return nil
	}
	return c.JSON(http.StatusOK, view)
}
