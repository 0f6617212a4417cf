package platformtest

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"slices"
	"testing"
	"time"

	"fieldapi/engine"
)

var keyTests = []test{
	{"keys", testKeys},
	{"tokens", testTokens},
}

// testKeys: keys are stored as given, read back, listed per company
// oldest first; a client id is never reused, by a revoked key neither; an
// unknown id is engine.ErrNoKey; a key without a creation time is created
// now.
func testKeys(t *testing.T, s *suite) {
	keys := s.Platform.Keys()
	hash := sha256.Sum256([]byte("secret"))
	key := engine.Key{
		ClientID: "client-b", Company: companyA, Sign: admin,
		Scopes: []string{"tasks:read", "tasks:write"}, AllowedIPs: []string{"10.0.0.0/8"},
		SecretHash: hash[:], Created: s.Clock.Now().Add(-time.Hour),
	}
	if err := keys.CreateKey(s.ctx, key); err != nil {
		t.Fatalf("CreateKey: %v", err)
	}
	if err := keys.CreateKey(s.ctx, key); err == nil {
		t.Error("CreateKey with a client id in use succeeded; want an error")
	}
	got, err := keys.LookupKey(s.ctx, key.ClientID)
	if err != nil {
		t.Fatalf("LookupKey: %v", err)
	}
	if got.ClientID != key.ClientID || got.Company != key.Company || got.Sign != key.Sign ||
		!slices.Equal(got.Scopes, key.Scopes) || !slices.Equal(got.AllowedIPs, key.AllowedIPs) ||
		!bytes.Equal(got.SecretHash, key.SecretHash) || got.Revoked != nil || !got.Created.Equal(key.Created) {
		t.Errorf("LookupKey = %+v; want the key as stored, %+v", got, key)
	}
	if _, err := keys.LookupKey(s.ctx, "no-such-client"); !errors.Is(err, engine.ErrNoKey) {
		t.Errorf("LookupKey of an unknown id: %v; want engine.ErrNoKey", err)
	}

	// Created now when not given; listed oldest first, then by client id.
	for _, k := range []engine.Key{
		{ClientID: "client-a", Company: companyA, Sign: admin, Created: key.Created},
		{ClientID: "client-c", Company: companyA, Sign: limited},
		{ClientID: "client-other", Company: companyB, Sign: admin},
	} {
		if err := keys.CreateKey(s.ctx, k); err != nil {
			t.Fatalf("CreateKey(%s): %v", k.ClientID, err)
		}
	}
	if c, err := keys.LookupKey(s.ctx, "client-c"); err != nil || !c.Created.Equal(s.Clock.Now()) || c.Scopes == nil || len(c.Scopes) != 0 {
		t.Errorf("LookupKey of a key created without a time or scopes = %+v, %v; want Created now and no scopes", c, err)
	}
	listed := func(company string) []string {
		t.Helper()
		list, err := keys.ListKeys(s.ctx, company)
		if err != nil {
			t.Fatalf("ListKeys(%q): %v", company, err)
		}
		ids := []string{}
		for _, k := range list {
			ids = append(ids, k.ClientID)
		}
		return ids
	}
	if got := listed(companyA); !slices.Equal(got, []string{"client-a", "client-b", "client-c"}) {
		t.Errorf("ListKeys(%s) = %v; want client-a, client-b (same time, by id), client-c (newer)", companyA, got)
	}
	if got := listed(""); len(got) != 4 || !slices.Contains(got, "client-other") {
		t.Errorf("ListKeys of every company = %v; want the 4 keys", got)
	}

	s.Clock.Advance(time.Minute)
	if err := keys.RevokeKey(s.ctx, key.ClientID); err != nil {
		t.Fatalf("RevokeKey: %v", err)
	}
	revokedAt := s.Clock.Now()
	s.Clock.Advance(time.Minute)
	if err := keys.RevokeKey(s.ctx, key.ClientID); err != nil {
		t.Errorf("RevokeKey twice: %v; want it harmless", err)
	}
	if got, err := keys.LookupKey(s.ctx, key.ClientID); err != nil || got.Revoked == nil || !got.Revoked.Equal(revokedAt) {
		t.Errorf("LookupKey after RevokeKey = %+v, %v; want Revoked at the first revoke, %v", got, err, revokedAt)
	}
	if err := keys.RevokeKey(s.ctx, "no-such-client"); !errors.Is(err, engine.ErrNoKey) {
		t.Errorf("RevokeKey of an unknown id: %v; want engine.ErrNoKey", err)
	}
	if err := keys.CreateKey(s.ctx, key); err == nil {
		t.Error("CreateKey with a revoked key's client id succeeded; want an error (ids are never reused)")
	}
}

// testTokens: tokens are saved and read back, expired ones too until the
// next save drops them; revoking a key drops its tokens; an unknown id is
// engine.ErrNoKey.
func testTokens(t *testing.T, s *suite) {
	keys := s.Platform.Keys()
	for _, id := range []string{"client-1", "client-2"} {
		if err := keys.CreateKey(s.ctx, engine.Key{ClientID: id, Company: companyA, Sign: admin}); err != nil {
			t.Fatal(err)
		}
	}
	hash := sha256.Sum256([]byte("token secret"))
	save := func(id, client string, expires time.Time) engine.Token {
		t.Helper()
		tok := engine.Token{ID: id, SecretHash: hash[:], ClientID: client, Expires: expires}
		if err := keys.SaveToken(s.ctx, tok); err != nil {
			t.Fatalf("SaveToken(%s): %v", id, err)
		}
		return tok
	}
	found := func(id string) bool {
		t.Helper()
		_, err := keys.LookupToken(s.ctx, id)
		if err != nil && !errors.Is(err, engine.ErrNoKey) {
			t.Fatalf("LookupToken(%s): %v", id, err)
		}
		return err == nil
	}

	short := save("tok-short", "client-1", s.Clock.Now().Add(time.Minute))
	got, err := keys.LookupToken(s.ctx, short.ID)
	if err != nil || got.ClientID != short.ClientID || !bytes.Equal(got.SecretHash, short.SecretHash) || !got.Expires.Equal(short.Expires) {
		t.Errorf("LookupToken = %+v, %v; want the token as saved, %+v", got, err, short)
	}
	if _, err := keys.LookupToken(s.ctx, "no-such-token"); !errors.Is(err, engine.ErrNoKey) {
		t.Errorf("LookupToken of an unknown id: %v; want engine.ErrNoKey", err)
	}
	s.Clock.Advance(2 * time.Minute)
	if !found("tok-short") {
		t.Error("an expired token is gone before the next save; want it kept until then")
	}
	save("tok-long", "client-1", s.Clock.Now().Add(time.Hour))
	save("tok-other", "client-2", s.Clock.Now().Add(time.Hour))
	if found("tok-short") {
		t.Error("an expired token is still there after the next save; want it dropped")
	}

	if err := keys.RevokeKey(s.ctx, "client-1"); err != nil {
		t.Fatal(err)
	}
	if found("tok-long") || !found("tok-other") {
		t.Errorf("after revoking client-1: its token found %v, another key's found %v; want false, true", found("tok-long"), found("tok-other"))
	}
}
