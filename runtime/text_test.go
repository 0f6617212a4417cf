package runtime

import (
	"net/url"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// TestCheckJSONText: text encoding/json would alter, and numbers beyond
// float64, are refused naming the field; everything else passes to the
// strict decoder.
func TestCheckJSONText(t *testing.T) {
	for body, field := range map[string]string{
		"{\"name\": \"ok\xff\"}":                              `"name"`,
		`{"name": "a\u0000b"}`:                                `"name"`,
		`{"name": "\ud800"}`:                                  `"name"`,
		`{"name": "\udc00x"}`:                                 `"name"`,
		`{"name": "\ud800\u0041"}`:                            `"name"`,
		"{\"lines\": [{\"a\": 1}, {\"note\": \"\xc0\xaf\"}]}": `"lines[1].note"`,
		"{\"extraFields\": {\"Visit\xff\": \"x\"}}":           "\"extraFields.Visit\ufffd\"",
		`{"a": {"b\u0000": 1}}`:                               `"a.b\x00"`,
		`{"price": 1e309}`:                                    `"price"`,
		`{"lines": [1, -1e400]}`:                              `"lines[1]"`,
		"{\"userSigns\": [\"A\", \"B\xed\xa0\x80\"]}":         `"userSigns[1]"`,
	} {
		err := checkJSONText([]byte(body))
		if err == nil {
			t.Errorf("%q passed", body)
			continue
		}
		if p := err.(*Problem); p.Status != 400 || !strings.Contains(p.Detail, field) {
			t.Errorf("%q: %v, want a 400 naming %s", body, err, field)
		}
	}
	for _, body := range []string{
		``, `{`, `[1,`, `{"name": "Åsa \ud83d\ude00 \\ud800 \\\\"}`, `{"price": 1.7976931348623157e308, "tiny": 1e-400}`,
		`{"a": [[], {}, [{"b": "\ufffd"}]], "c": null}`, "{\"name\": \"literal \xef\xbf\xbd\"}",
	} {
		is.New(t).NoErr(checkJSONText([]byte(body)))
	}
}

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

// TestListParametersMustBeText: list parameters that are not valid UTF-8 or
// hold NUL, and number filters that are not finite, are 400s, never
// handed to the engine.
func TestListParametersMustBeText(t *testing.T) {
	filters := []Filter{{Param: "name", Field: "Name", Kind: KindText, Match: Contains}, {Param: "level", Field: "Level", Kind: KindNumber}}
	for _, query := range []string{"name=%FF", "name=a%00b", "%C0%AF=1", "name=%ED%A0%80", "level=NaN", "level=-Inf", "level=1e400"} {
		values, err := url.ParseQuery(query)
		if err != nil {
			t.Fatal(err)
		}
		_, err = ParseList(values, filters)
		if p, ok := err.(*Problem); !ok || p.Status != 400 || p.Title != "invalid_parameter" {
			t.Errorf("%s: %v, want 400 invalid_parameter", query, err)
		}
	}
}
