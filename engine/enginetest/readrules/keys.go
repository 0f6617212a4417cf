package readrules

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"fieldapi/engine"
)

// testDemoKeys: a key is created only for a company and a signature of
// that company that exist, refused with the engine's text otherwise; it
// reads back as stored, created at the engine clock's time when it gives
// none; a company's keys are listed apart, a key without allowed IPs
// with an empty list; a token reads back as saved; revoking a key marks
// it at the clock's time and drops its tokens; an unknown client id is
// engine.ErrNoKey.
func testDemoKeys(t *testing.T, s *suite) {
	s.Demo(t, "users")
	ctx := context.Background()
	keys := s.Engine.Keys()
	hash := sha256.Sum256([]byte("secret"))
	key := engine.Key{ClientID: "client1", Company: "demo", Sign: "API", Scopes: []string{"customers:read", "customers:write"},
		AllowedIPs: []string{"10.0.0.0/8"}, SecretHash: hash[:]}

	bad := key
	bad.Company = "nope"
	if err := keys.CreateKey(ctx, bad); err == nil || !strings.Contains(err.Error(), `unknown company "nope"`) {
		t.Errorf("CreateKey for an unknown company: %v; want an error saying unknown company \"nope\"", err)
	}
	bad = key
	bad.Sign = "INSO" // a signature of demo2, not of demo
	if err := keys.CreateKey(ctx, bad); err == nil || !strings.Contains(err.Error(), `unknown sign "INSO"`) {
		t.Errorf("CreateKey for another company's signature: %v; want an error saying unknown sign \"INSO\"", err)
	}

	from := s.Clock.Now()
	if err := keys.CreateKey(ctx, key); err != nil {
		t.Fatalf("CreateKey: %v", err)
	}
	to := s.Clock.Now()
	if err := keys.CreateKey(ctx, key); err == nil {
		t.Error("CreateKey with a client id in use succeeded; want an error")
	}
	got, err := keys.LookupKey(ctx, "client1")
	if err != nil {
		t.Fatalf("LookupKey: %v", err)
	}
	if got.ClientID != key.ClientID || got.Company != key.Company || got.Sign != key.Sign || !slices.Equal(got.Scopes, key.Scopes) ||
		!slices.Equal(got.AllowedIPs, key.AllowedIPs) || !bytes.Equal(got.SecretHash, key.SecretHash) || got.Revoked != nil {
		t.Errorf("LookupKey = %+v; want the key as stored, %+v", got, key)
	}
	if got.Created.Before(from.Truncate(time.Millisecond)) || got.Created.After(to) {
		t.Errorf("Created = %s; want the engine clock's time of CreateKey, between %s and %s", got.Created, from, to)
	}

	other := engine.Key{ClientID: "client2", Company: "demo2", Sign: "API", Scopes: []string{"*"}, SecretHash: hash[:]}
	if err := keys.CreateKey(ctx, other); err != nil {
		t.Fatalf("CreateKey in demo2: %v", err)
	}
	all, err := keys.ListKeys(ctx, "")
	if err != nil || len(all) != 2 {
		t.Errorf("ListKeys of every company: %d keys, %v; want the 2 created", len(all), err)
	}
	demo2, err := keys.ListKeys(ctx, "demo2")
	if err != nil || len(demo2) != 1 || demo2[0].ClientID != "client2" || demo2[0].AllowedIPs == nil || len(demo2[0].AllowedIPs) != 0 {
		t.Errorf("ListKeys of demo2 = %+v, %v; want client2 alone, with AllowedIPs an empty list", demo2, err)
	}

	token := engine.Token{ID: "tok1", SecretHash: hash[:], ClientID: "client1", Expires: s.Clock.Now().Add(time.Hour).Truncate(time.Microsecond)}
	if err := keys.SaveToken(ctx, token); err != nil {
		t.Fatalf("SaveToken: %v", err)
	}
	gotToken, err := keys.LookupToken(ctx, "tok1")
	if err != nil || gotToken.ID != token.ID || gotToken.ClientID != token.ClientID || !bytes.Equal(gotToken.SecretHash, token.SecretHash) || !gotToken.Expires.Equal(token.Expires) {
		t.Errorf("LookupToken = %+v, %v; want the token as saved, %+v", gotToken, err, token)
	}

	s.Clock.Advance(time.Minute)
	from = s.Clock.Now()
	if err := keys.RevokeKey(ctx, "client1"); err != nil {
		t.Fatalf("RevokeKey: %v", err)
	}
	to = s.Clock.Now()
	got, err = keys.LookupKey(ctx, "client1")
	if err != nil || got.Revoked == nil || got.Revoked.Before(from.Truncate(time.Millisecond)) || got.Revoked.After(to) {
		t.Errorf("LookupKey after RevokeKey = %+v, %v; want Revoked at the engine clock's time of the revoke, between %s and %s", got, err, from, to)
	}
	if _, err := keys.LookupToken(ctx, "tok1"); !errors.Is(err, engine.ErrNoKey) {
		t.Errorf("LookupToken of a revoked key's token: %v; want engine.ErrNoKey (revoked with its key)", err)
	}
	if err := keys.RevokeKey(ctx, "nobody"); !errors.Is(err, engine.ErrNoKey) {
		t.Errorf("RevokeKey of an unknown client: %v; want engine.ErrNoKey", err)
	}
	if _, err := keys.LookupKey(ctx, "nobody"); !errors.Is(err, engine.ErrNoKey) {
		t.Errorf("LookupKey of an unknown client: %v; want engine.ErrNoKey", err)
	}
}
