package sqlengine

import (
	"context"
	"errors"
	"testing"

	"github.com/matryer/is"

	"fieldapi/engine"
)

// TestSignaturePermissions checks that the signature's own permissions
// apply to every call, whatever a key's scopes would allow.
func TestSignaturePermissions(t *testing.T) {
	eachSharedEngine(t, func(t *testing.T, e testEngine) {
		ctx := context.Background()
		as := func(sign string) engine.Session { return engine.Session{Company: "demo", Sign: sign, ClientID: "test"} }
		list := func(s engine.Session, register string) error {
			_, err := e.List(ctx, s, register, engine.Query{Limit: 1})
			return err
		}
		get := func(s engine.Session, register, key string) error {
			_, err := e.Get(ctx, s, register, key)
			return err
		}
		create := func(s engine.Session, register string) error {
			_, err := e.Create(ctx, s, register, input(map[string]any{"Name": "Behörighet AB"}), asJSON(zeroClaim))
			return err
		}
		update := func(s engine.Session, register, key string) error {
			_, err := e.Update(ctx, s, register, key, input(map[string]any{"Name": "Behörighet AB"}), asJSON(zeroClaim))
			return err
		}
		defs := func(s engine.Session, register string) error {
			_, err := e.ExtraFieldDefs(ctx, s, register)
			return err
		}
		fieldNames := func(s engine.Session) error {
			_, err := e.FieldNames(ctx, s)
			return err
		}
		cases := []struct {
			name    string
			err     error
			allowed bool
		}{
			{"limited user lists what it may read", list(as("ERJO"), "customers"), true},
			{"limited user gets what it may read", get(as("ERJO"), "customers", "1001"), true},
			{"limited user reads extra-field definitions", defs(as("ERJO"), "customers"), true},
			{"limited user reads field names", fieldNames(as("ERJO")), true},
			{"limited user may not read another register", list(as("ERJO"), "products"), false},
			{"limited user may not create", create(as("ERJO"), "customers"), false},
			{"limited user may not update", update(as("ERJO"), "customers", "1001"), false},
			{"read permission does not grant write", create(as("MASV"), "products"), false},
			{"permission of another register", list(as("MASV"), "customers"), false},
			{"permission of that register", list(as("MASV"), "contacts"), true},
			{"passive user may not read", list(as("OLBE"), "customers"), false},
			{"passive user may not read field names", fieldNames(as("OLBE")), false},
			{"unknown signature", get(as("NOBODY"), "customers", "1001"), false},
			{"signature of another company", list(engine.Session{Company: "demo", Sign: "INSO"}, "customers"), false},
			{"full user", list(as("ANLI"), "products"), true},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				is := is.New(t)
				if c.allowed {
					is.NoErr(c.err)
					return
				}
				var pe *engine.PermissionError
				is.True(errors.As(c.err, &pe))
				t.Log(pe)
			})
		}
	})
}
