package runtime

import (
	"net/url"
	"testing"
)

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
