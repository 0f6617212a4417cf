package sqldb

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// The health probe's rhythm: a server that stops answering is marked
// unreachable within probeInterval + probeTimeout (0.7 s).
const (
	probeInterval = 200 * time.Millisecond
	probeTimeout  = 500 * time.Millisecond
)

// healthProbe watches a PostgreSQL server from a connection of its own, so
// a server that accepts connections but stops answering is noticed within
// a second, rather than by each call waiting out its statement timeout on
// a pooled connection. While it is marked unreachable every new call
// answers engine.ErrUnreachable at once; the probe goes on trying and
// clears the mark as soon as the server answers again. A probe that times
// out while calls are being answered (a busy server, a loaded host) marks
// nothing: the server is evidently alive.
type healthProbe struct {
	cfg         *pgx.ConnConfig
	unreachable atomic.Bool
	lastAnswer  atomic.Int64                 // unix nanoseconds of the last call the server answered
	failure     atomic.Pointer[probeFailure] // why the last probe failed, for the calls it turns away
	stop        context.CancelFunc
	done        chan struct{}
}

// startHealthProbe starts probing; stop it with close.
func startHealthProbe(cfg *pgx.ConnConfig) *healthProbe {
	ctx, cancel := context.WithCancel(context.Background())
	p := &healthProbe{cfg: cfg, stop: cancel, done: make(chan struct{})}
	go p.run(ctx)
	return p
}

func (p *healthProbe) run(ctx context.Context) {
	defer close(p.done)
	var conn *pgx.Conn
	defer func() {
		if conn != nil {
			closeQuickly(conn)
		}
	}()
	tick := time.NewTicker(probeInterval)
	defer tick.Stop()
	for {
		started := time.Now()
		err := p.probe(ctx, &conn)
		switch {
		case ctx.Err() != nil:
			return
		case err == nil:
			p.unreachable.Store(false)
		case p.lastAnswer.Load() < started.UnixNano():
			p.failure.Store(&probeFailure{err})
			p.unreachable.Store(true)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// probe pings the server on the probe's connection. A connection that
// breaks (one the server closed while it was away) is replaced by a fresh
// one at once, so only a server that does not answer fails the probe. Connecting
// may take the DSN's connect_timeout, for a database far away.
func (p *healthProbe) probe(ctx context.Context, conn **pgx.Conn) error {
	if *conn != nil {
		pingCtx, cancel := context.WithTimeout(ctx, probeTimeout)
		err := (*conn).Ping(pingCtx)
		cancel()
		if err == nil {
			return nil
		}
		closeQuickly(*conn)
		*conn = nil
		if pingCtx.Err() != nil || pgconn.Timeout(err) {
			return err // no answer in time; the next round connects afresh
		}
	}
	connectCtx, cancel := context.WithTimeout(ctx, max(probeTimeout, p.cfg.ConnectTimeout))
	defer cancel()
	c, err := pgx.ConnectConfig(connectCtx, p.cfg) // the handshake is itself an answer
	var refused *pgconn.PgError
	if errors.As(err, &refused) {
		return nil // the server answered (too many connections, a bad password): it is there
	}
	if err != nil {
		return err
	}
	*conn = c
	return nil
}

func closeQuickly(conn *pgx.Conn) {
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	conn.Close(ctx)
}

// answered notes that the server answered a call.
func (p *healthProbe) answered() { p.lastAnswer.Store(time.Now().UnixNano()) }

// down reports whether the server is marked unreachable.
func (p *healthProbe) down() bool { return p.unreachable.Load() }

// close stops the probe and closes its connection.
func (p *healthProbe) close() {
	p.stop()
	<-p.done
}

// probeFailure holds a probe's error.
type probeFailure struct{ err error }

// errMarkedUnreachable is why a call was not tried: the probe found the
// server not answering.
var errMarkedUnreachable = errors.New("the database did not answer the health probe")

// why is why calls are turned away while the server is marked: the
// probe's own error, which names the server's address.
func (p *healthProbe) why() error {
	if f := p.failure.Load(); f != nil {
		return fmt.Errorf("%w: %w", errMarkedUnreachable, f.err)
	}
	return errMarkedUnreachable
}
