package settings

import (
	"errors"
	"testing"

	"github.com/matryer/is"
)

// TestDecodedOnce: a setting is decoded once while its company's settings
// are kept, a failure included; an unset one is not decoded at all.
func TestDecodedOnce(t *testing.T) {
	is := is.New(t)
	company := &Company{Values: map[string]string{"n": "42", "bad": "x"}}
	decodes := 0
	decode := func(v string) (any, error) {
		decodes++
		if v == "x" {
			return nil, errors.New("not a number")
		}
		return len(v), nil
	}
	for range 3 {
		v, ok, err := company.Decoded("n", decode)
		is.NoErr(err)
		is.True(ok)
		is.Equal(v, 2)
	}
	is.Equal(decodes, 1)
	for range 2 {
		_, ok, err := company.Decoded("bad", decode)
		is.True(ok)
		is.True(err != nil)
	}
	is.Equal(decodes, 2)
	_, ok, err := company.Decoded("unset", decode)
	is.NoErr(err)
	is.True(!ok)
	is.Equal(decodes, 2)
}
