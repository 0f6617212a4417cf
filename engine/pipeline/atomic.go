package pipeline

import (
	"context"
	"fmt"

	"fieldapi/engine"
	"fieldapi/engine/store"
)

var _ engine.Atomic = (*Engine)(nil)

// A joined transaction is how the writes of an atomic batch share one
// store transaction: Atomically opens it and puts it in the context, and
// every write of the engine (writeAs, write) that finds it there runs in
// it instead of opening its own. The value is explicit in the context, so
// a write joins only inside an Atomically call of this very engine.
type joinedKey struct{}

type joined struct {
	e  *Engine
	s  engine.Session
	tx store.Tx
}

// Atomically runs fn with every write of the engine in one transaction
// (engine.Atomic); the response fn returns is settled under claim in it.
func (e *Engine) Atomically(ctx context.Context, s engine.Session, claim engine.Claim, fn func(ctx context.Context) (engine.Response, error)) (engine.Response, error) {
	if j, _ := ctx.Value(joinedKey{}).(*joined); j != nil {
		return engine.Response{}, fmt.Errorf("pipeline: Atomically inside Atomically")
	}
	var resp engine.Response
	err := e.store.Write(ctx, func(ctx context.Context, tx store.Tx) error {
		var err error
		if resp, err = fn(context.WithValue(ctx, joinedKey{}, &joined{e: e, s: s, tx: tx})); err != nil {
			return err
		}
		writes, err := e.platform.Bind(tx)
		if err != nil {
			return err
		}
		return writes.Settle(ctx, claim, resp)
	})
	return resp, err
}

// joinedTx is the transaction of the Atomically call ctx runs in, nil
// outside one. A write of another session inside it is refused: the HTTP
// layer gives a batch's operations the batch's session, and a write that
// opened a transaction of its own there would wait for the joined one.
func (e *Engine) joinedTx(ctx context.Context, s engine.Session) (store.Tx, error) {
	j, _ := ctx.Value(joinedKey{}).(*joined)
	if j == nil || j.e != e {
		return nil, nil
	}
	if j.s != s {
		return nil, fmt.Errorf("pipeline: a write of another session inside Atomically")
	}
	return j.tx, nil
}
