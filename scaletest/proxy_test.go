package scaletest

import (
	"bytes"
	"net"
	"net/url"
	"regexp"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// proxy is a TCP proxy between fieldapi and PostgreSQL on 127.0.0.1. A
// test takes the database away and brings it back through it, without
// touching the PostgreSQL server other tests share.
type proxy struct {
	t        *testing.T
	ln       net.Listener
	upstream string // host:port of PostgreSQL

	mu         sync.Mutex
	mode       proxyMode
	links      map[*link]bool
	stalled    []net.Conn    // connections accepted while silent
	holdCommit time.Duration // hold the reply to each COMMIT this long
	held       chan struct{} // gets a value whenever a COMMIT reply is held
}

type proxyMode int

const (
	up     proxyMode = iota
	down             // as a stopped server: connections are reset, new ones refused
	silent           // as a host gone from the network: new connections get no answer
	hung             // as a server that stops answering: every connection, open or new, stays open and gets no answer
)

// link is one proxied connection.
type link struct {
	client, server net.Conn
	holdNext       chan struct{} // a COMMIT went up: hold the next reply
	commits        [][]byte      // names of the statements the client prepared as COMMIT
	closeOnce      sync.Once
	closed         chan struct{}
}

// startProxy proxies to the PostgreSQL server of dsn.
func startProxy(t *testing.T, dsn string) *proxy {
	t.Helper()
	cfg, err := pgconn.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{t: t, ln: ln, upstream: net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port))),
		links: map[*link]bool{}, held: make(chan struct{}, 1)}
	go p.accept()
	t.Cleanup(func() {
		ln.Close()
		p.setMode(down)
	})
	return p
}

// dsn is dsn with its host and port replaced by the proxy's.
func (p *proxy) dsn(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		p.t.Fatal(err)
	}
	u.Host = p.ln.Addr().String()
	return u.String()
}

// setMode switches the proxy. Going down or silent resets every open
// connection, as a database that stops or crashes does; hung keeps them
// open but passes nothing either way, and leaving hung resets them (their
// streams have gaps).
func (p *proxy) setMode(m proxyMode) {
	p.mu.Lock()
	prev := p.mode
	p.mode = m
	links, stalled := p.links, p.stalled
	endLinks := m == down || m == silent || prev == hung && m != hung
	if endLinks {
		p.links = map[*link]bool{}
	}
	if m != silent && m != hung {
		p.stalled = nil
	}
	p.mu.Unlock()
	if endLinks {
		for l := range links {
			l.close()
		}
	}
	if m != silent && m != hung {
		for _, c := range stalled {
			reset(c)
		}
	}
}

// passing reports whether data may pass: not while hung.
func (p *proxy) passing() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.mode != hung
}

// holdCommits makes the proxy hold the reply to each COMMIT for d (0: pass
// it at once). The database has committed; only the answer is late.
func (p *proxy) holdCommits(d time.Duration) {
	p.mu.Lock()
	p.holdCommit = d
	p.mu.Unlock()
	select { // forget a hold reported earlier
	case <-p.held:
	default:
	}
}

func (p *proxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return // closed at the end of the test
		}
		p.mu.Lock()
		mode := p.mode
		if mode == silent || mode == hung {
			p.stalled = append(p.stalled, c)
		}
		p.mu.Unlock()
		switch mode {
		case down:
			reset(c)
		case up:
			go p.serve(c)
		}
	}
}

// serve connects a client to PostgreSQL and copies both ways.
func (p *proxy) serve(client net.Conn) {
	server, err := net.DialTimeout("tcp", p.upstream, 5*time.Second)
	if err != nil {
		reset(client)
		return
	}
	l := &link{client: client, server: server, holdNext: make(chan struct{}, 1), closed: make(chan struct{})}
	p.mu.Lock()
	if p.mode != up { // went down while dialling
		p.mu.Unlock()
		l.close()
		return
	}
	p.links[l] = true
	p.mu.Unlock()
	go p.upward(l)
	go p.downward(l)
}

// commitQuery is the simple-protocol Query message pgx sends to commit
// database/sql's transactions: type 'Q', length 11, "commit" and its NUL.
var commitQuery = []byte("Q\x00\x00\x00\x0bcommit\x00")

// preparedCommit finds a Parse message preparing COMMIT under a name: the
// engine's own transactions send their COMMIT with their last statements
// (extended protocol, pgx's statement cache), as a Bind of that name.
var preparedCommit = regexp.MustCompile("(stmtcache_[0-9a-f]+)\x00COMMIT\x00")

// sendsCommit reports whether the client's bytes carry a COMMIT: a simple
// Query of it, or a Bind of a statement prepared as COMMIT ('B', its
// length, the unnamed portal's NUL, the statement's name).
func (l *link) sendsCommit(b []byte) bool {
	if bytes.Contains(b, commitQuery) {
		return true
	}
	for _, m := range preparedCommit.FindAllSubmatch(b, -1) {
		l.commits = append(l.commits, append(m[1], 0))
	}
	for _, name := range l.commits {
		for i := bytes.Index(b, name); i >= 0; {
			if i >= 6 && b[i-6] == 'B' && b[i-1] == 0 {
				return true
			}
			next := bytes.Index(b[i+1:], name)
			if next < 0 {
				break
			}
			i += 1 + next
		}
	}
	return false
}

// upward copies client → PostgreSQL, noting each COMMIT before passing it.
func (p *proxy) upward(l *link) {
	defer p.forget(l)
	buf := make([]byte, 32<<10)
	for {
		n, err := l.client.Read(buf)
		if n > 0 && p.passing() {
			commit := l.sendsCommit(buf[:n])
			p.mu.Lock()
			hold := p.holdCommit > 0 && commit
			p.mu.Unlock()
			if hold {
				select {
				case l.holdNext <- struct{}{}:
				default:
				}
			}
			if _, err := l.server.Write(buf[:n]); err != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// downward copies PostgreSQL → client, holding a COMMIT's reply when asked.
func (p *proxy) downward(l *link) {
	defer p.forget(l)
	buf := make([]byte, 32<<10)
	for {
		n, err := l.server.Read(buf)
		if n > 0 && p.passing() {
			select {
			case <-l.holdNext:
				p.mu.Lock()
				d := p.holdCommit
				p.mu.Unlock()
				select {
				case p.held <- struct{}{}:
				default:
				}
				select {
				case <-time.After(d):
				case <-l.closed:
					return
				}
			default:
			}
			if _, err := l.client.Write(buf[:n]); err != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// forget closes a link that ended and drops it.
func (p *proxy) forget(l *link) {
	p.mu.Lock()
	delete(p.links, l)
	p.mu.Unlock()
	l.close()
}

// close resets the client side, so the client's next write fails at once
// (as when the database's host answers a dead connection), and closes the
// server side, which ends the session in PostgreSQL.
func (l *link) close() {
	l.closeOnce.Do(func() {
		close(l.closed)
		reset(l.client)
		l.server.Close()
	})
}

// reset closes c with a TCP RST rather than a FIN.
func reset(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	c.Close()
}
