package sqlengine

import (
	"context"
	"crypto/sha256"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"fieldapi/engine"
)

func TestKeyStore(t *testing.T) {
	eachEngine(t, func(t *testing.T, e testEngine) {
		is := is.New(t)
		ctx := context.Background()
		keys := e.Keys()
		hash := sha256.Sum256([]byte("secret"))
		key := engine.Key{ClientID: "client1", Company: "demo", Sign: "API", Scopes: []string{"customers:read", "customers:write"},
			AllowedIPs: []string{"10.0.0.0/8"}, SecretHash: hash[:]}

		bad := key
		bad.Company = "nope"
		err := keys.CreateKey(ctx, bad)
		is.True(err != nil && strings.Contains(err.Error(), `unknown company "nope"`))
		bad = key
		bad.Sign = "INSO" // a signature of demo2, not of demo
		err = keys.CreateKey(ctx, bad)
		is.True(err != nil && strings.Contains(err.Error(), `unknown sign "INSO"`))

		is.NoErr(keys.CreateKey(ctx, key))
		is.True(keys.CreateKey(ctx, key) != nil) // client id taken
		got, err := keys.LookupKey(ctx, "client1")
		is.NoErr(err)
		is.Equal(got.Scopes, key.Scopes)
		is.Equal(got.AllowedIPs, key.AllowedIPs)
		is.Equal(got.SecretHash, key.SecretHash)
		is.Equal(got.Created, e.clock.Now())
		is.Equal(got.Revoked, nil)

		other := engine.Key{ClientID: "client2", Company: "demo2", Sign: "API", Scopes: []string{"*"}, SecretHash: hash[:]}
		is.NoErr(keys.CreateKey(ctx, other))
		all, err := keys.ListKeys(ctx, "")
		is.NoErr(err)
		is.Equal(len(all), 2)
		demo2, err := keys.ListKeys(ctx, "demo2")
		is.NoErr(err)
		is.Equal(len(demo2), 1)
		is.Equal(demo2[0].ClientID, "client2")
		is.Equal(demo2[0].AllowedIPs, []string{})

		token := engine.Token{ID: "tok1", SecretHash: hash[:], ClientID: "client1", Expires: e.clock.Now().Add(time.Hour)}
		is.NoErr(keys.SaveToken(ctx, token))
		gotToken, err := keys.LookupToken(ctx, "tok1")
		is.NoErr(err)
		is.Equal(gotToken, token)

		e.clock.Advance(time.Minute)
		is.NoErr(keys.RevokeKey(ctx, "client1"))
		got, err = keys.LookupKey(ctx, "client1")
		is.NoErr(err)
		is.Equal(*got.Revoked, e.clock.Now())
		_, err = keys.LookupToken(ctx, "tok1")
		is.True(errors.Is(err, engine.ErrNoKey)) // revoked with its key

		is.True(errors.Is(keys.RevokeKey(ctx, "nobody"), engine.ErrNoKey))
		_, err = keys.LookupKey(ctx, "nobody")
		is.True(errors.Is(err, engine.ErrNoKey))
	})
}
