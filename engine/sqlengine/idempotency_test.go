package sqlengine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"

	"fieldapi/engine"
)

func claim(key, fingerprint, token string) engine.Claim {
	// The HTTP layer separates the parts of a scope with NUL characters.
	return engine.Claim{Scope: "client1\x00demo\x00POST /v1/customers", Key: key, Fingerprint: fingerprint, Token: token, Lease: time.Minute}
}

func TestIdempotencyClaims(t *testing.T) {
	eachEngine(t, func(t *testing.T, e testEngine) {
		is := is.New(t)
		ctx := context.Background()
		store := e.Idempotency()
		state := func(c engine.Claim) engine.ClaimState {
			t.Helper()
			r, err := store.Claim(ctx, c)
			is.NoErr(err)
			return r.State
		}

		first := claim("k1", "fp1", "tok-a")
		is.Equal(state(first), engine.Claimed)
		is.Equal(state(claim("k1", "fp1", "tok-b")), engine.InFlight) // running now
		is.Equal(state(claim("k1", "fp2", "tok-b")), engine.Mismatch) // other content

		stored := engine.Response{Status: 422, Body: []byte(`{"title":"command_failed"}`)}
		is.NoErr(store.Complete(ctx, first, stored))
		r, err := store.Claim(ctx, claim("k1", "fp1", "tok-c"))
		is.NoErr(err)
		is.Equal(r.State, engine.Replay)
		is.Equal(r.Response, stored)
		is.Equal(state(claim("k1", "fp2", "tok-c")), engine.Mismatch)
		is.True(errors.Is(store.Complete(ctx, first, stored), errClaimLost)) // done already

		// Release forgets a pending claim, but only with its own token.
		second := claim("k2", "fp", "tok-a")
		is.Equal(state(second), engine.Claimed)
		is.NoErr(store.Release(ctx, claim("k2", "fp", "tok-other")))
		is.Equal(state(claim("k2", "fp", "tok-b")), engine.InFlight)
		is.NoErr(store.Release(ctx, second))
		is.Equal(state(claim("k2", "fp", "tok-b")), engine.Claimed)

		// An abandoned claim is taken over once its lease runs out.
		e.clock.Advance(2 * time.Minute)
		is.Equal(state(claim("k2", "fp", "tok-c")), engine.Claimed)
		is.True(errors.Is(store.Complete(ctx, claim("k2", "fp", "tok-b"), stored), errClaimLost))
		is.NoErr(store.Complete(ctx, claim("k2", "fp", "tok-c"), stored))

		// Prune deletes completed keys created before the cut.
		is.Equal(state(claim("k3", "fp", "tok-a")), engine.Claimed)
		n, err := store.Prune(ctx, e.clock.Now().Add(-time.Minute))
		is.NoErr(err)
		is.Equal(n, 1) // k1; k2 was re-claimed at the current time
		is.Equal(state(claim("k1", "fp2", "tok-d")), engine.Claimed)
		is.Equal(count(t, e, "idempotency", ""), 3)
	})
}

func TestIdempotencyConcurrentClaims(t *testing.T) {
	eachEngine(t, func(t *testing.T, e testEngine) {
		is := is.New(t)
		var wg sync.WaitGroup
		states := make([]engine.ClaimState, 20)
		errs := make([]error, 20)
		for i := range states {
			wg.Go(func() {
				r, err := e.Idempotency().Claim(context.Background(), claim("same", "fp", fmt.Sprintf("tok-%d", i)))
				states[i], errs[i] = r.State, err
			})
		}
		wg.Wait()
		claimed := 0
		for i, s := range states {
			is.NoErr(errs[i])
			if s == engine.Claimed {
				claimed++
			} else {
				is.Equal(s, engine.InFlight)
			}
		}
		is.Equal(claimed, 1)
	})
}

// TestReceiptCommitsWithTheWrite checks the response of a write is stored
// in the write's own transaction: both commit, or neither.
func TestReceiptCommitsWithTheWrite(t *testing.T) {
	eachEngine(t, func(t *testing.T, e testEngine) {
		is := is.New(t)
		ctx := context.Background()
		store := e.Idempotency()
		customers := func() int { return count(t, e, "customers", `"company" = 'demo'`) }
		before := customers()

		c := claim("create-1", "fp", "tok-a")
		r, err := store.Claim(ctx, c)
		is.NoErr(err)
		is.Equal(r.State, engine.Claimed)
		resp, err := e.Create(ctx, demoAPI, "customers", input(map[string]any{"Name": "Kvitto AB"}), asJSON(c))
		is.NoErr(err)
		is.Equal(decoded(t, resp)["Name"], "Kvitto AB")
		r, err = store.Claim(ctx, claim("create-1", "fp", "tok-b"))
		is.NoErr(err)
		is.Equal(r.State, engine.Replay)
		is.Equal(r.Response, resp)
		is.Equal(customers(), before+1)

		// The claim was taken over meanwhile: the write must not commit.
		lost := claim("create-2", "fp", "tok-a")
		_, err = store.Claim(ctx, lost)
		is.NoErr(err)
		lost.Token = "tok-someone-else"
		_, err = e.Create(ctx, demoAPI, "customers", input(map[string]any{"Name": "Förlorad AB"}), asJSON(lost))
		is.True(errors.Is(err, errClaimLost))
		is.Equal(customers(), before+1)

		// A receipt that cannot be rendered rolls the write back.
		failing := engine.Receipt{Claim: claim("create-3", "fp", "tok-a"), Render: func(engine.Record) (engine.Response, error) {
			return engine.Response{}, errors.New("render failed")
		}}
		_, err = store.Claim(ctx, failing.Claim)
		is.NoErr(err)
		_, err = e.Create(ctx, demoAPI, "customers", input(map[string]any{"Name": "Orenderad AB"}), failing)
		is.True(err != nil)
		is.Equal(customers(), before+1)
		is.Equal(count(t, e, "change_log", ""), 1) // only create-1 was logged
	})
}
