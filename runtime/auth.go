package runtime

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

// authenticator verifies keys and tokens, trusting a verified credential
// for a short while so a hot path does not look it up on every call.
type authenticator struct {
	keys engine.KeyStore
	cfg  Config

	mu    sync.Mutex
	cache map[[32]byte]principal
}

func newAuthenticator(keys engine.KeyStore, cfg Config) *authenticator {
	return &authenticator{keys: keys, cfg: cfg, cache: map[[32]byte]principal{}}
}

const maxAuthCache = 10_000

// authenticate checks the Bearer credential, the caller's address and the
// route's scope, and fills in the call's session.
func (a *authenticator) authenticate(c *Call) error {
	bearer, ok := bearerCredential(c.R.Header.Get(HeaderAuthorization))
	if !ok {
		return problem.Unauthorized("send Authorization: Bearer <key or token>")
	}
	p, err := a.verify(c.Context(), bearer)
	if err != nil {
		return err
	}
	if p.viaKey && a.cfg.RequireTokens {
		return problem.TokenRequired()
	}
	if ip := remoteIP(c.R); !allowedIP(p.key.AllowedIPs, ip) {
		return problem.IPNotAllowed(ip.String())
	}
	c.Session = engine.Session{Company: p.key.Company, Sign: p.key.Sign, ClientID: p.key.ClientID}
	c.Scopes = p.key.Scopes
	if scope := c.route.Scope; scope != "" && !hasScope(p.key.Scopes, scope) {
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
func (a *authenticator) verify(ctx context.Context, bearer string) (principal, error) {
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
	if a.cfg.AuthCacheTTL > 0 {
		cached := p
		if until := now.Add(a.cfg.AuthCacheTTL); until.Before(cached.expires) {
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

func (a *authenticator) lookup(ctx context.Context, bearer string, now time.Time) (principal, error) {
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

func (a *authenticator) activeKey(ctx context.Context, clientID string) (engine.Key, error) {
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

// issueToken exchanges a key for an access token (POST /v1/token).
func (a *authenticator) issueToken(ctx context.Context, clientID, secret string, from net.IP) (engine.Key, string, time.Time, error) {
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

func remoteIP(r *http.Request) net.IP {
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
