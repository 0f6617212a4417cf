package engine

import (
	"context"
	"errors"
	"strconv"
	"time"
)

// KeyStore keeps API keys and the tokens issued for them. Secrets are never
// stored: only their SHA-256 hashes.
type KeyStore interface {
	// CreateKey stores a new key after checking its company and signature exist.
	CreateKey(ctx context.Context, k Key) error
	// LookupKey returns the key with the given client id, revoked or not.
	LookupKey(ctx context.Context, clientID string) (Key, error)
	// ListKeys lists keys, of one company when company is not empty.
	ListKeys(ctx context.Context, company string) ([]Key, error)
	// RevokeKey revokes a key and every token issued for it.
	RevokeKey(ctx context.Context, clientID string) error
	// SaveToken stores an issued token.
	SaveToken(ctx context.Context, t Token) error
	// LookupToken returns the token with the given id.
	LookupToken(ctx context.Context, id string) (Token, error)
}

// Key is an API key as stored.
type Key struct {
	ClientID   string
	Company    string
	Sign       string
	Scopes     []string // "*" or resource:read / resource:write
	AllowedIPs []string // CIDR ranges; empty allows every address
	SecretHash []byte   // SHA-256 of the secret part
	Created    time.Time
	Revoked    *time.Time
}

// Token is an access token issued by POST /v1/token.
type Token struct {
	ID         string // public part, the lookup key
	SecretHash []byte // SHA-256 of the secret part
	ClientID   string
	Expires    time.Time
}

// ErrNoKey: no key or token with that id.
var ErrNoKey = errors.New("no such key")

// IdempotencyStore keeps the response of each write under its
// Idempotency-Key, stored only with its first execution's response: by a
// write in its own transaction (the platform's Writes.Settle), by a call
// that wrote nothing with Complete. So no dead execution holds a key, and
// a key costs a write no commit. Of two executions of one key, the second
// to store gets ErrClaimLost, writes nothing and replays the first's.
type IdempotencyStore interface {
	// Claim looks the key up: Replay or Mismatch when a response is
	// stored, else Claimed (nothing is stored until the call settles).
	Claim(ctx context.Context, c Claim) (ClaimResult, error)
	// Complete stores the response of a call that wrote nothing (for
	// example a 422), so a retry replays it; ErrClaimLost when another
	// execution stored its response first.
	Complete(ctx context.Context, c Claim, r Response) error
	// Prune deletes keys stored before the given time.
	Prune(ctx context.Context, before time.Time) (int, error)
}

// Claim is one execution's claim to an Idempotency-Key.
type Claim struct {
	Scope       string // client, company, method and path
	Key         string // the client's Idempotency-Key
	Fingerprint string // SHA-256 of the canonical request
}

// ClaimState is the outcome of a Claim.
type ClaimState int

// The claim outcomes.
const (
	Claimed  ClaimState = iota // no response stored: run the call
	Replay                     // completed before with the same content: replay Response
	Mismatch                   // used before with other content
)

// String names the state, in logs and test failures.
func (st ClaimState) String() string {
	if names := [...]string{"Claimed", "Replay", "Mismatch"}; int(st) >= 0 && int(st) < len(names) {
		return names[st]
	}
	return "ClaimState(" + strconv.Itoa(int(st)) + ")"
}

// ClaimResult is the outcome of a Claim, with the stored response on Replay.
type ClaimResult struct {
	State    ClaimState
	Response Response
}
