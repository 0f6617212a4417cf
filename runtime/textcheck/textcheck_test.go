package textcheck

import (
	"strings"
	"testing"

	"github.com/matryer/is"

	"fieldapi/runtime/problem"
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
		err := JSON([]byte(body))
		if err == nil {
			t.Errorf("%q passed", body)
			continue
		}
		if p := err.(*problem.Problem); p.Status != 400 || !strings.Contains(p.Detail, field) {
			t.Errorf("%q: %v, want a 400 naming %s", body, err, field)
		}
	}
	for _, body := range []string{
		``, `{`, `[1,`, `{"name": "Åsa \ud83d\ude00 \\ud800 \\\\"}`, `{"price": 1.7976931348623157e308, "tiny": 1e-400}`,
		`{"a": [[], {}, [{"b": "\ufffd"}]], "c": null}`, "{\"name\": \"literal \xef\xbf\xbd\"}",
	} {
		is.New(t).NoErr(JSON([]byte(body)))
	}
}
