package scaletest

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // driver "pgx", for creating and dropping test schemas

	"fieldapi/internal/dbtest"
)

// postgresEnv names the PostgreSQL server the tests use.
const postgresEnv = "FIELDAPI_TEST_POSTGRES"

// binary is the fieldapi command, built once by TestMain when a
// PostgreSQL server is named (the tests skip otherwise).
var binary string

func TestMain(m *testing.M) { os.Exit(runTests(m)) }

func runTests(m *testing.M) int {
	flag.Parse() // for -short and -run, read before m.Run
	if os.Getenv(postgresEnv) == "" && !sqliteTestsRun() {
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "fieldapi-scaletest-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	binary = filepath.Join(dir, "fieldapi")
	if out, err := exec.Command("go", "build", "-o", binary, "fieldapi/cmd/fieldapi").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "scaletest: go build ./cmd/fieldapi: %v\n%s", err, out)
		return 1
	}
	return m.Run()
}

// noted looks at the binary's sources once, from inside the tests (the go
// command notes what a test looks at only once the tests run, not in
// TestMain).
var noted = sync.OnceValue(noteSources)

// noteSources looks at every source file the binary is built from. The
// go command caches a test's result until a file the test looked at
// changes; the build above runs in another process, where it cannot see
// them, so without this a cached run would pass for a binary that is no
// longer the one the tree builds.
func noteSources() error {
	out, err := exec.Command("go", "list", "-deps", "-f", `{{if not .Standard}}{{.Dir}}{{end}}`, "fieldapi/cmd/fieldapi").Output()
	if err != nil {
		return fmt.Errorf("go list: %w", err)
	}
	for _, dir := range strings.Fields(string(out)) {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if _, err := os.Stat(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

// sqliteTestsRun reports whether tests that need the binary but no
// PostgreSQL run: unless -short, or -run selects none of them (their names
// end in OnSQLite).
func sqliteTestsRun() bool {
	if testing.Short() {
		return false
	}
	if f := flag.Lookup("test.run"); f != nil && f.Value.String() != "" {
		re, err := regexp.Compile(f.Value.String())
		return err != nil || re.MatchString("OnSQLite")
	}
	return true
}

// binaryFor skips a test that needs the binary when it was not built.
func binaryFor(t *testing.T) {
	t.Helper()
	if binary == "" {
		t.Skip("the fieldapi binary was not built (-short)")
	}
	if err := noted(); err != nil {
		t.Fatal("note the binary's sources:", err)
	}
}

// postgresBase is the FIELDAPI_TEST_POSTGRES DSN; the test is skipped when
// it is unset.
func postgresBase(t *testing.T) string {
	t.Helper()
	if err := noted(); err != nil {
		t.Fatal("note the binary's sources:", err)
	}
	base := os.Getenv(postgresEnv)
	if base == "" {
		t.Skipf("%s is not set: the multi-process and database-fault tests need a PostgreSQL server "+
			"(e.g. %s=postgres://postgres@127.0.0.1:5432/test?sslmode=disable)", postgresEnv, postgresEnv)
	}
	return base
}

// patient gives dsn a connect_timeout of 2 s, for the tests that count
// and number rather than time how soon a silent server is found: their
// serve processes open their pools in a burst while the other tests' do,
// beside other packages' tests on CI's two cores, and a connection that
// took over the default 500 ms to open answered 503 engine_unreachable.
func patient(t *testing.T, dsn string) string {
	return dbtest.WithParam(t, dsn, "connect_timeout", "2")
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// commandEnv is the environment of a fieldapi process: the test's, less
// any FIELDAPI_* variable, which the command would read as a flag.
func commandEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "FIELDAPI_") {
			env = append(env, kv)
		}
	}
	return env
}

// cli runs a fieldapi command to completion and returns its stdout.
func cli(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = commandEnv()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("fieldapi %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String()
}

// initDemo creates the schema and the demo companies in dsn.
func initDemo(t *testing.T, dsn string) {
	t.Helper()
	cli(t, "init", "--db", dsn, "--demo")
}

// createKey makes a key of company demo, signature API, every scope.
func createKey(t *testing.T, dsn, clientID string) string {
	t.Helper()
	out := cli(t, "keys", "create", "--db", dsn, "--company", "demo", "--sign", "API", "--scopes", "*", "--client-id", clientID, "--json")
	var k struct{ ClientID, Key string }
	if err := json.Unmarshal([]byte(out), &k); err != nil || k.Key == "" {
		t.Fatalf("keys create --json printed %q: %v", out, err)
	}
	return k.Key
}

// server is one "fieldapi serve" process.
type server struct {
	t    *testing.T
	url  string // http://127.0.0.1:PORT
	cmd  *exec.Cmd
	logs *syncBuffer
	done chan struct{} // closed when the process has exited
	err  error         // its exit status, once done
}

var listening = regexp.MustCompile(`msg=listening addr=(http://\S+)`)

// startServe starts "fieldapi serve" on a free port of 127.0.0.1 and waits
// until it listens. It is stopped when the test ends.
func startServe(t *testing.T, dsn string, flags ...string) *server {
	t.Helper()
	args := append([]string{"serve", "--db", dsn, "--addr", "127.0.0.1:0"}, flags...)
	cmd := exec.Command(binary, args...)
	cmd.Env = commandEnv()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	s := &server{t: t, cmd: cmd, logs: &syncBuffer{}, done: make(chan struct{})}
	cmd.Stdout = s.logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	addr := make(chan string, 1)
	go func() { // copy the log, and pick the address out of it
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			s.logs.Write([]byte(line + "\n"))
			if m := listening.FindStringSubmatch(line); m != nil {
				select {
				case addr <- m[1]:
				default:
				}
			}
		}
		io.Copy(io.Discard, stderr)
		s.err = cmd.Wait()
		close(s.done)
	}()
	t.Cleanup(func() {
		if !s.exited() {
			s.stop(10 * time.Second)
		}
		if t.Failed() {
			t.Logf("log of fieldapi serve %s:\n%s", s.url, s.logs.String())
		}
	})
	select {
	case s.url = <-addr:
		return s
	case <-s.done:
		t.Fatalf("fieldapi serve exited before listening (%v):\n%s", s.err, s.logs.String())
	case <-time.After(20 * time.Second):
		t.Fatalf("fieldapi serve did not listen within 20 s:\n%s", s.logs.String())
	}
	return nil
}

func (s *server) exited() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// stop sends SIGTERM, as an orchestrator does, and waits for the exit;
// past the wait the process is killed and the test fails.
func (s *server) stop(wait time.Duration) error {
	s.t.Helper()
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
		return s.err
	case <-time.After(wait):
		s.cmd.Process.Kill()
		<-s.done
		s.t.Errorf("fieldapi serve did not stop within %s of SIGTERM", wait)
		return s.err
	}
}

