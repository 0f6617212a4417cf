package main

import (
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/matryer/is"
)

func TestHelpExitsZeroOnEveryCommand(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"help"}, {"-h"}, {"--help"},
		{"init", "-h"}, {"serve", "-h"}, {"seed", "-h"}, {"listen", "-h"}, {"version", "-h"},
		{"keys", "-h"}, {"keys", "--help"}, {"keys", "help"},
		{"keys", "create", "-h"}, {"keys", "list", "-h"}, {"keys", "revoke", "-h"},
	} {
		r := runCLI(t, nil, args...)
		if r.code != 0 {
			t.Errorf("fieldapi %s: exit %d, want 0: %s", strings.Join(args, " "), r.code, r.stderr)
		}
		if !strings.Contains(r.stdout+r.stderr, "usage") {
			t.Errorf("fieldapi %s printed no usage", strings.Join(args, " "))
		}
	}
	r := runCLI(t, nil, "keys", "nosuch")
	if r.code != exitUsage {
		t.Errorf("an unknown keys subcommand: exit %d, want %d", r.code, exitUsage)
	}
}

// everyCommandHelp is the -h of every command that has flags.
var everyCommandHelp = [][]string{
	{"init", "-h"}, {"serve", "-h"}, {"seed", "-h"}, {"listen", "-h"},
	{"keys", "create", "-h"}, {"keys", "list", "-h"}, {"keys", "revoke", "-h"},
}

// TestFlagHelpShowsEachDefaultOnce: the flag package adds "(default X)"
// to a usage, which must then not give the default itself too.
func TestFlagHelpShowsEachDefaultOnce(t *testing.T) {
	t.Parallel()
	flagLine := regexp.MustCompile(`^  -(\S+)`)
	for _, args := range everyCommandHelp {
		help := runCLI(t, nil, args...).stderr
		var name, entry string
		check := func() {
			if n := strings.Count(strings.ToLower(entry), "default"); name != "" && n > 1 {
				t.Errorf("fieldapi %s: --%s shows its default %d times:\n%s", strings.Join(args, " "), name, n, entry)
			}
		}
		for _, line := range strings.Split(help, "\n") {
			if m := flagLine.FindStringSubmatch(line); m != nil {
				check()
				name, entry = m[1], ""
			}
			entry += line + "\n"
		}
		check()
		// The variable shown as an example is one of the command's flags.
		example := regexp.MustCompile(`for example FIELDAPI_(\w+)`).FindStringSubmatch(help)
		if example == nil || !strings.Contains(help, "  -"+strings.ReplaceAll(strings.ToLower(example[1]), "_", "-")+" ") {
			t.Errorf("fieldapi %s: the example variable is not one of its flags:\n%s", strings.Join(args, " "), help)
		}
	}
	version := runCLI(t, nil, "version", "-h")
	if version.stderr != "usage: fieldapi version\n" {
		t.Errorf("version has no flags, and its help should say no more: %q", version.stderr)
	}
}

