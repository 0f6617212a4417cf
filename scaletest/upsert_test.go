package scaletest

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"fieldapi/internal/dbtest"
)

// TestUpsertExactlyOnceAcrossProcesses: 64 PUTs of one new customer
// number at once, through two processes on one PostgreSQL, leave one
// customer, and every answer is 201 (exactly one) or 200; 64 PUTs that
// change different fields of one customer lose no acknowledged change.
func TestUpsertExactlyOnceAcrossProcesses(t *testing.T) {
	t.Parallel()
	dsn := patient(t, dbtest.Schema(t, postgresBase(t)))
	initDemo(t, dsn)
	key := createKey(t, dsn, "upsert-client")
	flags := []string{"--rate-limit", "0", "--max-open-conns", poolPerProcess}
	servers := []*server{startServe(t, dsn, flags...), startServe(t, dsn, flags...)}
	upsertOneNewKey(t, servers, key)
	upsertManyFields(t, servers, key)
}

// TestUpsertExactlyOnceOnSQLite is the same with 64 clients of one process
// on SQLite.
func TestUpsertExactlyOnceOnSQLite(t *testing.T) {
	t.Parallel()
	binaryFor(t)
	dsn := dbtest.SQLite(t)
	initDemo(t, dsn)
	key := createKey(t, dsn, "upsert-client")
	servers := []*server{startServe(t, dsn, "--rate-limit", "0")}
	upsertOneNewKey(t, servers, key)
	upsertManyFields(t, servers, key)
}

const parallelPuts = 64

// putAll sends the calls at once, spread over the servers, and returns
// the replies in call order.
func putAll(t *testing.T, servers []*server, calls []call) []reply {
	t.Helper()
	replies := make([]reply, len(calls))
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, c := range calls {
		wg.Go(func() {
			<-start
			r, err := servers[i%len(servers)].try(c)
			if err != nil {
				t.Error(err)
			}
			replies[i] = r
		})
	}
	close(start)
	wg.Wait()
	return replies
}

func upsertOneNewKey(t *testing.T, servers []*server, key string) {
	nr := "SYNC-" + randomHex(4)
	path := "/v1/customers/" + url.PathEscape(nr)
	calls := make([]call, parallelPuts)
	for i := range calls {
		calls[i] = call{method: http.MethodPut, path: path, bearer: key, body: map[string]string{"name": "Synkad kund", "note": fmt.Sprintf("worker %d", i)}}
	}
	created := 0
	for i, r := range putAll(t, servers, calls) {
		switch r.status {
		case http.StatusCreated:
			created++
		case http.StatusOK:
		default:
			t.Errorf("PUT %d: %d %s; want 201 or 200", i, r.status, r.body)
		}
	}
	if created != 1 {
		t.Errorf("%d PUTs answered 201; want exactly one", created)
	}
	if got := servers[0].customersNamed(t, key, "Synkad kund"); len(got) != 1 || got[0].Nr != nr {
		t.Errorf("customers named Synkad kund: %v; want one, %s", got, nr)
	}
}

// upsertManyFields: PUTs each set one of the customer's fields (several
// PUTs per field, each its own value), half of them with If-Match of the
// version they started from. Every answer is 200, or 412 for one with
// If-Match; the change log then holds one entry per acknowledged PUT, and
// the record ends with, for each field, the value of the PUT that changed
// it last in the log: no acknowledged change was lost to another.
func upsertManyFields(t *testing.T, servers []*server, key string) {
	nr := "MANY-" + randomHex(4)
	path := "/v1/customers/" + url.PathEscape(nr)
	first := servers[0].do(t, call{method: http.MethodPut, path: path, bearer: key, body: map[string]string{"name": "Många fält"}}).expect(t, http.StatusCreated)
	etag := first.header.Get("ETag")
	fields := []string{"category", "addressLine1", "addressLine2", "postalCode", "city", "state", "country", "phone",
		"fax", "email", "custom1", "custom2", "custom3", "custom4", "note", "name"}
	calls := make([]call, parallelPuts)
	for i := range calls {
		calls[i] = call{method: http.MethodPut, path: path, bearer: key, body: map[string]string{fields[i%len(fields)]: fmt.Sprintf("v%d", i)}}
		if i%2 == 1 {
			calls[i].ifMatch = etag
		}
	}
	acknowledged := map[string]bool{} // "field=value" of every 200
	ok := 0
	for i, r := range putAll(t, servers, calls) {
		switch {
		case r.status == http.StatusOK:
			ok++
			acknowledged[fmt.Sprintf("%s=v%d", fields[i%len(fields)], i)] = true
		case r.status == http.StatusPreconditionFailed && calls[i].ifMatch != "":
		default:
			t.Errorf("PUT %d (If-Match %q): %d %s; want 200, or 412 with If-Match", i, calls[i].ifMatch, r.status, r.body)
		}
	}
	if ok < parallelPuts/2 {
		t.Errorf("%d PUTs acknowledged; want at least the %d without If-Match", ok, parallelPuts/2)
	}
	// The change log, oldest first: each acknowledged PUT once.
	var log struct {
		Items []struct {
			Action string `json:"Action"`
			Detail string `json:"Detail"`
		}
	}
	servers[0].do(t, call{method: http.MethodGet, path: path + "/changes?limit=500&action=update", bearer: key}).expect(t, http.StatusOK).decode(t, &log)
	if len(log.Items) != ok {
		t.Fatalf("%d update entries in the change log; want one per acknowledged PUT, %d", len(log.Items), ok)
	}
	var record map[string]any
	servers[0].do(t, call{method: http.MethodGet, path: path, bearer: key}).expect(t, http.StatusOK).decode(t, &record)
	for _, f := range fields {
		got, _ := record[pascal(f)].(string)
		if f == "name" && got == "Många fält" {
			continue // no PUT of the name was acknowledged
		}
		if got != "" && !acknowledged[f+"="+got] {
			t.Errorf("%s is %q, which no acknowledged PUT sent", f, got)
		}
	}
	// Every field an acknowledged PUT set holds an acknowledged value of it.
	for a := range acknowledged {
		f, v, _ := strings.Cut(a, "=")
		if got, _ := record[pascal(f)].(string); got == "" || !acknowledged[f+"="+got] {
			t.Errorf("%s was set to %s (acknowledged) and now holds %q: an acknowledged change was lost", f, v, got)
		}
	}
}

// pascal is a request name's field name: city → City.
func pascal(name string) string { return string(name[0]-'a'+'A') + name[1:] }
