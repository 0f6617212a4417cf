// Package auth verifies callers: the keys (mk_) and access tokens (mt_)
// a caller sends as Bearer, how they are made and kept (only a hash of
// the secret is stored), the addresses a key may call from and the scopes
// it holds.
package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"fieldapi/engine"
	"fieldapi/runtime/problem"
)

// Credential prefixes (spec 5): keys live until revoked, tokens an hour.
const (
	KeyPrefix   = "mk_"
	TokenPrefix = "mt_"
)

// ValidClientID is the form of a client id: it is part of the key text.
var ValidClientID = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{1,62}$`)

// validTokenID is the form of the id part of a token (randomHex(8)); a
// credential of another form is refused without a lookup.
var validTokenID = regexp.MustCompile(`^[0-9a-f]{16}$`)

// NewKey makes a key for a client: the text shown once to the operator,
// and the hash of its secret that is stored.
func NewKey(clientID string) (key string, secretHash []byte, err error) {
	if !ValidClientID.MatchString(clientID) {
		return "", nil, fmt.Errorf("client id %q: use 2 to 63 lower-case letters, digits and '-'", clientID)
	}
	secret := randomHex(24)
	return KeyPrefix + clientID + "_" + secret, HashSecret(secret), nil
}

// HashSecret is how secrets are stored: they are random and long, so a
// plain SHA-256 is enough.
func HashSecret(secret string) []byte {
	sum := sha256.Sum256([]byte(secret))
	return sum[:]
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// splitCredential splits "mk_<id>_<secret>" into id and secret.
func splitCredential(value, prefix string) (id, secret string, ok bool) {
	rest, found := strings.CutPrefix(value, prefix)
	if !found {
		return "", "", false
	}
	i := strings.LastIndexByte(rest, '_')
	if i <= 0 || i == len(rest)-1 {
		return "", "", false
	}
	return rest[:i], rest[i+1:], true
}

// principal is a verified caller.
type principal struct {
	key     engine.Key
	viaKey  bool // authenticated with the key itself, not a token
	expires time.Time
}

// Options tune an Authenticator.
type Options struct {
	RequireTokens bool          // a key sent as Bearer is refused with token_required
	CacheTTL      time.Duration // how long a verified key or token is trusted without a lookup; 0 or less: not at all
	TokenLifetime time.Duration // lifetime of the access tokens it issues
	Now           func() time.Time
}

// Authenticator verifies keys and tokens, trusting a verified credential
// for a short while so a hot path does not look it up on every call.
type Authenticator struct {
	keys engine.KeyStore
	cfg  Options

	mu    sync.Mutex
	cache map[[32]byte]principal
}

// New verifies the credentials of keys.
func New(keys engine.KeyStore, opts Options) *Authenticator {
	return &Authenticator{keys: keys, cfg: opts, cache: map[[32]byte]principal{}}
}

const maxAuthCache = 10_000

// Authenticate checks the credential of an Authorization header of the
// Bearer scheme and the caller's address, and returns the caller's key.
func (a *Authenticator) Authenticate(ctx context.Context, authorization string, from net.IP) (engine.Key, error) {
	bearer, ok := bearerCredential(authorization)
	if !ok {
		return engine.Key{}, problem.Unauthorized("send Authorization: Bearer <key or token>")
	}
	p, err := a.verify(ctx, bearer)
	if err != nil {
		return engine.Key{}, err
	}
	if p.viaKey && a.cfg.RequireTokens {
		return engine.Key{}, problem.TokenRequired()
	}
	if !allowedIP(p.key.AllowedIPs, from) {
		return engine.Key{}, problem.IPNotAllowed(from.String())
	}
	return p.key, nil
}

// RequireScope refuses a call that needs scope ("" for none) with scopes
// that do not hold it.
func RequireScope(scopes []string, scope string) error {
	if scope != "" && !hasScope(scopes, scope) {
		return problem.InsufficientScope(scope)
	}
	return nil
}

// bearerCredential is the credential of an Authorization header of the
// Bearer scheme, whose name is case-insensitive (RFC 9110 11.1).
func bearerCredential(header string) (string, bool) {
	scheme, credential, _ := strings.Cut(header, " ")
	credential = strings.TrimLeft(credential, " ")
	return credential, strings.EqualFold(scheme, "Bearer") && credential != ""
}

func hasScope(scopes []string, scope string) bool {
	return slices.Contains(scopes, "*") || slices.Contains(scopes, scope)
}

// verify resolves a key or token to its principal.
func (a *Authenticator) verify(ctx context.Context, bearer string) (principal, error) {
	now := a.cfg.Now()
	cacheKey := sha256.Sum256([]byte(bearer))
	a.mu.Lock()
	p, hit := a.cache[cacheKey]
	a.mu.Unlock()
	if hit && now.Before(p.expires) {
		return p, nil
	}
	p, err := a.lookup(ctx, bearer, now)
	if err != nil {
		return p, err
	}
	if a.cfg.CacheTTL > 0 {
		cached := p
		if until := now.Add(a.cfg.CacheTTL); until.Before(cached.expires) {
			cached.expires = until
		}
		a.mu.Lock()
		if len(a.cache) >= maxAuthCache {
			clear(a.cache)
		}
		a.cache[cacheKey] = cached
		a.mu.Unlock()
	}
	return p, nil
}

var errBadCredential = problem.Unauthorized("the key or token is not valid, was revoked or has expired")

func (a *Authenticator) lookup(ctx context.Context, bearer string, now time.Time) (principal, error) {
	if id, secret, ok := splitCredential(bearer, TokenPrefix); ok && validTokenID.MatchString(id) {
		tok, err := a.keys.LookupToken(ctx, id)
		if err != nil {
			return principal{}, credentialError(err)
		}
		if !sameSecret(tok.SecretHash, secret) || !now.Before(tok.Expires) {
			return principal{}, errBadCredential
		}
		key, err := a.activeKey(ctx, tok.ClientID)
		return principal{key: key, expires: tok.Expires}, err
	}
	if id, secret, ok := splitCredential(bearer, KeyPrefix); ok && ValidClientID.MatchString(id) {
		key, err := a.activeKey(ctx, id)
		if err != nil {
			return principal{}, err
		}
		if !sameSecret(key.SecretHash, secret) {
			return principal{}, errBadCredential
		}
		return principal{key: key, viaKey: true, expires: now.Add(24 * time.Hour)}, nil
	}
	return principal{}, errBadCredential
}

func (a *Authenticator) activeKey(ctx context.Context, clientID string) (engine.Key, error) {
	if !ValidClientID.MatchString(clientID) {
		return engine.Key{}, errBadCredential // no such key can exist: no lookup
	}
	key, err := a.keys.LookupKey(ctx, clientID)
	if err != nil {
		return key, credentialError(err)
	}
	if key.Revoked != nil {
		return key, errBadCredential
	}
	return key, nil
}

// credentialError keeps engine faults (503) apart from unknown credentials (401).
func credentialError(err error) error {
	if errors.Is(err, engine.ErrNoKey) {
		return errBadCredential
	}
	return err
}

// sameSecret compares in constant time.
func sameSecret(hash []byte, secret string) bool {
	return subtle.ConstantTimeCompare(hash, HashSecret(secret)) == 1
}

// IssueToken exchanges a key for an access token (POST /v1/token).
func (a *Authenticator) IssueToken(ctx context.Context, clientID, secret string, from net.IP) (engine.Key, string, time.Time, error) {
	key, err := a.activeKey(ctx, clientID)
	if err != nil {
		return key, "", time.Time{}, err
	}
	// the secret may be sent whole (mk_<id>_<secret>) or as its secret part
	if id, s, ok := splitCredential(secret, KeyPrefix); ok && id == clientID {
		secret = s
	}
	if !sameSecret(key.SecretHash, secret) {
		return key, "", time.Time{}, problem.Unauthorized("clientId and clientSecret do not match a valid key")
	}
	if !allowedIP(key.AllowedIPs, from) {
		return key, "", time.Time{}, problem.IPNotAllowed(from.String())
	}
	id, tokenSecret := randomHex(8), randomHex(24)
	expires := a.cfg.Now().Add(a.cfg.TokenLifetime)
	err = a.keys.SaveToken(ctx, engine.Token{ID: id, SecretHash: HashSecret(tokenSecret), ClientID: clientID, Expires: expires})
	return key, TokenPrefix + id + "_" + tokenSecret, expires, err
}

// RemoteIP is the address a request came from.
func RemoteIP(r *http.Request) net.IP {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	return net.ParseIP(host)
}

func allowedIP(ranges []string, ip net.IP) bool {
	if len(ranges) == 0 {
		return true
	}
	for _, cidr := range ranges {
		if _, n, err := net.ParseCIDR(cidr); err == nil && ip != nil && n.Contains(ip) {
			return true
		}
	}
	return false
}
