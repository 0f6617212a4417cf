package jsontext

import (
	"bytes"
	"encoding/json"
	"regexp"
	"testing"
	"unicode/utf8"
)

// loneSurrogate finds the escapes encoding/json turns into U+FFFD when
// unpaired: such text never reaches Canonical (runtime/textcheck).
var loneSurrogate = regexp.MustCompile(`(?i)\\u d[89a-f]`)

// FuzzCanonicalAsEncodingJSON: Canonical writes what json.Marshal writes
// of json.Decoder's (UseNumber) reading of the same bytes, and fails
// where it fails.
func FuzzCanonicalAsEncodingJSON(f *testing.F) {
	for _, seed := range []string{
		`{"b":1,"a":[true,null,"x<&>\u2028"],"c":{"z":1.50,"y":-0}}`,
		`{"a":1,"a":{"b":2},"A":3}`, ` [ 1e5 , "é" ] trailing`, `"\u00e9\n"`, `{`, `{"a" 1}`, ``, `[[[]]]`, `{"":""}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !utf8.Valid(data) || loneSurrogate.Match(bytes.ReplaceAll(data, []byte(`\u`), []byte(`\u `))) {
			t.Skip("invalid text never reaches Canonical: runtime/textcheck refuses it first")
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var v any
		decodeErr := dec.Decode(&v)
		got, ok := Canonical(nil, data)
		if decodeErr != nil {
			if ok {
				t.Fatalf("%q: encoding/json fails (%v), Canonical gives %s", data, decodeErr, got)
			}
			return
		}
		want, err := json.Marshal(v)
		if err != nil {
			return
		}
		if !ok || !bytes.Equal(got, want) {
			t.Fatalf("%q:\n got %s (%v)\nwant %s", data, got, ok, want)
		}
	})
}
