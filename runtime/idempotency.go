package runtime

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"time"

	"fieldapi/engine"
)

// maxIdempotencyKey bounds the header so the store's index stays small.
const maxIdempotencyKey = 255

// claim takes the write's Idempotency-Key, or answers from the store: a
// replay of the first response, 409 for other content, or — while the same
// key runs elsewhere — a wait for its response.
func (s *Server) claim(c *Call) error {
	key := c.R.Header.Get(HeaderIdempotencyKey)
	if key == "" {
		return IdempotencyKeyRequired()
	}
	if len(key) > maxIdempotencyKey {
		return InvalidParameter(HeaderIdempotencyKey, "at most 255 characters")
	}
	if !validText(key) {
		return InvalidParameter(HeaderIdempotencyKey, errBadText.Error())
	}
	claim := engine.Claim{
		Scope:       c.Session.ClientID + "\x00" + c.Session.Company + "\x00" + c.R.Method + " " + c.R.URL.EscapedPath(),
		Key:         key,
		Fingerprint: bodyFingerprint(c.Body),
		Token:       newRequestID(),
		Lease:       s.cfg.ClaimLease,
	}
	store := c.Engine.Idempotency()
	deadline := s.cfg.Now().Add(s.cfg.InFlightWait)
	for {
		res, err := store.Claim(c.Context(), claim)
		if errors.Is(err, engine.ErrTimeout) {
			// Only the claim may have been stored; the write itself never
			// ran, and a retry runs it at most once: safe to retry, 503.
			return EngineUnreachable()
		}
		if err != nil {
			return err
		}
		switch res.State {
		case engine.Claimed:
			c.claim = &claim
			return nil
		case engine.Replay:
			c.record.Replayed = true
			c.W.Header().Set(HeaderIdempotencyReplayed, "true")
			c.send(res.Response.Status, contentTypeFor(res.Response.Status), replayBody(res.Response, c.RequestID))
			return nil
		case engine.Mismatch:
			return IdempotencyMismatch()
		}
		c.record.WaitedCall = true
		if s.cfg.Now().After(deadline) {
			return IdempotencyInFlight()
		}
		select {
		case <-c.Context().Done():
			return IdempotencyInFlight()
		case <-time.After(25 * time.Millisecond):
		}
	}
}

// replayBody is a stored response as this call answers it. A problem's
// requestId is this call's X-Request-Id, as on every problem (spec 6:
// error bodies repeat it), so the body, the header and this call's access
// log line agree; the first call's id stays in its own log line.
func replayBody(stored engine.Response, requestID string) []byte {
	if stored.Status < 400 {
		return stored.Body
	}
	var p Problem
	if err := json.Unmarshal(stored.Body, &p); err != nil {
		return stored.Body // not a problem of ours: replayed as stored
	}
	p.RequestID = requestID
	body, err := json.Marshal(p)
	if err != nil {
		return stored.Body
	}
	return body
}

// bodyFingerprint hashes the canonical form of a JSON body, so the same
// content with other spacing or member order is the same request.
func bodyFingerprint(body []byte) string {
	canonical := body
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err == nil {
		if b, err := json.Marshal(v); err == nil {
			canonical = b
		}
	}
	sum := sha256.Sum256(canonical)
	return hex.EncodeToString(sum[:])
}
