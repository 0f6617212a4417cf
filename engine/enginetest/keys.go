package enginetest

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

var keyTests = []test{
	{"keys and tokens", testKeyStore},
}

// testKeyStore: keys are stored for existing signatures only, read back as
// stored, listed per company; a client id is never reused; revoking a key
// drops its tokens; an unknown id is engine.ErrNoKey.
func testKeyStore(t *testing.T, s *suite) {
	ctx := context.Background()
	store := s.Engine.Keys()
	clientID := strings.ReplaceAll(strings.ToLower(uniqueName("client")), " ", "-")
	hash := sha256.Sum256([]byte("secret"))
	key := engine.Key{
		ClientID: clientID, Company: s.Company.Company, Sign: s.Company.Sign,
		Scopes: []string{s.subject.reg.ReadScope, s.subject.reg.WriteScope}, AllowedIPs: []string{"10.0.0.0/8"},
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

	if err := store.RevokeKey(ctx, clientID); err != nil {
		t.Fatalf("RevokeKey: %v", err)
	}
	if err := store.RevokeKey(ctx, clientID); err != nil {
		t.Errorf("RevokeKey twice: %v; want it harmless", err)
	}
	if got, err := store.LookupKey(ctx, clientID); err != nil || got.Revoked == nil {
		t.Errorf("LookupKey after RevokeKey = %+v, %v; want the key with Revoked set", got, err)
	}
	if _, err := store.LookupToken(ctx, token.ID); !errors.Is(err, engine.ErrNoKey) {
		t.Errorf("LookupToken after its key was revoked: %v; want engine.ErrNoKey", err)
	}
	if err := store.CreateKey(ctx, key); err == nil {
		t.Error("CreateKey with a revoked key's client id succeeded; want an error (ids are never reused)")
	}
}
