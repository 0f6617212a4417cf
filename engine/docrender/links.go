package docrender

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"time"
)

// Links opens link documents. Timeout bounds connecting to a linked URL
// and waiting for its answer, not reading the body, so large files stream
// to the end; zero means no bound.
type Links struct {
	Timeout time.Duration
}

// Open opens the file a link document points to: an http(s) URL, a file:
// URL, or a local path (as the engine's administration entered it). The
// error of a source that cannot be read says why. The body streams, with
// its size (-1 when the server does not say); the caller closes it.
func (l Links) Open(ctx context.Context, source string) (io.ReadCloser, int64, error) {
	path := source
	if u, err := url.Parse(source); err == nil {
		switch u.Scheme {
		case "http", "https":
			return l.fetch(ctx, source)
		case "file":
			path = u.Path
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	info, err := f.Stat()
	if err != nil || info.IsDir() {
		f.Close()
		return nil, 0, errors.New("not a file")
	}
	return f, info.Size(), nil
}

// fetch GETs a linked URL.
func (l Links) fetch(ctx context.Context, source string) (io.ReadCloser, int64, error) {
	timeout := l.Timeout
	transport := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: timeout}).DialContext,
		TLSHandshakeTimeout:   timeout,
		ResponseHeaderTimeout: timeout,
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, source, nil)
	if err != nil {
		return nil, 0, err
	}
	resp, err := (&http.Client{Transport: transport}).Do(req)
	if err != nil {
		transport.CloseIdleConnections()
		return nil, 0, err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		transport.CloseIdleConnections()
		return nil, 0, fmt.Errorf("the server answered %s", resp.Status)
	}
	return linkBody{resp.Body, transport}, resp.ContentLength, nil
}

// linkBody is a fetched body that releases its connection when closed.
type linkBody struct {
	io.ReadCloser
	transport *http.Transport
}

func (b linkBody) Close() error {
	err := b.ReadCloser.Close()
	b.transport.CloseIdleConnections()
	return err
}
