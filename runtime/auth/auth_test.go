package auth

import (
	"testing"

	"github.com/matryer/is"
)

func TestBearerSchemeIsCaseInsensitive(t *testing.T) {
	is := is.New(t)
	for header, want := range map[string]string{
		"Bearer mk_a": "mk_a", "bearer mk_a": "mk_a", "BEARER  mk_a": "mk_a", "Basic mk_a": "", "Bearer": "", "Bearer ": "", "Bearermk_a": "",
	} {
		got, ok := bearerCredential(header)
		is.Equal(ok, want != "")
		if ok {
			is.Equal(got, want)
		}
	}
}
