package decode

import (
	"errors"
	"io"
	"mime"
	"net/http"

	"fieldapi/runtime/problem"
)

// Read reads the JSON body of r, whose Content-Type header is contentType,
// enforcing the size limit while reading.
func Read(w http.ResponseWriter, r *http.Request, contentType string, limit int64) ([]byte, error) {
	if r.ContentLength > limit {
		return nil, problem.PayloadTooLarge(limit)
	}
	if contentType != "" {
		mt, _, err := mime.ParseMediaType(contentType)
		if err != nil || (mt != "application/json" && !hasJSONSuffix(mt)) {
			return nil, problem.UnsupportedMediaType(contentType)
		}
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return nil, problem.PayloadTooLarge(limit)
	}
	if err != nil {
		return nil, problem.MalformedBody("the body could not be read")
	}
	return body, nil
}

func hasJSONSuffix(mt string) bool { return len(mt) > 5 && mt[len(mt)-5:] == "+json" }
