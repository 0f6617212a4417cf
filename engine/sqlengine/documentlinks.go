package sqlengine

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"

	"fieldapi/engine"
)

// openLink opens the file a link document points to: an http(s) URL, a
// file: URL, or a local path (as the engine's administration entered it).
// A source that cannot be read is refused with the engine's text (422).
// The body streams; the caller closes it.
func (e *Engine) openLink(ctx context.Context, name, source string) (io.ReadCloser, int64, error) {
	unreachable := func(reason any) error {
		return engine.Refuse("document %q links to %s, which cannot be read: %v", name, source, reason)
	}
	path := source
	if u, err := url.Parse(source); err == nil {
		switch u.Scheme {
		case "http", "https":
			body, size, err := e.fetchLink(ctx, source)
			if err != nil {
				return nil, 0, unreachable(err)
			}
			return body, size, nil
		case "file":
			path = u.Path
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, unreachable(err)
	}
	info, err := f.Stat()
	if err != nil || info.IsDir() {
		f.Close()
		return nil, 0, unreachable("not a file")
	}
	return f, info.Size(), nil
}

// fetchLink GETs a linked URL. LinkTimeout bounds connecting and waiting
// for the answer, not reading the body, so large files stream to the end.
func (e *Engine) fetchLink(ctx context.Context, source string) (io.ReadCloser, int64, error) {
	timeout := e.opt.LinkTimeout
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