// syncBuffer is a log both a reader goroutine and the test use.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// client is shared by all calls; the timeout bounds a hung server.
var client = &http.Client{
	Timeout:   20 * time.Second,
	Transport: &http.Transport{MaxIdleConnsPerHost: 100},
}

// call is one HTTP call to a server.
type call struct {
	method, path string
	bearer       string
	body         any    // marshalled as JSON
	idemKey      string // Idempotency-Key; writes get a fresh one when empty
	ifMatch      string // If-Match, when set
}

// reply is what came back, and how long it took.
type reply struct {
	status  int
	header  http.Header
	body    []byte
	elapsed time.Duration
}

// do sends c to the server; a transport error fails the test.
func (s *server) do(t *testing.T, c call) reply {
	t.Helper()
	r, err := s.try(c)
	if err != nil {
		t.Fatalf("%s %s: %v", c.method, c.path, err)
	}
	return r
}

// try is do for use off the test goroutine: it returns the error.
func (s *server) try(c call) (reply, error) {
	var body io.Reader
	if c.body != nil {
		b, err := json.Marshal(c.body)
		if err != nil {
			return reply{}, err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequest(c.method, s.url+c.path, body)
	if err != nil {
		return reply{}, err
	}
	if c.bearer != "" {
		req.Header.Set("Authorization", "Bearer "+c.bearer)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.method != http.MethodGet {
		key := c.idemKey
		if key == "" {
			key = "scale-" + randomHex(8)
		}
		req.Header.Set("Idempotency-Key", key)
	}
	if c.ifMatch != "" {
		req.Header.Set("If-Match", c.ifMatch)
	}
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return reply{}, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return reply{status: resp.StatusCode, header: resp.Header, body: data, elapsed: time.Since(start)}, err
}

// decode unmarshals a reply's JSON body into v.
func (r reply) decode(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("status %d, body is not JSON (%v): %s", r.status, err, r.body)
	}
}

// expect fails the test unless the reply has the status.
func (r reply) expect(t *testing.T, status int) reply {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d; body: %s", r.status, status, r.body)
	}
	return r
}

// problem is the part of an RFC 9457 body the tests check.
type problem struct {
	Title  string `json:"title"`
	Status int    `json:"status"`
}

// expectProblem fails the test unless the reply is a problem with the
// status and code.
func (r reply) expectProblem(t *testing.T, status int, code string) {
	t.Helper()
	r.expect(t, status)
	if ct := r.header.Get("Content-Type"); ct != "application/problem+json" {
		t.Fatalf("Content-Type %q, want application/problem+json; body: %s", ct, r.body)
	}
	var p problem
	r.decode(t, &p)
	if p.Title != code || p.Status != status {
		t.Fatalf("problem %s (%d), want %s (%d): %s", p.Title, p.Status, code, status, r.body)
	}
}

// customer is the part of a customer record the tests read.
type customer struct {
	Nr   string `json:"nr"`
	Name string `json:"name"`
}

// createCustomer posts a customer with the name and Idempotency-Key.
func (s *server) createCustomer(t *testing.T, bearer, name, idemKey string) reply {
	t.Helper()
	return s.do(t, call{method: http.MethodPost, path: "/v1/customers", bearer: bearer, body: map[string]string{"name": name}, idemKey: idemKey})
}

// customersNamed lists the customers whose name matches name.
func (s *server) customersNamed(t *testing.T, bearer, name string) []customer {
	t.Helper()
	r := s.do(t, call{method: http.MethodGet, path: "/v1/customers?limit=500&name=" + url.QueryEscape(name), bearer: bearer})
	r.expect(t, http.StatusOK)
	var page struct{ Items []customer }
	r.decode(t, &page)
	return page.Items
}

// eventually retries check every 50 ms until it passes or the time is up,
// and returns how long it took.
func eventually(t *testing.T, within time.Duration, what string, check func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	for !check() {
		if time.Since(start) > within {
			t.Fatalf("%s: not within %s", what, within)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return time.Since(start)
}

// jsonInto is json.Unmarshal with the body in the error.
func jsonInto(body []byte, v any) error {
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("%v: %s", err, body)
	}
	return nil
}
