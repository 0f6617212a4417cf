// Package health watches a PostgreSQL server from a connection of its
// own and ends the calls waiting on a server gone silent (sqldb's calls
// go through Probe.Watch).
package health

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// The probe's rhythm: a server that stops answering is marked unreachable
// within MarksWithin (0.7 s), and the calls waiting on it end then.
const (
	probeInterval = 200 * time.Millisecond
	probeTimeout  = 500 * time.Millisecond
	MarksWithin   = probeInterval + probeTimeout
)

// Probe watches a PostgreSQL server from a connection of its own, so a
// server that accepts connections but stops answering (its host drops
// packets, a proxy forwards nothing) is noticed within a second. A pooled
// connection that has sent its statement sees only silence, which TCP
// keep-alive cannot tell from a slow statement while a proxy still
// acknowledges: its call would wait out its whole statement timeout.
//
// When the probe marks the server unreachable it ends the calls in flight
// on it (pgx closes their connections) and every new call is refused at
// once (sqldb answers engine.ErrUnreachable), until the server answers
// the probe again. A probe that times out while calls are being answered
// (a busy server, a loaded host) marks nothing.
type Probe struct {
	cfg        *pgx.ConnConfig
	state      atomic.Pointer[probeState]
	lastAnswer atomic.Int64 // unix nanoseconds of the last call the server answered
	stop       context.CancelFunc
	done       chan struct{}
}

// probeState is what the probe last found. It is swapped whole, so a call
// that finds the server not marked is sure to be ended by the mark.
type probeState struct {
	// why the server is marked unreachable; nil while it answers.
	why error
	// calls ends, with why as its cause, when the server is marked
	// unreachable; the calls in flight end with it. Nil while marked.
	calls context.Context
	end   context.CancelCauseFunc
}

// answering is the state of a server not marked.
func answering() *probeState {
	ctx, end := context.WithCancelCause(context.Background())
	return &probeState{calls: ctx, end: end}
}

// Start starts probing the server of cfg; stop it with Close.
func Start(cfg *pgx.ConnConfig) *Probe {
	ctx, cancel := context.WithCancel(context.Background())
	p := &Probe{cfg: cfg, stop: cancel, done: make(chan struct{})}
	p.state.Store(answering())
	go p.run(ctx)
	return p
}

func (p *Probe) run(ctx context.Context) {
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
			if p.Down() {
				p.state.Store(answering())
			}
		case p.lastAnswer.Load() < started.UnixNano():
			p.mark(fmt.Errorf("%w: %w", ErrSilent, err))
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// mark marks the server unreachable for why, and ends the calls in flight.
func (p *Probe) mark(why error) {
	was := p.state.Swap(&probeState{why: why})
	if was.end != nil {
		was.end(why)
	}
}

// probe pings the server on the probe's connection. A connection that
// breaks (one the server closed while it was away) is replaced by a fresh
// one at once, so only a server that does not answer fails the probe.
func (p *Probe) probe(ctx context.Context, conn **pgx.Conn) error {
	if *conn != nil {
		pingCtx, cancel := context.WithTimeout(ctx, probeTimeout)
		err := (*conn).Ping(pingCtx)
		timedOut := pingCtx.Err() != nil // asked before cancel, which sets it always
		cancel()
		if err == nil {
			return nil
		}
		closeQuickly(*conn)
		*conn = nil
		if timedOut || pgconn.Timeout(err) {
			return err // no answer in time; the next round connects afresh
		}
	}
	err := p.connect(ctx, conn)
	if err != nil && ctx.Err() == nil && !pgconn.Timeout(err) {
		// Refused or reset at once: try once more before marking, so a
		// connect cut off as the server came back (a half-open attempt
		// reset by the returning host) cannot mark a server that answers.
		err = p.connect(ctx, conn)
	}
	return err
}

// connect opens the probe's connection. Connecting may take the DSN's
// connect_timeout, for a database far away.
func (p *Probe) connect(ctx context.Context, conn **pgx.Conn) error {
	connectCtx, cancel := context.WithTimeout(ctx, max(probeTimeout, p.cfg.ConnectTimeout))
	defer cancel()
	c, err := pgx.ConnectConfig(connectCtx, p.cfg) // the handshake is itself an answer
	if _, refused := errors.AsType[*pgconn.PgError](err); refused {
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

// Watch starts a call: it returns the call's context, which ends if the
// server is marked unreachable while the call runs, and the function that
// ends the watch. While the server is marked it returns why (an ErrSilent),
// and the call is not to be tried.
func (p *Probe) Watch(ctx context.Context) (context.Context, func(), error) {
	s := p.state.Load()
	if s.why != nil {
		return nil, nil, s.why
	}
	ctx, cancel := context.WithCancelCause(ctx)
	stop := context.AfterFunc(s.calls, func() { cancel(context.Cause(s.calls)) })
	return ctx, func() {
		stop()
		cancel(nil)
	}, nil
}

// Answered notes that the server answered a call: a probe that times out
// meanwhile marks nothing.
func (p *Probe) Answered() { p.lastAnswer.Store(time.Now().UnixNano()) }

// Down reports whether the server is marked unreachable.
func (p *Probe) Down() bool { return p.state.Load().why != nil }

// Close stops the probe and closes its connection.
func (p *Probe) Close() {
	p.stop()
	<-p.done
}

// ErrSilent is why a call was not tried, or was ended: the probe found
// the server not answering. It comes with the probe's own error, which
// names the server's address.
var ErrSilent = errors.New("the database did not answer the health probe")

// EndedCall reports whether the probe ended the call of ctx (Watch).
func EndedCall(ctx context.Context) bool {
	return errors.Is(context.Cause(ctx), ErrSilent)
}
