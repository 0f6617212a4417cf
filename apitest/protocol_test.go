package apitest

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"fieldapi/runtime"
)

// rawExchange writes request bytes to the service over TCP and reads one
// response.
func rawExchange(t *testing.T, env *Env, request string) Response {
	t.Helper()
	u, err := url.Parse(env.URL)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.DialTimeout("tcp", u.Host, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	go io.WriteString(conn, request) // net/http may answer before reading it all
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("reading the answer to %.60q: %v", request, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return Response{Status: resp.StatusCode, Header: resp.Header, Body: body}
}

// TestProtocolErrors: oversized headers are answered as a problem with the
// request id; what net/http answers itself before any handler runs (a
// request it cannot parse, an unknown HTTP version, headers over its own
// limit) stays plain text, as the README documents. Should net/http change,
// this test says the README must change too.
func TestProtocolErrors(t *testing.T) {
	env := Start(t, Backends(t)[0], runtime.Config{})
	key := "Authorization: Bearer " + env.Key + "\r\n"

	t.Run("headers over 64 KB: 431 problem", func(t *testing.T) {
		is := is.New(t)
		resp := rawExchange(t, env, "GET /v1/whoami HTTP/1.1\r\nHost: x\r\n"+key+
			"X-Padding: "+strings.Repeat("p", 100<<10)+"\r\nX-Request-Id: big-headers-1\r\n\r\n")
		is.Equal(resp.Status, http.StatusRequestHeaderFieldsTooLarge)
		p := resp.Problem(t)
		is.Equal(p.Title, "headers_too_large")
		is.Equal(p.RequestID, "big-headers-1")
	})

	for name, c := range map[string]struct {
		request string
		status  int
	}{
		"unknown HTTP version":           {"GET /v1/whoami HTTP/9.9\r\nHost: x\r\n\r\n", http.StatusHTTPVersionNotSupported},
		"unparsable request line":        {"GARBAGE\r\n\r\n", http.StatusBadRequest},
		"header line without a colon":    {"GET /v1/whoami HTTP/1.1\r\nHost: x\r\nNoColon\r\n\r\n", http.StatusBadRequest},
		"HTTP/1.1 without Host":          {"GET /v1/whoami HTTP/1.1\r\n\r\n", http.StatusBadRequest},
		"NUL in a header value":          {"GET /v1/whoami HTTP/1.1\r\nHost: x\r\nX-A: a\x00b\r\n\r\n", http.StatusBadRequest},
		"headers over net/http's limit":  {"GET /v1/whoami HTTP/1.1\r\nHost: x\r\nX-Padding: " + strings.Repeat("p", 2<<20) + "\r\n\r\n", http.StatusRequestHeaderFieldsTooLarge},
		"invalid escape in request path": {"GET /v1/customers/%zz HTTP/1.1\r\nHost: x\r\n\r\n", http.StatusBadRequest},
	} {
		t.Run("net/http answers itself: "+name, func(t *testing.T) {
			resp := rawExchange(t, env, c.request)
			if resp.Status != c.status || strings.HasPrefix(resp.Header.Get(runtime.HeaderContentType), "application/problem+json") {
				t.Fatalf("%d %s %s; the README documents %d in plain text", resp.Status, resp.Header.Get(runtime.HeaderContentType), resp.Body, c.status)
			}
		})
	}
}
