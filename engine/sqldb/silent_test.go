package sqldb

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"net"
	"net/url"
	"os"
	"sync"
	"testing"
	"time"

	"fieldapi/engine"
)

// blackhole is a TCP proxy to PostgreSQL that can go silent, as a database
// host that drops every packet: its connections stay open, and nothing
// passes either way until it resumes. Nothing is lost: what was held back
// passes on resume, as TCP retransmits once packets get through again.
type blackhole struct {
	ln       net.Listener
	upstream string

	mu    sync.Mutex
	open  chan struct{} // closed while traffic passes
	conns []net.Conn
}

// startBlackhole proxies to the PostgreSQL of dsn and returns the proxy
// and dsn pointing at it.
func startBlackhole(t *testing.T, dsn string) (*blackhole, string) {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b := &blackhole{ln: ln, upstream: u.Host, open: make(chan struct{})}
	close(b.open)
	go b.accept()
	t.Cleanup(func() {
		ln.Close()
		b.resume() // lets the copies run into the closed connections and end
		b.mu.Lock()
		defer b.mu.Unlock()
		for _, c := range b.conns {
			c.Close()
		}
	})
	u.Host = ln.Addr().String()
	return b, u.String()
}

// silence stops all traffic; resume lets it pass again.
func (b *blackhole) silence() {
	b.mu.Lock()
	defer b.mu.Unlock()
	select {
	case <-b.open:
		b.open = make(chan struct{})
	default:
	}
}

func (b *blackhole) resume() {
	b.mu.Lock()
	defer b.mu.Unlock()
	select {
	case <-b.open:
	default:
		close(b.open)
	}
}

// pass waits until traffic may pass.
func (b *blackhole) pass() {
	b.mu.Lock()
	open := b.open
	b.mu.Unlock()
	<-open
}

func (b *blackhole) accept() {
	for {
		client, err := b.ln.Accept()
		if err != nil {
			return
		}
		server, err := net.Dial("tcp", b.upstream)
		if err != nil {
			client.Close()
			continue
		}
		b.mu.Lock()
		b.conns = append(b.conns, client, server)
		b.mu.Unlock()
		go b.copy(server, client)
		go b.copy(client, server)
	}
}

// copy forwards src to dst while traffic passes; silent, it neither reads
// nor writes.
func (b *blackhole) copy(dst, src net.Conn) {
	defer dst.Close()
	buf := make([]byte, 32<<10)
	for {
		b.pass()
		n, err := src.Read(buf)
		if n > 0 {
			b.pass()
			if _, err := dst.Write(buf[:n]); err != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// TestSilentServerEndsCallsInFlight: PostgreSQL goes silent (its host
// drops every packet) while calls have their statements out on pooled
// connections. The health probe marks it within a second and ends those
// calls then, rather than at their 30 s statement timeout: a read and a
// write transaction before its COMMIT answer engine.ErrUnreachable (503,
// they wrote nothing), an autocommit statement engine.ErrTimeout (it may
// have run). A call while it is marked answers ErrUnreachable at once;
// once the server answers again calls go through, on the same DB.
func TestSilentServerEndsCallsInFlight(t *testing.T) {
	base := os.Getenv(postgresEnv)
	if base == "" {
		t.Skipf("set %s: this goes through a proxy to PostgreSQL", postgresEnv)
	}
	t.Parallel()
	hole, dsn := startBlackhole(t, base)
	db := open(t, dsn, Options{StatementTimeout: 30 * time.Second})
	ctx := context.Background()
	if err := db.Ping(ctx); err != nil {
		t.Fatal(err)
	}

	// Each call sleeps in PostgreSQL, so its statement is surely out when
	// the server goes silent; a marker in the text finds it in
	// pg_stat_activity.
	marker := "silent_" + rand.Text()
	sleep := func(ctx context.Context, q Querier) error {
		var out string
		return Get(ctx, q, &out, `SELECT CAST(pg_sleep(10) AS TEXT) AS `+marker)
	}
	calls := []struct {
		name string
		run  func() error
		want error
	}{
		{"read", func() error { return db.Read(ctx, sleep) }, engine.ErrUnreachable},
		{"autocommit", func() error { return db.Autocommit(ctx, sleep) }, engine.ErrTimeout},
		{"write before COMMIT", func() error {
			return db.Write(ctx, func(ctx context.Context, tx *Tx) error { return sleep(ctx, tx) })
		}, engine.ErrUnreachable},
	}
	type result struct {
		err  error
		done time.Time
	}
	results := make([]chan result, len(calls))
	for i, c := range calls {
		results[i] = make(chan result, 1)
		go func() {
			err := c.run()
			results[i] <- result{err, time.Now()}
		}()
	}

	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var running int
		if err := admin.QueryRow(`SELECT COUNT(*) FROM pg_stat_activity WHERE query LIKE '%' || $1 AND state = 'active'`, marker).Scan(&running); err != nil {
			t.Fatal(err)
		}
		if running == len(calls) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of the %d calls are running in PostgreSQL after 10 s", running, len(calls))
		}
		time.Sleep(20 * time.Millisecond)
	}

	hole.silence()
	silent := time.Now()
	for i, c := range calls {
		var r result
		select {
		case r = <-results[i]:
		case <-time.After(10 * time.Second):
			t.Fatalf("the %s in flight had not answered 10 s after the server went silent", c.name)
		}
		took := r.done.Sub(silent)
		t.Logf("%s in flight: %v after %s", c.name, faultOf(r.err), took.Round(time.Millisecond))
		if faultOf(r.err) != c.want {
			t.Errorf("the %s in flight: %v; want %v", c.name, r.err, c.want)
		}
		// The probe marks within health.MarksWithin (0.7 s); the
		// margin is for a loaded machine.
		if took > 2*time.Second {
			t.Errorf("the %s in flight answered %s after the server went silent; want within a second", c.name, took)
		}
	}

	start := time.Now()
	if err := db.Ping(ctx); !errors.Is(err, engine.ErrUnreachable) {
		t.Errorf("a call while the server is marked: %v; want engine.ErrUnreachable", err)
	}
	if took := time.Since(start); took > 100*time.Millisecond {
		t.Errorf("a call while the server is marked answered after %s; want at once", took)
	}

	hole.resume()
	resumed := time.Now()
	for err := db.Ping(ctx); err != nil; err = db.Ping(ctx) {
		if time.Since(resumed) > 5*time.Second {
			t.Fatalf("calls still fail 5 s after the server answers again: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("answering again %s after the server did", time.Since(resumed).Round(time.Millisecond))
	if err := db.Read(ctx, func(ctx context.Context, q Querier) error {
		var one int
		return Get(ctx, q, &one, `SELECT 1`)
	}); err != nil {
		t.Errorf("a read after the server answers again: %v", err)
	}
}