func TestVersion(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	r := runCLI(t, nil, "version")
	is.Equal(r.code, 0)
	is.True(strings.HasPrefix(r.stdout, "fieldapi ")) // a test binary has build information too

	info := &debug.BuildInfo{GoVersion: "go1.25.1", Main: debug.Module{Path: "fieldapi", Version: "v1.2.0"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "3f2a9c1"}, {Key: "vcs.time", Value: "2026-11-20T10:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}
	is.Equal(versionLine(info, true), "fieldapi v1.2.0 revision 3f2a9c1+dirty (2026-11-20T10:00:00Z) go1.25.1")
	info.Settings = nil
	is.Equal(versionLine(info, true), "fieldapi v1.2.0 revision unknown go1.25.1")
	is.Equal(versionLine(nil, false), "fieldapi (no build information)")
}

func TestKeysListJSON(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	dsn := demoDSN(t)
	k := createKey(t, dsn, "--scopes", "users:read", "--client-id", "listed", "--allow-ip", "192.0.2.0/24")
	is.Equal(runCLI(t, nil, "keys", "revoke", "--db", dsn, "--client-id", "listed").code, 0)
	r := runCLI(t, nil, "keys", "list", "--db", dsn, "--json")
	is.Equal(r.code, 0)
	is.True(!strings.Contains(r.stdout, k.Key[strings.LastIndex(k.Key, "_")+1:])) // never a secret
	var keys []listedKey
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	dec.DisallowUnknownFields()
	is.NoErr(dec.Decode(&keys))
	is.Equal(len(keys), 1)
	is.Equal(keys[0].ClientID, "listed")
	is.Equal(keys[0].Company, "demo")
	is.Equal(keys[0].Scopes, []string{"users:read"})
	is.Equal(keys[0].AllowedIPs, []string{"192.0.2.0/24"})
	is.True(keys[0].Revoked != nil)

	empty := runCLI(t, nil, "keys", "list", "--db", dsn, "--json", "--company", "demo2")
	is.Equal(strings.TrimSpace(empty.stdout), "[]")
}

func TestServeLogsEveryRequestAsJSONAndServesMetricsAndPprof(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	dsn := demoDSN(t)
	key := createKey(t, dsn, "--scopes", "*", "--client-id", "logged")
	srv := startServe(t, dsn, "--log-format", "json", "--metrics-addr", "127.0.0.1:0", "--pprof")
	is.True(srv.metricsAddr != nil)

	req, _ := http.NewRequest(http.MethodGet, "http://"+srv.addr.String()+"/v1/customers/1001", nil)
	req.Header.Set("Authorization", "Bearer "+key.Key)
	req.Header.Set("X-Request-Id", "cli-req-1")
	resp, err := http.DefaultClient.Do(req)
	is.NoErr(err)
	resp.Body.Close()
	is.Equal(resp.StatusCode, http.StatusOK)

	get := func(path string) string {
		resp, err := http.Get("http://" + srv.metricsAddr.String() + path)
		is.NoErr(err)
		defer resp.Body.Close()
		is.Equal(resp.StatusCode, http.StatusOK)
		body, _ := io.ReadAll(resp.Body)
		return string(body)
	}
	scrape := get("/metrics")
	is.True(strings.Contains(scrape, `fieldapi_http_requests_total{method="GET",route="/v1/customers/{key}",status="2xx"} 1`))
	is.True(strings.Contains(scrape, "fieldapi_db_max_open_connections 10"))
	is.True(strings.Contains(get("/debug/pprof/"), "goroutine"))

	is.Equal(srv.stop(), 0)
	var found bool
	for _, line := range strings.Split(strings.TrimSpace(srv.logs.String()), "\n") {
		var m map[string]any
		is.NoErr(json.Unmarshal([]byte(line), &m)) // every line is JSON
		if m["msg"] == "request" && m["requestId"] == "cli-req-1" {
			found = true
			is.Equal(m["route"], "/v1/customers/{key}")
			is.Equal(m["clientId"], "logged")
			is.Equal(m["status"], float64(200))
		}
	}
	is.True(found) // the access log line carries the client's request id
	is.True(!strings.Contains(srv.logs.String(), key.Key))
}

func TestServeRefusesBadOperatingFlags(t *testing.T) {
	t.Parallel()
	for _, bad := range [][]string{
		{"--log-format", "xml"},
		{"--pprof"}, // without --metrics-addr
		{"--cors-origin", "app.example.com"},
		{"--cors-origin", "https://app.example.com/path"},
	} {
		if _, err := parseServeConfig(bad, func(string) string { return "" }, io.Discard); err == nil {
			t.Errorf("serve %v was accepted", bad)
		}
	}
	cfg, err := parseServeConfig([]string{"--cors-origin", "https://a.example.com", "--cors-origin", "https://b.example.com"},
		func(k string) string { return map[string]string{"FIELDAPI_METRICS_ADDR": "127.0.0.1:9100"}[k] }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.runtime.CORSOrigins) != 2 || cfg.metricsAddr != "127.0.0.1:9100" {
		t.Errorf("CORS origins %v, metrics address %q", cfg.runtime.CORSOrigins, cfg.metricsAddr)
	}
}
