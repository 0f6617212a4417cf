package decode

import (
	"strings"
	"testing"

	"github.com/matryer/is"

	"fieldapi/runtime/problem"
)

func TestOptionalPresence(t *testing.T) {
	cases := []struct {
		body     string
		presence Presence
		values   map[string]any
	}{
		{`{}`, Omitted, map[string]any{}},
		{`{"price":null}`, Null, map[string]any{}},
		{`{"price":""}`, Cleared, map[string]any{"Price": nil}},
		{`{"price":12.5}`, Set, map[string]any{"Price": 12.5}},
	}
	for _, tc := range cases {
		t.Run(tc.body, func(t *testing.T) {
			is := is.New(t)
			var b sampleBody
			is.NoErr(Object([]byte(tc.body), sampleShape, &b))
			is.Equal(b.Price.Presence, tc.presence)
			is.Equal(b.Input().Values, tc.values)
		})
	}
}

func TestTextEmptyStringIsAValue(t *testing.T) {
	is := is.New(t)
	in, err := Input[sampleBody]([]byte(`{"name":""}`), sampleShape)
	is.NoErr(err)
	is.Equal(in.Values["Name"], "") // a text "" is stored as "": it clears by value
}

// TestChoiceEmptyStringClears: "" is not a value of an enum, so it clears
// the field to null, where a plain text keeps "" as its value.
func TestChoiceEmptyStringClears(t *testing.T) {
	is := is.New(t)
	var kind Optional[Choice]
	is.NoErr(kind.Decode([]byte(`""`)))
	is.Equal(kind.Presence, Cleared)
	values := map[string]any{}
	kind.Put(values, "Kind")
	is.Equal(values, map[string]any{"Kind": nil})

	is.NoErr(kind.Decode([]byte(`"Day"`)))
	kind.Put(values, "Kind")
	is.Equal(values["Kind"], "Day") // handed to the engine as a plain string
	is.Equal(kind.Decode([]byte(`12`)).Error(), "expected a string")
}

// TestDecodeNoClearRefusesEmptyString: a field that always has a value
// refuses "", and takes null (leave) and values as Decode does.
func TestDecodeNoClearRefusesEmptyString(t *testing.T) {
	is := is.New(t)
	var date Optional[Date]
	err := date.DecodeNoClear([]byte(`""`))
	is.True(err != nil)
	is.True(strings.Contains(err.Error(), "cannot be cleared"))
	is.NoErr(date.DecodeNoClear([]byte(`null`)))
	is.Equal(date.Presence, Null)
	is.NoErr(date.DecodeNoClear([]byte(`"2026-05-01"`)))
	is.Equal(date.Value, Date("2026-05-01"))
	var name Optional[string]
	is.NoErr(name.DecodeNoClear([]byte(`""`))) // a text "" is a value, not a clear
	is.Equal(name.Presence, Set)
}

func TestValidDate(t *testing.T) {
	for s, want := range map[string]bool{
		"2026-05-01": true, "2026-05-01T08:00": true, "2026-05-01T08:00:00Z": true,
		"2026-05-01T08:00:00.123+02:00": true, "2026-02-30": false, "01/05/2026": false, "2026-5-1": false, "": false,
	} {
		if got := ValidDate(s); got != want {
			t.Errorf("ValidDate(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestProblemsNameTheField: each way a body can be wrong is a 400 that
// names the field, in a line too (lines[1].name), as the single reading
// of the body meets it.
func TestProblemsNameTheField(t *testing.T) {
	for body, want := range map[string]string{
		`{"name":"a","name":"b"}`:                          `field "name": sent twice`,
		`{"lines":[{"name":"a"},{"name":"a","name":"b"}]}`: `field "lines[1].name": sent twice`,
		`{"lines":[{"name":"a"},{"status":"x"}]}`:          `"lines[1].status"`,
		`{"lines":[{"name":"a"}, 3]}`:                      `field "lines[1]": expected an object`,
		`{"lines":{"name":"a"}}`:                           `field "lines": expected a list of objects`,
		`{"price":"12"}`:                                   `field "price": expected a number`,
		`{"n\u0061me":1}`:                                  `field "name": expected a string`,
		`{"nope":1}`:                                       `"nope"`,
		`{"price":1e400}`:                                  `field "price": expected a number`,
	} {
		_, err := Input[sampleBody]([]byte(body), sampleShape)
		if p, ok := err.(*problem.Problem); !ok || p.Status != 400 || !strings.Contains(p.Detail, want) {
			t.Errorf("%s: %v, want a 400 saying %s", body, err, want)
		}
	}
}
