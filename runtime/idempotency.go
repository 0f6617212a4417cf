package runtime

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"

	"fieldapi/engine"
	"fieldapi/internal/jsontext"
	"fieldapi/runtime/problem"
	"fieldapi/runtime/textcheck"
)

// maxIdempotencyKey bounds the header so the store's index stays small.
const maxIdempotencyKey = 255

// claim checks the write's Idempotency-Key and claims it for the call.
// A write to a register's records (a route a batch may take) runs without
// looking its key up first: its response is stored under the key in the
// write's own transaction, whose commit fails when the key holds a
// response already (engine.ErrClaimLost), and then the call answers with
// that one (answerRace). A lookup before every write was a round trip of
// its own, for the rare retry. Other writes (a batch, a webhook) look the
// key up first, so a retried batch does not run its operations again.
func (s *Server) claim(c *Call) error {
	key := c.R.Header.Get(HeaderIdempotencyKey)
	if key == "" {
		return problem.IdempotencyKeyRequired()
	}
	if len(key) > maxIdempotencyKey {
		return problem.InvalidParameter(HeaderIdempotencyKey, "at most 255 characters")
	}
	if err := textcheck.Param(HeaderIdempotencyKey, key); err != nil {
		return err
	}
	if c.route.batchable {
		c.claim = c.claimOf(key)
		return nil
	}
	return s.claimKey(c, key)
}

// claimOf is the call's claim to a checked key.
func (c *Call) claimOf(key string) *engine.Claim {
	return &engine.Claim{
		Scope:       c.Session.ClientID + "\x00" + c.Session.Company + "\x00" + c.R.Method + " " + c.R.URL.EscapedPath(),
		Key:         key,
		Fingerprint: bodyFingerprint(c.Body),
	}
}

// claimKey looks a checked key up (a client's, or one the service derived,
// such as a batch operation's) and answers from the store when it holds a
// response: a replay of the first one, or 409 for other content. A key
// without a response is claimed for the call, whose response is stored
// with its write (or with Complete when it wrote nothing).
func (s *Server) claimKey(c *Call, key string) error {
	claim := c.claimOf(key)
	res, err := c.Engine.Idempotency().Claim(c.Context(), *claim)
	if errors.Is(err, engine.ErrTimeout) {
		return problem.EngineUnreachable() // a lookup writes nothing: safe to retry
	}
	if err != nil {
		return err
	}
	if res.State == engine.Claimed {
		c.claim = claim
		return nil
	}
	return c.answerStored(res)
}

// answerStored answers with what the store holds for the call's key: a
// replay of the first response, or 409 for other content.
func (c *Call) answerStored(res engine.ClaimResult) error {
	switch res.State {
	case engine.Replay:
		c.record.Replayed = true
		c.W.Header().Set(HeaderIdempotencyReplayed, "true")
		c.send(res.Response.Status, contentTypeFor(res.Response.Status), replayBody(res.Response, c.RequestID))
		return nil
	case engine.Mismatch:
		return problem.IdempotencyMismatch()
	}
	return problem.IdempotencyClaimLost()
}

// answerRace answers a call whose key another execution of the same key
// answered first, while this one ran (engine.ErrClaimLost): this one
// wrote nothing and answers with that execution's stored response.
func (c *Call) answerRace() {
	c.record.LostRace = true
	claim := *c.claim
	c.claim = nil // settled by the other execution: nothing of this one's to store
	res, err := c.Engine.Idempotency().Claim(context.WithoutCancel(c.Context()), claim)
	if err == nil {
		err = c.answerStored(res)
	}
	if err != nil {
		c.fail(err)
	}
}

// answeredBefore answers a call refused with nothing stored (a malformed
// body, a stale If-Match) with the response its key holds, when an
// execution of the key stored one: the call's key was not looked up
// before it ran. It reports whether it answered.
func (c *Call) answeredBefore() bool {
	res, err := c.Engine.Idempotency().Claim(context.WithoutCancel(c.Context()), *c.claim)
	if err != nil || res.State == engine.Claimed {
		return false
	}
	c.claim = nil
	if err := c.answerStored(res); err != nil {
		c.fail(err)
	}
	return true
}

// replayBody is a stored response as this call answers it. A problem's
// requestId is this call's X-Request-Id, as on every problem (spec 6:
// error bodies repeat it), so the body, the header and this call's access
// log line agree; the first call's id stays in its own log line.
func replayBody(stored engine.Response, requestID string) []byte {
	if stored.Status < 400 {
		return stored.Body
	}
	return problem.Restamp(stored.Body, requestID)
}

// bodyFingerprint hashes the canonical form of a JSON body, so the same
// content with other spacing or member order is the same request. The
// form is json.Marshal's of the decoded body (jsontext.Canonical writes
// it without decoding), so fingerprints stored before stay comparable.
func bodyFingerprint(body []byte) string {
	canonical, ok := jsontext.Canonical(make([]byte, 0, len(body)), body)
	if !ok {
		canonical = body
	}
	sum := sha256.Sum256(canonical)
	return hex.EncodeToString(sum[:])
}
