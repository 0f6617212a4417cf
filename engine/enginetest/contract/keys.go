package contract

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
	"fieldapi/engine/enginetest/kit"
)

var Keys = []kit.Test{
	test("keys and tokens", testKeyStore),
}

// testKeyStore: keys are stored for existing companies and their own
// signatures only, read back as stored (created at the engine clock's
// time when they give none), listed per company; a client id is never
// reused; revoking a key marks it at the clock's time and drops its
// tokens; an unknown id is engine.ErrNoKey.
func testKeyStore(t *testing.T, s *suite) {
	ctx := context.Background()
	store := s.Engine.Keys()
	clientID := strings.ReplaceAll(strings.ToLower(kit.UniqueName("client")), " ", "-")
	hash := sha256.Sum256([]byte("secret"))
	key := engine.Key{
		ClientID: clientID, Company: s.Company.Company, Sign: s.Company.Sign,
		Scopes: []string{s.Subject.Reg.ReadScope, s.Subject.Reg.WriteScope}, AllowedIPs: []string{"10.0.0.0/8"},
		SecretHash: hash[:], Created: time.Now().UTC().Truncate(time.Millisecond),
	}
	if err := store.CreateKey(ctx, key); err != nil {
		t.Fatalf("CreateKey: %v", err)
	}
	if err := store.CreateKey(ctx, key); err == nil {
		t.Error("CreateKey with a client id in use succeeded; want an error")
	}
	stranger := key
	stranger.ClientID, stranger.Sign = clientID+"-x", "NO-SUCH-SIGN"
	if err := store.CreateKey(ctx, stranger); err == nil {
		t.Error("CreateKey for a signature that does not exist succeeded; want an error")
	}
	stranger = key
	stranger.ClientID, stranger.Company = clientID+"-y", "no-such-company"
	if err := store.CreateKey(ctx, stranger); err == nil {
		t.Error("CreateKey for a company that does not exist succeeded; want an error")
	}
	if s.ReadOnly.Company != "" {
		stranger = key
		stranger.ClientID, stranger.Company, stranger.Sign = clientID+"-z", s.Other.Company, s.ReadOnly.Sign
		if err := store.CreateKey(ctx, stranger); err == nil {
			t.Errorf("CreateKey in %s for %s, a signature of %s only, succeeded; want an error", s.Other.Company, s.ReadOnly.Sign, s.ReadOnly.Company)
		}
	}
	if _, err := store.LookupKey(ctx, clientID+"-x"); !errors.Is(err, engine.ErrNoKey) {
		t.Errorf("LookupKey of a key refused: %v; want engine.ErrNoKey", err)
	}

	// A key without a creation time is created at the engine clock's time;
	// one without allowed IPs has an empty list.
	plain := engine.Key{ClientID: clientID + "-plain", Company: s.Company.Company, Sign: s.Company.Sign, SecretHash: hash[:]}
	from := s.Clock.Now()
	if err := store.CreateKey(ctx, plain); err != nil {
		t.Fatalf("CreateKey without a time: %v", err)
	}
	to := s.Clock.Now()
	if got, err := store.LookupKey(ctx, plain.ClientID); err != nil || got.Created.Before(from.Truncate(time.Millisecond)) || got.Created.After(to) ||
		got.AllowedIPs == nil || len(got.AllowedIPs) != 0 {
		t.Errorf("LookupKey of a key created without a time or allowed IPs = %+v, %v; want Created between %s and %s (the engine's clock) and AllowedIPs an empty list", got, err, from, to)
	}

	got, err := store.LookupKey(ctx, clientID)
	if err != nil {
		t.Fatalf("LookupKey: %v", err)
	}
	if got.ClientID != key.ClientID || got.Company != key.Company || got.Sign != key.Sign ||
		!slices.Equal(got.Scopes, key.Scopes) || !slices.Equal(got.AllowedIPs, key.AllowedIPs) ||
		!bytes.Equal(got.SecretHash, key.SecretHash) || got.Revoked != nil || !got.Created.Equal(key.Created) {
		t.Errorf("LookupKey = %+v; want the key as stored, %+v", got, key)
	}
	if _, err := store.LookupKey(ctx, "no-such-client"); !errors.Is(err, engine.ErrNoKey) {
		t.Errorf("LookupKey of an unknown id: %v; want engine.ErrNoKey", err)
	}
	listed := func(company string) bool {
		t.Helper()
		keys, err := store.ListKeys(ctx, company)
		if err != nil {
			t.Fatalf("ListKeys(%q): %v", company, err)
		}
		return slices.ContainsFunc(keys, func(k engine.Key) bool { return k.ClientID == clientID })
	}
	if !listed(s.Company.Company) || !listed("") || listed(s.Other.Company) {
		t.Errorf("ListKeys: the key is listed for its company %v, for all %v, for another company %v; want true, true, false",
			listed(s.Company.Company), listed(""), listed(s.Other.Company))
	}

	token := engine.Token{ID: clientID + "-token", SecretHash: hash[:], ClientID: clientID, Expires: time.Now().Add(time.Hour).UTC().Truncate(time.Millisecond)}
	if err := store.SaveToken(ctx, token); err != nil {
		t.Fatalf("SaveToken: %v", err)
	}
	gotToken, err := store.LookupToken(ctx, token.ID)
	if err != nil {
		t.Fatalf("LookupToken: %v", err)
	}
	if gotToken.ClientID != clientID || !bytes.Equal(gotToken.SecretHash, token.SecretHash) || !gotToken.Expires.Equal(token.Expires) {
		t.Errorf("LookupToken = %+v; want the token as saved, %+v", gotToken, token)
	}
	if _, err := store.LookupToken(ctx, "no-such-token"); !errors.Is(err, engine.ErrNoKey) {
		t.Errorf("LookupToken of an unknown id: %v; want engine.ErrNoKey", err)
	}

	s.Clock.Advance(time.Minute)
	from = s.Clock.Now()
	if err := store.RevokeKey(ctx, clientID); err != nil {
		t.Fatalf("RevokeKey: %v", err)
	}
	to = s.Clock.Now()
	s.Clock.Advance(time.Minute)
	if err := store.RevokeKey(ctx, clientID); err != nil {
		t.Errorf("RevokeKey twice: %v; want it harmless", err)
	}
	if got, err := store.LookupKey(ctx, clientID); err != nil || got.Revoked == nil || got.Revoked.Before(from.Truncate(time.Millisecond)) || got.Revoked.After(to) {
		t.Errorf("LookupKey after RevokeKey = %+v, %v; want Revoked at the engine clock's time of the first revoke, between %s and %s", got, err, from, to)
	}
	if err := store.RevokeKey(ctx, "no-such-client"); !errors.Is(err, engine.ErrNoKey) {
		t.Errorf("RevokeKey of an unknown id: %v; want engine.ErrNoKey", err)
	}
	if _, err := store.LookupToken(ctx, token.ID); !errors.Is(err, engine.ErrNoKey) {
		t.Errorf("LookupToken after its key was revoked: %v; want engine.ErrNoKey", err)
	}
	if err := store.CreateKey(ctx, key); err == nil {
		t.Error("CreateKey with a revoked key's client id succeeded; want an error (ids are never reused)")
	}
}
